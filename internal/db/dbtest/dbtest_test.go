package dbtest_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

// The PostgreSQL leg must really run on PostgreSQL, each test in its own schema.
func TestOpenHonoursTheEnvironment(t *testing.T) {
	d := dbtest.Open(t)
	if os.Getenv(dbtest.TestPostgresEnv) == "" {
		if d.Dialect != dialect.SQLite {
			t.Fatalf("dialect = %s, want sqlite", d.Dialect)
		}
		var mode string
		if err := d.SQL.QueryRowContext(context.Background(), "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
			t.Fatalf("journal_mode = %q, %v", mode, err)
		}
		var fk int
		if err := d.SQL.QueryRowContext(context.Background(), "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
			t.Fatalf("foreign_keys = %d, %v", fk, err)
		}
		return
	}
	if d.Dialect != dialect.Postgres {
		t.Fatalf("dialect = %s, want postgres", d.Dialect)
	}
	var schema string
	if err := d.SQL.QueryRowContext(context.Background(), "SELECT current_schema()").Scan(&schema); err != nil || !strings.HasPrefix(schema, "t_") {
		t.Fatalf("current_schema = %q, %v", schema, err)
	}
	var n int
	if err := d.SQL.QueryRowContext(context.Background(), "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'users'", schema).Scan(&n); err != nil || n != 1 {
		t.Fatalf("users table in %s: %d, %v", schema, n, err)
	}
}
