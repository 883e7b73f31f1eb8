package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/kanban"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// Checklist sources and labels the bridge writes (kanban.proto, ChecklistItem).
const (
	sourceQueue       = "queue"
	sourceQueueReview = kanban.SourceQueueReview

	labelQueued        = "task_queued"
	labelInProgress    = "task_in_progress"
	labelCompleted     = "task_completed"
	labelFailed        = "task_failed"
	labelPendingReview = "pending_review"
	labelPendingRetry  = "pending_retry"
)

// bridge mirrors queue events onto the kanban board (docs/decisions.md
// "Queue"), inside the caller's transaction.
// The create path's inserts as plain SQL, the rows ent would write: on
// SQLite's single writer the builder's CPU was the throughput limit
// (bench/entcost_test.go, bench/RESULTS.md). "$n" binds by position on SQLite
// too; TestCreateRowsMatchEnt compares every column with ent's own insert.
const (
	insertCard = `INSERT INTO cards (id, created_at, updated_at, title, description, status, priority, assignee, "order", labels, is_archived, user_id, project_id, created_by, created_by_ref, text_by, text_by_ref)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $14, $15)`
	insertChecklistRow = `INSERT INTO checklist_items (id, created_at, updated_at, text, completed, "order", source_type, source_id, source_label, assignee_type, user_id, card_id, created_by, created_by_ref, text_by, text_by_ref)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $13, $14)`
)

// emptyLabels is how ent stores a card's default labels (JSON []).
var emptyLabels = []byte("[]")

type bridge struct {
	tx     *db.Tx
	userID string
	actor  string
	now    time.Time // the caller's clock reading: rows and activity are stamped with it
}

// linkCard finds the item's card in the documented order: (1) its cardId,
// (2) cardId in its metadata, (3) the most recently updated card of its
// project, (4) a new card in the active column.
func (b bridge) linkCard(ctx context.Context, item *ent.QueueItem, meta map[string]any) (id string, isNew bool, err error) {
	mine := func(id string) (bool, error) {
		return b.tx.Card.Query().Where(card.ID(id), card.UserID(b.userID)).Exist(ctx)
	}
	if item.CardID != nil {
		return *item.CardID, false, nil // validated as the caller's card on create
	}
	if id, _ := meta["cardId"].(string); id != "" {
		ok, err := mine(id)
		if err != nil {
			return "", false, err
		}
		if ok {
			return id, false, nil
		}
	}
	if item.ProjectID != nil {
		c, err := b.tx.Card.Query().Where(card.UserID(b.userID), card.ProjectID(*item.ProjectID)).
			Order(ent.Desc(card.FieldUpdatedAt), ent.Desc(card.FieldID)).Select(card.FieldID).First(ctx)
		if err == nil {
			return c.ID, false, nil
		} else if !ent.IsNotFound(err) {
			return "", false, err
		}
	}
	id, err = b.newCard(ctx, item)
	return id, true, err
}

func (b bridge) newCard(ctx context.Context, item *ent.QueueItem) (string, error) {
	id, now := ids.New(), b.now
	order, err := kanban.NewCardOrder(ctx, b.tx, b.userID, string(card.StatusActive), id)
	if err != nil {
		return "", err
	}
	// The card carries the item's words, so their writer too.
	w := textWriter(item)
	if _, err := b.tx.ExecContext(ctx, insertCard, id, now, now, item.Title, item.Description,
		string(card.StatusActive), string(item.Priority), string(card.AssigneeHuman), order, emptyLabels, false,
		b.userID, item.ProjectID, w.Kind, w.RefPtr()); err != nil {
		return "", err
	}
	return id, activity.Write(ctx, b.tx, activity.Entry{
		UserID: b.userID, Action: "card_created", Actor: b.actor, CardID: id, CardIsNew: true, At: b.now,
		Summary: fmt.Sprintf("Created card %q for queued task", item.Title),
	})
}

