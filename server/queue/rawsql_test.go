package queue

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/activity"
)

// The create path writes its rows with plain SQL (bridge.go); each must be the
// row ent's own create writes for the same values, column for column, as
// stored, on both databases. Two rows per table: one through ent, one through
// the plain statement; every column but id is compared raw.
func TestCreateRowsMatchEnt(t *testing.T) {
	d := dbtest.Open(t)
	d.SetClock(dbtest.WallClock)
	ctx := context.Background()
	u, err := d.Client.User.Create().SetUsername("ann").SetEmail("ann@example.com").SetName("Ann").SetPasswordHash("x").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	desc, src, project, keyRef := "a description", "agent", "proj-1", "key-1"
	// The card that checklist rows and activity entries point at; made with
	// plain SQL, so the cards case below compares against ent's card.
	var cardID string
	if err := d.InTx(ctx, func(tx *db.Tx) (err error) {
		cardID, err = (bridge{tx: tx, userID: u.ID, actor: "test", now: time.Now().UTC()}).newCard(ctx, &ent.QueueItem{Title: "C", Priority: queueitem.PriorityMedium})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		table string
		ent   func(*db.Tx) (string, error)
		raw   func(*db.Tx) (string, error)
		// computed columns: what the plain path must store instead of ent's value
		computed map[string]any
	}{
		{table: "cards", computed: map[string]any{"order": int64(4)}, ent: func(tx *db.Tx) (string, error) {
			c, err := tx.Card.Create().SetUserID(u.ID).SetTitle("T").SetNillableDescription(&desc).
				SetStatus(card.StatusActive).SetPriority(card.PriorityHigh).SetOrder(3).SetProjectID(project).
				SetCreatedBy(card.CreatedByKey).SetCreatedByRef(keyRef).SetTextBy(card.TextByKey).SetTextByRef(keyRef).Save(ctx)
			if err != nil {
				return "", err
			}
			return c.ID, nil
		}, raw: func(tx *db.Tx) (string, error) { // a new card goes to the end of its column: 3 + 1
			b := bridge{tx: tx, userID: u.ID, actor: "test", now: time.Now().UTC()}
			return b.newCard(ctx, &ent.QueueItem{Title: "T", Description: &desc, Priority: queueitem.PriorityHigh, ProjectID: &project,
				TextBy: queueitem.TextByKey, TextByRef: &keyRef})
		}},
		{table: "queue_items", ent: func(tx *db.Tx) (string, error) {
			it, err := tx.QueueItem.Create().SetUserID(u.ID).SetTitle("T").SetNillableDescription(&desc).
				SetType(queueitem.TypeReminder).SetPriority(queueitem.PriorityUrgent).SetStatus(queueitem.StatusReady).
				SetSource(src).SetMetadata(`{"a":1}`).SetTaskOrigin(queueitem.TaskOriginOwner).SetProjectID(project).
				SetCreatedBy(queueitem.CreatedByKey).SetCreatedByRef(keyRef).SetTextBy(queueitem.TextByKey).SetTextByRef(keyRef).Save(ctx)
			if err != nil {
				return "", err
			}
			return it.ID, nil
		}, raw: func(tx *db.Tx) (string, error) {
			now := time.Now().UTC()
			it := &ent.QueueItem{ID: "raw-item", CreatedAt: now, UpdatedAt: now, UserID: u.ID, Type: queueitem.TypeReminder,
				Title: "T", Description: &desc, Priority: queueitem.PriorityUrgent, Status: queueitem.StatusReady,
				Source: &src, Metadata: `{"a":1}`, TaskOrigin: queueitem.TaskOriginOwner, ProjectID: &project,
				CreatedBy: queueitem.CreatedByKey, CreatedByRef: &keyRef, TextBy: queueitem.TextByKey, TextByRef: &keyRef}
			return it.ID, insertItem(ctx, tx, it)
		}},
		{table: "checklist_items", ent: func(tx *db.Tx) (string, error) {
			r, err := tx.ChecklistItem.Create().SetUserID(u.ID).SetCardID(cardID).SetText("row").SetOrder(2).
				SetSourceType(sourceQueue).SetSourceID("item-1").SetSourceLabel(labelQueued).SetAssigneeType("divi").
				SetCreatedBy(checklistitem.CreatedByKey).SetCreatedByRef(keyRef).SetTextBy(checklistitem.TextByKey).SetTextByRef(keyRef).Save(ctx)
			if err != nil {
				return "", err
			}
			return r.ID, nil
		}, raw: func(tx *db.Tx) (string, error) {
			err := (bridge{tx: tx, userID: u.ID, actor: "test", now: time.Now().UTC()}).insertRow(ctx, cardID, 2,
				&ent.QueueItem{ID: "item-1", TextBy: queueitem.TextByKey, TextByRef: &keyRef}, "row", sourceQueue, labelQueued)
			return "", err
		}},
		{table: "activity_entries", ent: func(tx *db.Tx) (string, error) {
			a, err := tx.ActivityEntry.Create().SetUserID(u.ID).SetAction("queue_added").SetCategory("queue").
				SetActor("test").SetSummary("Queued").SetMetadata(`{"queueItemId":"x"}`).SetCardID(cardID).Save(ctx)
			if err != nil {
				return "", err
			}
			return a.ID, nil
		}, raw: func(tx *db.Tx) (string, error) {
			return "", activity.Write(ctx, tx, activity.Entry{UserID: u.ID, Action: "queue_added", Actor: "test",
				Summary: "Queued", CardID: cardID, CardIsNew: true, Metadata: map[string]any{"queueItemId": "x"}, At: time.Now().UTC()})
		}},
	} {
		t.Run(c.table, func(t *testing.T) {
			var entID, rawID string
			if err := d.InTx(ctx, func(tx *db.Tx) (err error) {
				if entID, err = c.ent(tx); err != nil {
					return err
				}
				rawID, err = c.raw(tx)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if rawID == "" { // the newest other row of the table
				if err := d.SQL.QueryRow(fmt.Sprintf("SELECT id FROM %s WHERE id <> $1 ORDER BY created_at DESC LIMIT 1", c.table), entID).Scan(&rawID); err != nil {
					t.Fatal(err)
				}
			}
			entRow, rawRow := storedRow(t, d.SQL, c.table, entID), storedRow(t, d.SQL, c.table, rawID)
			for col, want := range entRow {
				got := rawRow[col]
				if col == "id" {
					continue
				}
				if isTime(want) && isTime(got) {
					continue // both stored as timestamps; the instants differ by design
				}
				if v, ok := c.computed[col]; ok {
					want = v
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s.%s: plain SQL stored %#v, ent stores %#v", c.table, col, got, want)
				}
			}
			if len(rawRow) != len(entRow) {
				t.Errorf("column count %d vs %d", len(rawRow), len(entRow))
			}
		})
	}
}

func storedRow(t *testing.T, db *sql.DB, table, id string) map[string]any {
	t.Helper()
	rows, err := db.Query(fmt.Sprintf("SELECT * FROM %s WHERE id = $1", table), id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatalf("%s %s: no row", table, id)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for i, c := range cols {
		out[c] = vals[i]
	}
	return out
}

func isTime(v any) bool {
	switch v.(type) {
	case time.Time:
		return true
	}
	return false
}
