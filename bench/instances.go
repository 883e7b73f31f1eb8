package main

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"

	"github.com/switchboard-hq/switchboard/internal/db"
)

// instanceStore gives each instance a subcommand starts (dispatch's hub and
// spoke, relay's A and B) a fresh database of its own: an SQLite file under
// the run's directory or, with pg set (-db postgres://…), a schema of that
// PostgreSQL database, dropped when the run ends.
type instanceStore struct {
	ps  *procs
	dir string
	pg  string
}

// fresh answers the DSN of a new, empty database for the instance called
// name, and the directory the instance runs in: its generated instance key
// lands there (beside the SQLite file; in the working directory on
// PostgreSQL), so each instance has its own.
func (s instanceStore) fresh(ctx context.Context, name string) (dsn, dir string, err error) {
	dir = filepath.Join(s.dir, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", err
	}
	if s.pg == "" {
		return "sqlite:" + filepath.Join(dir, name+".db"), dir, nil
	}
	dsn, err = instanceSchema(ctx, s.ps, s.pg, name)
	return dsn, dir, err
}

// kind names the databases for a report.
func (s instanceStore) kind() string {
	if s.pg == "" {
		return "SQLite files"
	}
	return "PostgreSQL, a fresh schema each"
}

// openLanded opens an instance's database for the benchmark's own reads of
// what landed there (read-only on SQLite). Queries use $n placeholders,
// which both drivers take.
func openLanded(dsn string) (*sql.DB, error) {
	if file := db.SQLiteFile(dsn); file != "" {
		return sql.Open("sqlite3", "file:"+file+"?mode=ro&_busy_timeout=5000")
	}
	return sql.Open("pgx", dsn)
}
