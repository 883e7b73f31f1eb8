package db

import "context"

// GroupCommit runs fns as one group-commit batch (SQLite: one transaction,
// each fn in its own savepoint, as the writer does with transactions that
// arrive together) and answers each one's error, after running the
// after-commit functions of those that committed. PostgreSQL has no batches:
// one transaction each.
func (d *DB) GroupCommit(ctx context.Context, fns ...func(*Tx) error) []error {
	errs := make([]error, len(fns))
	if d.writer == nil {
		for i, fn := range fns {
			errs[i] = d.InTx(ctx, fn)
		}
		return errs
	}
	jobs := make([]*job, len(fns))
	for i, fn := range fns {
		jobs[i] = &job{ctx: ctx, fn: fn, result: make(chan error, 1)}
	}
	d.writer.runBatch(jobs)
	for i, j := range jobs {
		if errs[i] = <-j.result; errs[i] == nil {
			j.out.runAfter()
		}
	}
	return errs
}

// CentsSQL is the migration's conversion of a double to cents, per dialect,
// for TestCentsInSQLMatchRound.
var CentsSQL = map[string]string{"sqlite3": centsSQLiteSQL, "postgres": centsPostgresSQL}
