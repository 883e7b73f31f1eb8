package db

// CentsSQL is the migration's conversion of a double to cents, per dialect,
// for TestCentsInSQLMatchRound.
var CentsSQL = map[string]string{"sqlite3": centsSQLiteSQL, "postgres": centsPostgresSQL}
