package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/ent/setting"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// Delivery is a finished store execution handed to its requester's queue
// (document 2, Isolation: "Marketplace deliveries go as a shared document to
// the requester plus a queue callback").
type Delivery struct {
	UserID      string
	ExecutionID string
	// The store agent's name, as the actor of the board and comms entries.
	AgentName string
	Title     string
	// The task text.
	Description string
	// Completed: the output; otherwise why it failed.
	Result    string
	Completed bool
	// Metadata is the item's JSON metadata (the shared document, the review
	// widget).
	Metadata map[string]any
	At       time.Time
}

// Deliver writes the requester's queue item for a finished store execution,
// in tx: task origin marketplace, done_today when it completed (blocked
// otherwise) with the result, linked to a card like any item, its board rows,
// a comms message and the card activity capability_executed; pushed to the
// account's webhook targets with the transaction. Chat streams are not told
// (the message is in the list): the caller's transaction commits elsewhere.
func Deliver(ctx context.Context, tx *ent.Tx, d Delivery) (*ent.QueueItem, error) {
	status := queueitem.StatusDoneToday
	if !d.Completed {
		status = queueitem.StatusBlocked
	}
	title := d.Title
	if len([]rune(title)) > maxTitle {
		title = string([]rune(title)[:maxTitle])
	}
	meta, err := encodeMeta(d.Metadata)
	if err != nil {
		return nil, err
	}
	b := bridge{tx, d.UserID, d.AgentName}
	draft := &ent.QueueItem{ID: ids.New(), Title: title, Description: &d.Description, Priority: queueitem.PriorityMedium}
	cardID, cardIsNew, err := b.arrive(ctx, draft, nil)
	if err != nil {
		return nil, err
	}
	at := d.At.UTC()
	it := &ent.QueueItem{ID: draft.ID, CreatedAt: at, UpdatedAt: at, UserID: d.UserID, Type: queueitem.TypeTask,
		Title: title, Description: &d.Description, Priority: queueitem.PriorityMedium, Status: status,
		Source: ptr("marketplace"), Metadata: meta, TaskOrigin: queueitem.TaskOriginMarketplace, CardID: &cardID}
	if err := insertItem(ctx, tx, it); err != nil {
		return nil, err
	}
	// The columns the create path leaves to later moves.
	it, err = tx.QueueItem.UpdateOneID(it.ID).SetExecutionID(d.ExecutionID).SetResult(d.Result).
		SetResultStatus(queueitem.ResultStatus(status)).SetReportedBy(d.AgentName).SetCompletedAt(at).SetUpdatedAt(at).Save(ctx)
	if err != nil {
		return nil, err
	}
	ev := EventCompleted
	if !d.Completed {
		ev = EventFailed
	}
	if err := b.move(ctx, it, ev); err != nil {
		return nil, err
	}
	row, err := tx.Setting.Query().Where(setting.UserID(d.UserID)).Only(ctx)
	if err != nil {
		return nil, err
	}
	assistant := row.AssistantName
	if assistant == "" {
		assistant = defaultAssistant
	}
	verb := "Delivered"
	if !d.Completed {
		verb = "Failed"
	}
	if _, err := comms.Post(ctx, tx, d.UserID, fmt.Sprintf("%s: %s", verb, title), assistant, map[string]any{
		"type": comms.TypeTaskCompleted, "queueItemId": it.ID, "title": title, "executionId": d.ExecutionID,
		"status": string(status),
	}); err != nil {
		return nil, err
	}
	for _, e := range []activity.Entry{
		{UserID: d.UserID, Action: "queue_added", Actor: d.AgentName, CardID: cardID, CardIsNew: cardIsNew,
			Summary:  fmt.Sprintf("Queued %q (%s)", title, status),
			Metadata: map[string]any{"queueItemId": it.ID, "status": string(status)}},
		{UserID: d.UserID, Action: "capability_executed", Actor: d.AgentName, CardID: cardID, CardIsNew: cardIsNew,
			Summary:  fmt.Sprintf("%s ran %q (%s)", d.AgentName, title, map[bool]string{true: "completed", false: "failed"}[d.Completed]),
			Metadata: map[string]any{"queueItemId": it.ID, "executionId": d.ExecutionID, "completed": d.Completed}},
	} {
		if err := activity.Write(ctx, tx, e); err != nil {
			return nil, err
		}
	}
	return it, webhooks.EnqueueFor(ctx, tx, row, webhooks.Event{Name: webhooks.EventQueueUpdated, At: at,
		Data: webhooks.QueueUpdated{QueueItemID: it.ID, Action: "queue_added", Status: string(status)}})
}

func ptr[T any](v T) *T { return &v }