// arrive links a new item (not yet stored: its id, title, description,
// priority, project and cardId are set) to a card and adds its checklist row.
// It answers the card and whether it was made for this item.
func (b bridge) arrive(ctx context.Context, item *ent.QueueItem, meta map[string]any) (string, bool, error) {
	cardID, isNew, err := b.linkCard(ctx, item, meta)
	if err != nil {
		return "", false, fmt.Errorf("bridge: link card: %w", err)
	}
	if isNew { // a new card's checklist is empty, and nobody else sees it yet
		return cardID, true, b.insertRow(ctx, cardID, 0, item, item.Title, sourceQueue, labelQueued)
	}
	return cardID, false, b.addRow(ctx, cardID, item, item.Title, sourceQueue, labelQueued)
}

// addRow appends a row for item at the end of the card's checklist, holding
// the card so that concurrent appends take distinct orders.
func (b bridge) addRow(ctx context.Context, cardID string, item *ent.QueueItem, text, source, label string) error {
	if err := kanban.LockChecklist(ctx, b.tx, b.userID, cardID); err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	n, err := kanban.EndOfChecklist(ctx, b.tx, cardID)
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	return b.insertRow(ctx, cardID, n, item, text, source, label)
}

// insertRow writes a checklist row for item; its text is made of the item's
// title, so it has the item's writer.
func (b bridge) insertRow(ctx context.Context, cardID string, order int, item *ent.QueueItem, text, source, label string) error {
	now, w := b.now, textWriter(item)
	_, err := b.tx.ExecContext(ctx, insertChecklistRow, ids.New(), now, now, text, false, int32(order),
		source, item.ID, label, "divi", b.userID, cardID, w.Kind, w.RefPtr())
	return err
}

// textWriter is who wrote item's title and description.
func textWriter(item *ent.QueueItem) provenance.Mark {
	return provenance.Read(string(item.TextBy), item.TextByRef)
}

// move updates the board for a queue event.
func (b bridge) move(ctx context.Context, item *ent.QueueItem, ev Event) error {
	if item.CardID == nil || ev == EventNone {
		return nil
	}
	cardID := *item.CardID
	rows := b.tx.ChecklistItem.Update().Where(
		checklistitem.CardID(cardID), checklistitem.SourceType(sourceQueue),
		checklistitem.SourceID(item.ID), checklistitem.SourceLabelNEQ(labelPendingRetry)).SetUpdatedAt(b.now)
	var err error
	switch ev {
	case EventDispatched:
		if err = rows.SetSourceLabel(labelInProgress).SetCompleted(false).Exec(ctx); err != nil {
			break
		}
		// A retry being dispatched is a retry done.
		err = b.tx.ChecklistItem.Update().Where(checklistitem.CardID(cardID), checklistitem.SourceID(item.ID),
			checklistitem.SourceLabel(labelPendingRetry), checklistitem.Completed(false)).
			SetCompleted(true).SetUpdatedAt(b.now).Exec(ctx)
	case EventCompleted:
		if err = rows.SetSourceLabel(labelCompleted).SetCompleted(true).Exec(ctx); err != nil {
			break
		}
		err = b.addRow(ctx, cardID, item, "Review: "+item.Title, sourceQueueReview, labelPendingReview)
		if err == nil {
			err = activity.Write(ctx, b.tx, activity.Entry{
				UserID: b.userID, Action: "task_completed", Actor: b.actor, CardID: cardID, At: b.now,
				Summary: fmt.Sprintf("Completed %q; waiting for review", item.Title),
			})
		}
	case EventFailed:
		if err = rows.SetSourceLabel(labelFailed).SetCompleted(false).Exec(ctx); err != nil {
			break
		}
		open, cerr := b.tx.ChecklistItem.Query().Where(checklistitem.CardID(cardID), checklistitem.SourceID(item.ID),
			checklistitem.SourceLabel(labelPendingRetry), checklistitem.Completed(false)).Exist(ctx)
		if cerr != nil {
			return fmt.Errorf("bridge: %w", cerr)
		}
		if !open {
			err = b.addRow(ctx, cardID, item, "Retry: "+item.Title, sourceQueue, labelPendingRetry)
		}
	}
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	return nil
}

// remove deletes the item's queue rows (reject and delete).
func (b bridge) remove(ctx context.Context, item *ent.QueueItem) error {
	if item.CardID == nil {
		return nil
	}
	_, err := b.tx.ChecklistItem.Delete().Where(checklistitem.CardID(*item.CardID),
		checklistitem.SourceType(sourceQueue), checklistitem.SourceID(item.ID)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bridge: remove rows: %w", err)
	}
	return nil
}
