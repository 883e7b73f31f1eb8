package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/ent/setting"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/provenance"
	"github.com/switchboard-hq/switchboard/server/store/review"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// Delivery is a store execution in its requester's queue (a
// marketplace delivery goes as a shared document to the requester plus a
// queue callback).
type Delivery struct {
	UserID      string
	ExecutionID string
	// The store agent's name, as the actor of the board and comms entries.
	AgentName string
	Title     string
	// The task text.
	Description string
	// Deliver: the output when Completed, otherwise why it failed.
	Result    string
	Completed bool
	// Metadata is the item's JSON metadata (Track: the execution; Deliver:
	// the shared document and the review widget, merged over it).
	Metadata map[string]any
	At       time.Time
}

// Track opens the requester's item for a store execution just made, in tx:
// task origin marketplace, in_progress (the store has taken the task, running
// or queued behind the agent's lock), linked to a card with its board rows,
// an agent_execution_started comms message and activity; pushed to the
// account's webhook targets with the transaction.
func Track(ctx context.Context, tx *db.Tx, d Delivery) (*ent.QueueItem, error) {
	title := cutTitle(d.Title)
	meta, err := encodeMeta(d.Metadata)
	if err != nil {
		return nil, err
	}
	b := bridge{tx, d.UserID, d.AgentName, d.At.UTC()}
	draft := &ent.QueueItem{ID: ids.New(), Title: title, Description: &d.Description, Priority: queueitem.PriorityMedium}
	// The store's item: an execution's task as the store took it (it may
	// have come through a hub or a key), later its output.
	writer := provenance.Mark{Kind: provenance.Store, Ref: d.ExecutionID}
	setWriter(draft, writer)
	cardID, cardIsNew, err := b.arrive(ctx, draft, nil)
	if err != nil {
		return nil, err
	}
	at := d.At.UTC()
	it := &ent.QueueItem{ID: draft.ID, CreatedAt: at, UpdatedAt: at, UserID: d.UserID, Type: queueitem.TypeTask,
		Title: title, Description: &d.Description, Priority: queueitem.PriorityMedium, Status: queueitem.StatusInProgress,
		Source: ptr("marketplace"), Metadata: meta, TaskOrigin: queueitem.TaskOriginMarketplace, CardID: &cardID}
	setWriter(it, writer)
	if err := insertItem(ctx, tx, it); err != nil {
		return nil, err
	}
	if it, err = tx.QueueItem.UpdateOneID(it.ID).SetExecutionID(d.ExecutionID).Save(ctx); err != nil {
		return nil, err
	}
	if err := b.move(ctx, it, EventDispatched); err != nil {
		return nil, err
	}
	row, assistant, err := settingsRow(ctx, tx, d.UserID)
	if err != nil {
		return nil, err
	}
	m, err := comms.Post(ctx, tx, at, d.UserID, fmt.Sprintf("Started: %s", title), assistant, map[string]any{
		"type": comms.TypeExecutionStarted, "queueItemId": it.ID, "title": title, "executionId": d.ExecutionID,
	})
	if err != nil {
		return nil, err
	}
	posted(tx, m)
	if err := activity.Write(ctx, tx, activity.Entry{UserID: d.UserID, Action: "queue_added", Actor: d.AgentName, At: at,
		CardID: cardID, CardIsNew: cardIsNew, Summary: fmt.Sprintf("Queued %q (%s)", title, it.Status),
		Metadata: map[string]any{"queueItemId": it.ID, "status": string(it.Status), "executionId": d.ExecutionID}}); err != nil {
		return nil, err
	}
	c := webhooks.QueueUpdated{QueueItemID: it.ID, Action: "queue_added", Status: string(it.Status)}
	announce(tx, it, c)
	return it, webhooks.EnqueueFor(ctx, tx, row, webhooks.Event{Name: webhooks.EventQueueUpdated, At: at, Data: c})
}

