package dbtest_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

// The PostgreSQL leg must really run on PostgreSQL, each test in its own database.
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
	var name string
	if err := d.SQL.QueryRowContext(context.Background(), "SELECT current_database()").Scan(&name); err != nil || !strings.HasPrefix(name, "t_") {
		t.Fatalf("current_database = %q, %v", name, err)
	}
	var n int
	if err := d.SQL.QueryRowContext(context.Background(), "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'users'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("users table in %s: %d, %v", name, n, err)
	}
}

// A copy of the template carries every table and none of another test's rows;
// EmptyDSN has no table at all, and migrating it gives the same tables.
func TestCopiesAreMigratedAndSeparate(t *testing.T) {
	ctx := context.Background()
	a, b := dbtest.Open(t), dbtest.Open(t)
	a.SetClock(dbtest.WallClock)
	b.SetClock(dbtest.WallClock)
	if _, err := a.User.Create().SetUsername("ann").SetEmail("ann@example.com").SetPasswordHash("x").SetName("Ann").Save(ctx); err != nil {
		t.Fatalf("create in a: %v", err)
	}
	if n, err := b.User.Query().Count(ctx); err != nil || n != 0 {
		t.Fatalf("b sees %d users (%v): copies must be separate", n, err)
	}
	empty, err := db.OpenMigrated(ctx, dbtest.EmptyDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if got := tables(t, empty); len(got) != 0 {
		t.Fatalf("EmptyDSN has tables %v", got)
	}
	migrated, err := db.Open(ctx, dbtest.EmptyDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer migrated.Close()
	if got, want := tables(t, migrated), tables(t, a); !slices.Equal(got, want) {
		t.Fatalf("migrated tables %v, template copy %v", got, want)
	}
}

func tables(t *testing.T, d *db.DB) []string {
	t.Helper()
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
	if d.Dialect == dialect.Postgres {
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name"
	}
	rows, err := d.SQL.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	return names
}

// A copy a test has finished with reaches the process's next test as the
// template left it: on PostgreSQL the same database, emptied, its sequences
// restarted; a copy whose schema the test changed is never handed on.
func TestUsedCopyComesBackAsTheTemplate(t *testing.T) {
	ctx := context.Background()
	var used string
	t.Run("use", func(t *testing.T) {
		d := dbtest.Open(t)
		d.SetClock(dbtest.WallClock)
		used = databaseName(t, d)
		u, err := d.User.Create().SetUsername("ann").SetEmail("ann@example.com").SetPasswordHash("x").SetName("Ann").Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := d.StreamEvent.Create().SetUserID(u.ID).SetPayload([]byte("{}")).SetCreatedAt(dbtest.WallClock()).Save(ctx); err != nil {
				t.Fatal(err)
			}
		}
	})
	var changed string
	t.Run("again", func(t *testing.T) {
		d := dbtest.Open(t)
		d.SetClock(dbtest.WallClock)
		if name := databaseName(t, d); os.Getenv(dbtest.TestPostgresEnv) != "" && name != used {
			t.Errorf("second test got %s, want the first's %s, emptied", name, used)
		}
		if n, err := d.User.Query().Count(ctx); err != nil || n != 0 {
			t.Fatalf("second test sees %d users (%v)", n, err)
		}
		u, err := d.User.Create().SetUsername("bob").SetEmail("bob@example.com").SetPasswordHash("x").SetName("Bob").Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		e, err := d.StreamEvent.Create().SetUserID(u.ID).SetPayload([]byte("{}")).SetCreatedAt(dbtest.WallClock()).Save(ctx)
		if err != nil || e.ID != 1 {
			t.Fatalf("first event of the second test has id %v (%v), want 1", e, err)
		}
		changed = databaseName(t, d)
		if _, err := d.SQL.ExecContext(ctx, "CREATE TABLE scratch (x int)"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("after a schema change", func(t *testing.T) {
		d := dbtest.Open(t)
		if name := databaseName(t, d); name == changed {
			t.Fatalf("the copy whose schema changed (%s) was handed on", name)
		}
		if got := tables(t, d); slices.Contains(got, "scratch") {
			t.Fatalf("tables %v include the last test's scratch", got)
		}
	})
}

func databaseName(t *testing.T, d *db.DB) string {
	t.Helper()
	q := "SELECT file FROM pragma_database_list WHERE name = 'main'"
	if d.Dialect == dialect.Postgres {
		q = "SELECT current_database()"
	}
	var name string
	if err := d.SQL.QueryRowContext(context.Background(), q).Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}
