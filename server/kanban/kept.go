package kanban

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// Cards another area keeps on the operator's board (onboarding's "Getting
// started"), written in that area's unit of work: each checklist item
// carries the area's source type and an id of its own, by which the area
// checks it off.

// Kept is a card to open: its checklist items are Source rows, each with
// its key as the source id.
type Kept struct {
	Title       string
	Description string
	ProjectID   *string
	DueDate     *time.Time
	Source      string
	Items       []KeptItem
}

// KeptItem is one checklist item of a kept card.
type KeptItem struct {
	Key, Text string
	Completed bool
}

// Open makes a kept card of userID's at the end of its column (completed
// when every item is), with its checklist and card_created.
func Open(ctx context.Context, tx *db.Tx, userID, actor string, w provenance.Mark, k Kept, now time.Time) (*ent.Card, error) {
	if err := LockColumns(ctx, tx, userID); err != nil {
		return nil, err
	}
	list := make([]Item, len(k.Items))
	for i, it := range k.Items {
		list[i] = Item{Completed: it.Completed}
	}
	status := card.DefaultStatus
	if IsComplete(list) {
		status = card.StatusCompleted
	}
	order, err := EndOfColumn(ctx, tx, userID, string(status))
	if err != nil {
		return nil, err
	}
	create := tx.Card.Create().SetUserID(userID).SetTitle(k.Title).SetStatus(status).SetOrder(order).
		SetNillableProjectID(k.ProjectID).SetNillableDueDate(k.DueDate).
		SetCreatedAt(now).SetUpdatedAt(now).SetLastActivityAt(now)
	if k.Description != "" {
		create.SetDescription(k.Description)
	}
	provenance.SetCreated[card.CreatedBy, card.TextBy](create.Mutation(), w)
	c, err := create.Save(ctx)
	if err != nil {
		return nil, fmt.Errorf("kanban: open card: %w", err)
	}
	for i, it := range k.Items {
		item := tx.ChecklistItem.Create().SetUserID(userID).SetCardID(c.ID).SetText(it.Text).SetCompleted(it.Completed).
			SetOrder(int32(i)).SetSourceType(k.Source).SetSourceID(it.Key).SetCreatedAt(now).SetUpdatedAt(now)
		provenance.SetCreated[checklistitem.CreatedBy, checklistitem.TextBy](item.Mutation(), w)
		if err := item.Exec(ctx); err != nil {
			return nil, fmt.Errorf("kanban: open card's checklist: %w", err)
		}
	}
	return c, activity.Write(ctx, tx, activity.Entry{
		UserID: userID, Action: "card_created", Actor: actor, CardID: c.ID, CardIsNew: true, At: now,
		Summary: fmt.Sprintf("Created %q in %s", c.Title, c.Status),
	})
}

// Exists says whether userID still has the card id (the operator may have
// deleted a kept card on the board).
func Exists(ctx context.Context, c *ent.Client, userID, id string) (bool, error) {
	return c.Card.Query().Where(card.ID(id), card.UserID(userID)).Exist(ctx)
}

// SetDue changes the due date of one of userID's cards, with card_updated.
func SetDue(ctx context.Context, tx *db.Tx, userID, cardID, actor string, due time.Time, now time.Time) error {
	c, err := getCard(ctx, tx.Card, userID, cardID)
	if err != nil {
		return err
	}
	if c.DueDate != nil && c.DueDate.Equal(due) {
		return nil
	}
	if err := tx.Card.UpdateOne(c).SetDueDate(due).SetUpdatedAt(now).SetLastActivityAt(now).Exec(ctx); err != nil {
		return fmt.Errorf("kanban: set due date: %w", err)
	}
	return activity.Write(ctx, tx, activity.Entry{
		UserID: userID, Action: "card_updated", Actor: actor, CardID: c.ID, At: now,
		Summary: fmt.Sprintf("Set the due date of %q to %s", c.Title, due.UTC().Format(time.DateOnly)),
	})
}

// CheckOff completes the open checklist item of userID's card whose source
// is (source, key), with checklist_completed; closing the card's last open
// item auto-completes the card. An item already completed, or none, changes
// nothing.
func CheckOff(ctx context.Context, tx *db.Tx, userID, cardID, source, key, actor string, now time.Time) error {
	if err := LockColumns(ctx, tx, userID); err != nil { // an auto-complete joins a column
		return err
	}
	if err := LockChecklist(ctx, tx, userID, cardID); err != nil {
		return err
	}
	c, err := getCard(ctx, tx.Card, userID, cardID)
	if err != nil {
		return err
	}
	idx := -1
	for i, it := range c.Edges.ChecklistItems {
		if deref(it.SourceType) == source && deref(it.SourceID) == key && !it.Completed {
			idx = i
			break
		}
	}
	if idx < 0 {
		return nil
	}
	row, err := tx.ChecklistItem.UpdateOne(c.Edges.ChecklistItems[idx]).SetCompleted(true).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return fmt.Errorf("kanban: check off: %w", err)
	}
	if err := activity.Write(ctx, tx, activity.Entry{
		UserID: userID, Action: "checklist_completed", Actor: actor, CardID: c.ID, At: now,
		Summary: fmt.Sprintf("Checked %q on %q", row.Text, c.Title), Metadata: map[string]any{"checklistItemId": row.ID},
	}); err != nil {
		return err
	}
	before := items(c.Edges.ChecklistItems)
	after := append([]Item(nil), before...)
	after[idx].Completed = true
	if AutoCompletes(string(c.Status), before, after) {
		return autoComplete(ctx, tx, c, actor, now)
	}
	return tx.Card.UpdateOne(c).SetUpdatedAt(now).SetLastActivityAt(now).Exec(ctx)
}

// Detail answers one of userID's cards as GetCard does.
func Detail(ctx context.Context, c *ent.Client, userID, id string) (*switchboardv1.KanbanCardDetail, error) {
	row, err := getCard(ctx, c.Card, userID, id)
	if err != nil {
		return nil, err
	}
	return toCardDetail(row)
}