// Deliver completes the requester's item of a finished store execution, in
// tx (the queue callback): done_today with the result when it completed,
// blocked with the reason otherwise; its board rows, a task_completed comms
// message, and the card activity capability_executed; pushed to the
// account's webhook targets with the transaction. An execution without an
// item (made before tracking) gets one. Its comms messages reach the chat
// streams once tx commits.
func Deliver(ctx context.Context, tx *db.Tx, d Delivery) (*ent.QueueItem, error) {
	it, err := tx.QueueItem.Query().Where(queueitem.UserID(d.UserID), queueitem.ExecutionID(d.ExecutionID)).
		Order(ent.Desc(queueitem.FieldCreatedAt), ent.Desc(queueitem.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		if it, err = Track(ctx, tx, d); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	status, ev := queueitem.StatusDoneToday, EventCompleted
	if !d.Completed {
		status, ev = queueitem.StatusBlocked, EventFailed
	}
	encoded, err := withMeta(it.Metadata, d.Metadata)
	if err != nil {
		return nil, err
	}
	at := d.At.UTC()
	from := string(it.Status)
	if it, err = tx.QueueItem.UpdateOneID(it.ID).SetStatus(status).SetResult(d.Result).
		SetResultStatus(queueitem.ResultStatus(status)).SetReportedBy(d.AgentName).SetCompletedAt(at).
		SetMetadata(encoded).SetUpdatedAt(at).Save(ctx); err != nil {
		return nil, err
	}
	b := bridge{tx, d.UserID, d.AgentName, at}
	if err := b.move(ctx, it, ev); err != nil {
		return nil, err
	}
	row, assistant, err := settingsRow(ctx, tx, d.UserID)
	if err != nil {
		return nil, err
	}
	verb, outcome := "Delivered", string(vocab.ExecutionStatusCompleted)
	if !d.Completed {
		verb, outcome = "Failed", string(vocab.ExecutionStatusFailed)
	}
	m, err := comms.Post(ctx, tx, at, d.UserID, fmt.Sprintf("%s: %s", verb, it.Title), assistant, map[string]any{
		"type": comms.TypeTaskCompleted, "queueItemId": it.ID, "title": it.Title, "executionId": d.ExecutionID,
		"status": string(status),
	})
	if err != nil {
		return nil, err
	}
	posted(tx, m)
	cardID := deref(it.CardID)
	for _, e := range []activity.Entry{
		{UserID: d.UserID, Action: "queue_status_changed", Actor: d.AgentName, CardID: cardID, At: at,
			Summary:  fmt.Sprintf("Moved %q from %s to %s", it.Title, from, status),
			Metadata: map[string]any{"queueItemId": it.ID, "from": from, "to": string(status)}},
		{UserID: d.UserID, Action: "capability_executed", Actor: d.AgentName, CardID: cardID, At: at,
			Summary:  fmt.Sprintf("%s ran %q (%s)", d.AgentName, it.Title, outcome),
			Metadata: map[string]any{"queueItemId": it.ID, "executionId": d.ExecutionID, "completed": d.Completed}},
	} {
		if err := activity.Write(ctx, tx, e); err != nil {
			return nil, err
		}
	}
	c := webhooks.QueueUpdated{QueueItemID: it.ID, Action: "queue_status_changed", Status: string(status)}
	announce(tx, it, c)
	return it, webhooks.EnqueueFor(ctx, tx, row, webhooks.Event{Name: webhooks.EventQueueUpdated, At: at, Data: c})
}

func settingsRow(ctx context.Context, tx *db.Tx, userID string) (*ent.Setting, string, error) {
	row, err := tx.Setting.Query().Where(setting.UserID(userID)).Only(ctx)
	if err != nil {
		return nil, "", err
	}
	assistant := row.AssistantName
	if assistant == "" {
		assistant = defaultAssistant
	}
	return row, assistant, nil
}

func cutTitle(t string) string {
	if r := []rune(t); len(r) > maxTitle {
		return string(r[:maxTitle])
	}
	return t
}

func ptr[T any](v T) *T { return &v }

// Meta is a store execution's item's metadata object (empty when it has none).
func Meta(it *ent.QueueItem) map[string]any { return parseMeta(it.Metadata) }

// Annotate sets keys of a store execution's item's metadata in tx, keeping
// the others: a later fact about the execution, such as its requester's
// review.
func Annotate(ctx context.Context, tx *db.Tx, it *ent.QueueItem, set map[string]any, at time.Time) error {
	encoded, err := withMeta(it.Metadata, set)
	if err != nil {
		return err
	}
	return tx.QueueItem.UpdateOneID(it.ID).SetMetadata(encoded).SetUpdatedAt(at.UTC()).Exec(ctx)
}

// withMeta is raw metadata with set's keys put over it.
func withMeta(raw string, set map[string]any) (string, error) {
	meta := parseMeta(raw)
	for k, v := range set {
		meta[k] = v
	}
	return encodeMeta(meta)
}

// Link makes the user's item the one a store execution reports on, in tx:
// its executionId, and metadata merged over the item's. Another account's
// item, or one already running an execution, is not found.
func Link(ctx context.Context, tx *db.Tx, userID, itemID, executionID string, meta map[string]any, at time.Time) error {
	it, err := tx.QueueItem.Query().Where(queueitem.ID(itemID), queueitem.UserID(userID), queueitem.ExecutionIDIsNil()).Only(ctx)
	if err != nil {
		return err
	}
	encoded, err := withMeta(it.Metadata, meta)
	if err != nil {
		return err
	}
	return tx.QueueItem.UpdateOneID(it.ID).SetExecutionID(executionID).SetMetadata(encoded).SetUpdatedAt(at.UTC()).Exec(ctx)
}

// ExecutionTracked opens or links the requester's item of a store execution
// just made (review.ExecutionTracked), in the store's transaction.
func ExecutionTracked(ctx context.Context, tx *db.Tx, ev review.ExecutionTracked) error {
	if ev.ItemID != "" {
		if err := Link(ctx, tx, ev.UserID, ev.ItemID, ev.ExecutionID, ev.Metadata, ev.At); err != nil {
			return fmt.Errorf("queue: linking item %s: %w", ev.ItemID, err)
		}
		return nil
	}
	_, err := Track(ctx, tx, Delivery{UserID: ev.UserID, ExecutionID: ev.ExecutionID, AgentName: ev.AgentName,
		Title: ev.Title, Description: ev.Description, Metadata: ev.Metadata, At: ev.At})
	return err
}

// ResultDelivered completes the requester's item of a finished store
// execution (review.ResultDelivered), in the store's transaction.
func ResultDelivered(ctx context.Context, tx *db.Tx, ev review.ResultDelivered) error {
	_, err := Deliver(ctx, tx, Delivery{UserID: ev.UserID, ExecutionID: ev.ExecutionID, AgentName: ev.AgentName,
		Title: ev.Title, Description: ev.Description, Result: ev.Result, Completed: ev.Completed, Metadata: ev.Metadata, At: ev.At})
	return err
}
