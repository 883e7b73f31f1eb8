package dbtest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// FixtureDSN names a database for one test holding a fixture written by an
// older schema, not yet opened (so not yet migrated): a copy of the SQLite
// file sqlitePath, or, when SWITCHBOARD_TEST_POSTGRES is set, a database of
// its own loaded from the SQL dump pgDumpPath (statements without a schema
// qualifier).
func FixtureDSN(t testing.TB, sqlitePath, pgDumpPath string) string {
	t.Helper()
	if pg := os.Getenv(TestPostgresEnv); pg != "" {
		dsn := postgresDatabase(t, pg, false)
		load(t, dsn, pgDumpPath)
		return dsn
	}
	b, err := os.ReadFile(sqlitePath)
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	path := filepath.Join(t.TempDir(), "fixture.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatalf("copy fixture: %v", err)
	}
	return "sqlite:" + path
}

// load runs a dump's statements in one go over the simple protocol, which
// takes many statements at once.
func load(t testing.TB, dsn, dumpPath string) {
	t.Helper()
	dump, err := os.ReadFile(dumpPath)
	if err != nil {
		t.Fatalf("read dump: %v", err)
	}
	conn, err := sql.Open("pgx", dsn+"&default_query_exec_mode=simple_protocol")
	if err != nil {
		t.Fatalf("open %s: %v", TestPostgresEnv, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), string(dump)); err != nil {
		t.Fatalf("load %s: %v", dumpPath, err)
	}
}
