package main

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/internal/ids"
)

// BenchmarkCreateLeanSQL is a yardstick, not the product: the same rows the
// create transaction writes (queue item with its card id, card, checklist row,
// two activity entries) and the reads it needs (settings, last card order),
// without ent, on one connection with mattn's statement cache, committing
// after every create (perTx=1) or after ten (perTx=10, group commit). It says
// whether 3,000 creates/s is within SQLite's reach on this machine.
func BenchmarkCreateLeanSQL(b *testing.B) {
	for _, perTx := range []int{1, 10} {
		b.Run(fmt.Sprintf("perTx=%d", perTx), func(b *testing.B) { benchLean(b, perTx) })
	}
}

// benchLean commits every perTx creates: perTx > 1 is group commit, one
// transaction for several requests' creates. ns/op is per create.
func benchLean(b *testing.B, perTx int) {
	f := newFixture(b, profileItems)
	var seq int
	var path string
	if err := f.s.DB.SQL.QueryRow("SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&path); err != nil {
		b.Fatal(err)
	}
	d, err := sql.Open("sqlite3", "file:"+path+"?_fk=1&_busy_timeout=10000&_synchronous=NORMAL&_txlock=immediate&_stmt_cache_size=32")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	d.SetMaxOpenConns(1)
	ctx := context.Background()
	for b.Loop() {
		tx, err := d.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		for range perTx {
			seq++
			if err := leanCreate(ctx, tx, f.userID, fmt.Sprintf("bench %d", seq)); err != nil {
				_ = tx.Rollback()
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(seq), "ns/create")
	b.ReportMetric(float64(seq)/b.Elapsed().Seconds(), "creates/s")
}

func leanCreate(ctx context.Context, tx *sql.Tx, userID, title string) (err error) {
	now := time.Now().UTC()
	var auto bool
	if err = tx.QueryRowContext(ctx, "SELECT queue_auto_approve FROM settings WHERE user_id = ?", userID).Scan(&auto); err != nil {
		return err
	}
	var order int
	if err = tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(`order`), -1) + 1 FROM cards WHERE user_id = ? AND status = 'active'", userID).Scan(&order); err != nil {
		return err
	}
	itemID, cardID := ids.New(), ids.New()
	for _, s := range []struct {
		q    string
		args []any
	}{
		{"INSERT INTO cards (id, created_at, updated_at, title, status, priority, assignee, `order`, labels, is_archived, user_id) VALUES (?, ?, ?, ?, 'active', 'medium', 'human', ?, '[]', false, ?)",
			[]any{cardID, now, now, title, order, userID}},
		{"INSERT INTO activity_entries (id, action, category, actor, summary, card_id, is_cross_user, metadata, created_at, user_id) VALUES (?, 'card_created', 'board', 'bench', ?, ?, false, '', ?, ?)",
			[]any{ids.New(), "Created card for queued task", cardID, now, userID}},
		{"INSERT INTO queue_items (id, created_at, updated_at, type, title, priority, status, metadata, task_origin, user_id, card_id) VALUES (?, ?, ?, 'task', ?, 'medium', 'pending_confirmation', '', 'owner', ?, ?)",
			[]any{itemID, now, now, title, userID, cardID}},
		{"INSERT INTO checklist_items (id, created_at, updated_at, text, completed, `order`, source_type, source_id, source_label, assignee_type, user_id, card_id) VALUES (?, ?, ?, ?, false, 0, 'queue', ?, 'task_queued', 'divi', ?, ?)",
			[]any{ids.New(), now, now, title, itemID, userID, cardID}},
		{"INSERT INTO activity_entries (id, action, category, actor, summary, card_id, is_cross_user, metadata, created_at, user_id) VALUES (?, 'queue_added', 'queue', 'bench', ?, ?, false, ?, ?, ?)",
			[]any{ids.New(), "Queued " + title, cardID, `{"queueItemId":"` + itemID + `"}`, now, userID}},
	} {
		if _, err = tx.ExecContext(ctx, s.q, s.args...); err != nil {
			return err
		}
	}
	return nil
}
