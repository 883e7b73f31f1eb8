// Package dbtest gives each test a fresh database: SQLite by default, PostgreSQL
// when SWITCHBOARD_TEST_POSTGRES is set.
package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
)

// TestPostgresEnv names the PostgreSQL DSN that reruns every test on PostgreSQL.
const TestPostgresEnv = "SWITCHBOARD_TEST_POSTGRES"

// OpenTest opens a fresh, migrated database for one test: a SQLite file in the
// test's temp dir, or, when SWITCHBOARD_TEST_POSTGRES is set, a schema of its
// own on that server, dropped when the test ends.
func Open(t testing.TB) *db.DB {
	t.Helper()
	d, err := db.Open(context.Background(), DSN(t))
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

// testPoolSize is each test database's connection limit on PostgreSQL.
const testPoolSize = 6

// DSN names a fresh, empty database for one test (see Open) without opening it,
// for tests that hand it to the binary.
func DSN(t testing.TB) string {
	t.Helper()
	if pg := os.Getenv(TestPostgresEnv); pg != "" {
		return postgresSchema(t, pg)
	}
	return "sqlite:" + filepath.Join(t.TempDir(), "test.db")
}

func postgresSchema(t testing.TB, dsn string) string {
	t.Helper()
	ctx := context.Background()
	schema := "t_" + strings.ToLower(ids.New())
	// One short-lived connection each to create and to drop the schema: none
	// is held while the test runs.
	exec := func(ctx context.Context, stmt string) error {
		admin, err := sql.Open("pgx", dsn)
		if err != nil {
			return err
		}
		defer admin.Close()
		_, err = admin.ExecContext(ctx, stmt)
		return err
	}
	t.Cleanup(func() {
		if err := exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	if err := exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema on %s: %v", TestPostgresEnv, err)
	}
	return dsnWithSearchPath(dsn, schema)
}

func dsnWithSearchPath(dsn, schema string) string {
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return fmt.Sprintf("%s%ssearch_path=%s", dsn, sep, schema)
}
