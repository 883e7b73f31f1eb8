// Package dbtest gives each test a fresh database: SQLite by default, PostgreSQL
// when SWITCHBOARD_TEST_POSTGRES is set. Each is a copy of one migrated
// template (template.go), so a test pays for a file copy or a CREATE DATABASE,
// not a migration.
package dbtest

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
)

// TestPostgresEnv names the PostgreSQL DSN that reruns every test on PostgreSQL.
const TestPostgresEnv = "SWITCHBOARD_TEST_POSTGRES"

// Open opens a fresh, migrated database for one test: a SQLite file in the
// test's temp dir, or, when SWITCHBOARD_TEST_POSTGRES is set, a database of its
// own on that server, dropped when the test ends.
func Open(t testing.TB) *db.DB {
	t.Helper()
	return OpenDSN(t, DSN(t))
}

// OpenDSN opens dsn, a database DSN named, as Open does: another handle on
// the same database stands for another replica (servertest.Replicas).
func OpenDSN(t testing.TB, dsn string) *db.DB {
	t.Helper()
	d, err := db.OpenMigrated(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	if d.Dialect == dialect.Postgres {
		// Tests run side by side, each with its own server and pool, against one
		// PostgreSQL whose connections are limited (100 by default): a small
		// pool per test keeps the whole run under that.
		d.SQL.SetMaxOpenConns(testPoolSize)
		d.SQL.SetMaxIdleConns(2)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// WallClock is the wall clock in UTC, for tests that write rows without a
// server (db.DB.SetClock; a server sets its own) and whose rows' times are not
// what they test. A database has no clock until one is set.
func WallClock() time.Time { return time.Now().UTC() }

// testPoolSize is each test database's connection limit on PostgreSQL.
const testPoolSize = 6

// DSN names a fresh database for one test that already carries the schema
// (see Open), without opening it, for tests that hand it to the binary.
func DSN(t testing.TB) string {
	t.Helper()
	if pg := os.Getenv(TestPostgresEnv); pg != "" {
		return postgresDatabase(t, pg, true)
	}
	path := filepath.Join(t.TempDir(), "test.db")
	if err := copySQLite(path); err != nil {
		t.Fatalf("copy the template database: %v", err)
	}
	return "sqlite:" + path
}

// EmptyDSN names a fresh database without any table, for tests of migration.
func EmptyDSN(t testing.TB) string {
	t.Helper()
	if pg := os.Getenv(TestPostgresEnv); pg != "" {
		return postgresDatabase(t, pg, false)
	}
	return "sqlite:" + filepath.Join(t.TempDir(), "test.db")
}

// postgresDatabase creates a database for one test (a copy of the template, or
// empty) and drops it when the test ends; a copy of the template is emptied
// instead and kept for the process's next test, when it can be (recycle.go).
func postgresDatabase(t testing.TB, dsn string, migrated bool) string {
	t.Helper()
	// One short-lived connection each to create and to drop the database: none
	// is held while the test runs.
	exec := func(stmt string) error {
		admin, err := sql.Open("pgx", dsn)
		if err != nil {
			return err
		}
		defer admin.Close()
		_, err = admin.ExecContext(context.Background(), stmt)
		return err
	}
	drop := func(name string) {
		if err := exec("DROP DATABASE " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	}
	if migrated {
		if name, ok := freeCopy(); ok {
			t.Cleanup(func() { recycle(name, drop) })
			return withDatabase(dsn, name)
		}
	}
	name := copyPrefix() + strings.ToLower(ids.New())
	create := "CREATE DATABASE " + name
	if migrated {
		tmpl, err := postgresTemplateOnce()
		if err != nil {
			t.Fatalf("template database on %s: %v", TestPostgresEnv, err)
		}
		create += " TEMPLATE " + tmpl
	}
	if err := exec(create); err != nil {
		t.Fatalf("create database on %s: %v", TestPostgresEnv, err)
	}
	if migrated && recyclerFor(dsn, name) != nil {
		t.Cleanup(func() { recycle(name, drop) })
	} else {
		t.Cleanup(func() { drop(name) })
	}
	return withDatabase(dsn, name)
}

// recycle empties a used copy for the next test, or drops it when it cannot
// be reused.
func recycle(name string, drop func(string)) {
	recyclerMu.Lock()
	r := theRecycler
	recyclerMu.Unlock()
	if r == nil || r.give(name) != nil {
		drop(name)
	}
}

// withDatabase points a PostgreSQL DSN at another database of the same server.
func withDatabase(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn // db.Open reports the bad DSN
	}
	u.Path = "/" + name
	return u.String()
}
