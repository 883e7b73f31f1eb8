package db_test

import (
	"testing"

	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

// queue_counts follows inserts, status changes and deletes made with plain
// SQL (the triggers, not the services, keep it), and a migration recounts it:
// a database whose counters went wrong (here, emptied behind the triggers'
// back) and whose schema record is not this build's is right again after
// the next start, on SQLite and PostgreSQL.
func TestQueueCountsKeptAndRecounted(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := dbtest.EmptyDSN(t)
	d, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	d.SetClock(dbtest.WallClock)
	u, err := d.User.Create().SetUsername("ann").SetEmail("ann@example.com").SetName("ann").SetPasswordHash("x").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, status := range []string{"ready", "ready", "later", "ready", "blocked"} {
		if _, err := d.SQL.ExecContext(ctx, `INSERT INTO queue_items (id, created_at, updated_at, user_id, type, title,
			priority, status, metadata, task_origin) VALUES ($1, $2, $3, $4, 'task', 'T', 'medium', $5, '', 'owner')`,
			"item-"+string(rune('a'+i)), dbtest.WallClock(), dbtest.WallClock(), u.ID, status); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.SQL.ExecContext(ctx, `UPDATE queue_items SET status = 'later' WHERE id IN ('item-a', 'item-e')`); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SQL.ExecContext(ctx, `DELETE FROM queue_items WHERE id = 'item-b'`); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"ready": 1, "later": 3, "blocked": 0}
	check := func(when string) {
		t.Helper()
		rows, err := d.QueueCount.Query().All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, r := range rows {
			if r.UserID != u.ID {
				t.Fatalf("%s: a counter of user %q", when, r.UserID)
			}
			got[r.Status] = r.N
		}
		for status, n := range want {
			if got[status] != n {
				t.Errorf("%s: %s = %d, want %d (all: %v)", when, status, got[status], n, got)
			}
		}
	}
	check("kept")

	if _, err := d.SQL.ExecContext(ctx, `DELETE FROM queue_counts`); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SQL.ExecContext(ctx, `UPDATE `+db.SchemaTable+` SET fingerprint = 'older'`); err != nil {
		t.Fatal(err)
	}
	d.Close()
	d, err = db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// The recount writes the statuses in use only.
	delete(want, "blocked")
	check("recounted")
	if n, err := d.QueueCount.Query().Count(ctx); err != nil || n != 2 {
		t.Fatalf("recounted rows = %d %v, want 2", n, err)
	}
}
