package db_test

import (
	"testing"

	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

// On PostgreSQL the rate counters are an UNLOGGED table (db.Unlogged): a
// migrated database has it so, and migrating again leaves it so. SQLite has
// no such thing, and the migration leaves its table as ent made it.
func TestRateCountsUnlogged(t *testing.T) {
	t.Parallel()
	dsn := dbtest.EmptyDSN(t)
	for range 2 {
		d, err := db.Open(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		if d.Dialect == dialect.Postgres {
			for _, table := range db.Unlogged {
				var p string
				if err := d.SQL.QueryRowContext(t.Context(), "SELECT relpersistence FROM pg_class WHERE oid = $1::regclass", table).Scan(&p); err != nil || p != "u" {
					t.Fatalf("%s: persistence %q %v", table, p, err)
				}
			}
		}
		d.Close()
	}
}
