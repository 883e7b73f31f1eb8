package kanban

import (
	"context"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

// Issue 34 point 1: the end of a column (and of a checklist) is read from
// the end of its index, one entry, on a table no ANALYZE has seen since its
// rows were written; MAX("order") aggregated every card of the column
// there. On both engines the answer is one past the largest order.
func TestEndOfColumnReadsOneIndexEntry(t *testing.T) {
	d := dbtest.Open(t)
	d.SetClock(dbtest.WallClock)
	ctx := context.Background()
	u, err := d.Client.User.Create().SetUsername("ann").SetEmail("ann@example.com").SetName("Ann").SetPasswordHash("x").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const cards = 3000 // the inserts' own bound: SQLite binds $N in the order they appear
	if _, err := d.SQL.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
INSERT INTO cards (id, created_at, updated_at, title, status, "order", labels, user_id)
SELECT 'card-' || i, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 'card', 'active', i * 2, '[]', $1 FROM n`, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SQL.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
INSERT INTO checklist_items (id, created_at, updated_at, text, completed, "order", source_type, assignee_type, user_id, card_id)
SELECT 'item-' || i, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 'item', false, i, 'manual', 'human', $1, 'card-1' FROM n`, u.ID); err != nil {
		t.Fatal(err)
	}
	var col, list int
	if err := d.InTx(ctx, func(tx *db.Tx) (err error) {
		if col, err = EndOfColumn(ctx, tx, u.ID, "active"); err != nil {
			return err
		}
		list, err = EndOfChecklist(ctx, tx, "card-1")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if col != 2*cards+1 || list != cards+1 {
		t.Fatalf("end of column %d, of checklist %d; want %d and %d", col, list, 2*cards+1, cards+1)
	}
	if d.Dialect != dialect.Postgres {
		return // SQLite reads MAX from the index end either way
	}
	for _, c := range []struct {
		stmt, index string
		args        []any
	}{
		{endOfColumnSQL, "card_user_id_status_order", []any{u.ID, "active"}},
		{endOfChecklistSQL, "checklistitem_card_id_order", []any{"card-1"}},
	} {
		plan := dbtest.Plan(t, d.SQL, "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) "+c.stmt, c.args...)
		scan := ""
		for _, line := range strings.Split(plan, "\n") {
			if strings.Contains(line, "Scan") {
				scan = line
			}
		}
		if !strings.Contains(scan, "Backward using "+c.index) || !strings.Contains(scan, "rows=1 loops=1") {
			t.Fatalf("%s reads more than the index's last entry:\n%s", c.stmt, plan)
		}
	}
}
