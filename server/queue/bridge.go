package queue

import (
	"context"
	"fmt"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/kanban"
)

// Checklist sources and labels the bridge writes (document 1, "ChecklistItem").
const (
	sourceQueue       = "queue"
	sourceQueueReview = "queue_review"

	labelQueued        = "task_queued"
	labelInProgress    = "task_in_progress"
	labelCompleted     = "task_completed"
	labelFailed        = "task_failed"
	labelPendingReview = "pending_review"
	labelPendingRetry  = "pending_retry"
)

// bridge mirrors queue events onto the kanban board (document 1, "Queue-to-board
// bridge"), inside the caller's transaction.
type bridge struct {
	tx     *ent.Tx
	userID string
	actor  string
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
	order, err := kanban.EndOfColumn(ctx, b.tx, b.userID, string(card.StatusActive))
	if err != nil {
		return "", err
	}
	create := b.tx.Card.Create().SetUserID(b.userID).SetTitle(item.Title).SetNillableDescription(item.Description).
		SetStatus(card.StatusActive).SetPriority(card.Priority(item.Priority)).SetOrder(order).
		SetNillableProjectID(item.ProjectID)
	c, err := create.Save(ctx)
	if err != nil {
		return "", err
	}
	return c.ID, activity.Write(ctx, b.tx, activity.Entry{
		UserID: b.userID, Action: "card_created", Actor: b.actor, CardID: c.ID, CardIsNew: true,
		Summary: fmt.Sprintf("Created card %q for queued task", c.Title),
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
	order := 0 // a new card's checklist is empty
	if !isNew {
		n, err := b.tx.ChecklistItem.Query().Where(checklistitem.CardID(cardID)).Count(ctx)
		if err != nil {
			return "", false, fmt.Errorf("bridge: count checklist: %w", err)
		}
		order = n
	}
	if err := b.insertRow(ctx, cardID, order, item.Title, sourceQueue, item.ID, labelQueued); err != nil {
		return "", false, err
	}
	return cardID, isNew, nil
}

// addRow appends a row at the end of the card's checklist.
func (b bridge) addRow(ctx context.Context, cardID, text, source, sourceID, label string) error {
	n, err := b.tx.ChecklistItem.Query().Where(checklistitem.CardID(cardID)).Count(ctx)
	if err != nil {
		return fmt.Errorf("bridge: count checklist: %w", err)
	}
	return b.insertRow(ctx, cardID, n, text, source, sourceID, label)
}

func (b bridge) insertRow(ctx context.Context, cardID string, order int, text, source, sourceID, label string) error {
	return b.tx.ChecklistItem.Create().SetUserID(b.userID).SetCardID(cardID).SetText(text).
		SetOrder(int32(order)).SetSourceType(source).SetSourceID(sourceID).SetSourceLabel(label).
		SetAssigneeType("divi").Exec(ctx)
}

// move updates the board for a queue event.
func (b bridge) move(ctx context.Context, item *ent.QueueItem, ev Event) error {
	if item.CardID == nil || ev == EventNone {
		return nil
	}
	cardID := *item.CardID
	rows := b.tx.ChecklistItem.Update().Where(
		checklistitem.CardID(cardID), checklistitem.SourceType(sourceQueue),
		checklistitem.SourceID(item.ID), checklistitem.SourceLabelNEQ(labelPendingRetry))
	var err error
	switch ev {
	case EventDispatched:
		if err = rows.SetSourceLabel(labelInProgress).SetCompleted(false).Exec(ctx); err != nil {
			break
		}
		// A retry being dispatched is a retry done.
		err = b.tx.ChecklistItem.Update().Where(checklistitem.CardID(cardID), checklistitem.SourceID(item.ID),
			checklistitem.SourceLabel(labelPendingRetry), checklistitem.Completed(false)).
			SetCompleted(true).Exec(ctx)
	case EventCompleted:
		if err = rows.SetSourceLabel(labelCompleted).SetCompleted(true).Exec(ctx); err != nil {
			break
		}
		err = b.addRow(ctx, cardID, "Review: "+item.Title, sourceQueueReview, item.ID, labelPendingReview)
		if err == nil {
			err = activity.Write(ctx, b.tx, activity.Entry{
				UserID: b.userID, Action: "task_completed", Actor: b.actor, CardID: cardID,
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
			err = b.addRow(ctx, cardID, "Retry: "+item.Title, sourceQueue, item.ID, labelPendingRetry)
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
