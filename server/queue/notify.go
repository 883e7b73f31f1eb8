package queue

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// What the queue tells others about a change travels with its unit of work
// (db.Tx): queue changes become webhook deliveries and chat events become
// stored events, both written in the change's transaction, so they commit
// (or roll back) with it; the events reach the streams after the commit.

// changed writes a queue change's webhook deliveries in tx; Action is the
// activity action the change wrote (queue_added, queue_status_changed, …).
// row is the account's settings when the caller has read them already (nil:
// read here).
func (s *Service) changed(ctx context.Context, tx *db.Tx, userID string, row *ent.Setting, c webhooks.QueueUpdated) error {
	ev := webhooks.Event{Name: webhooks.EventQueueUpdated, At: s.Now(), Data: c}
	if row != nil {
		return apperr.Wrap(webhooks.EnqueueFor(ctx, tx, row, ev))
	}
	return apperr.Wrap(webhooks.Enqueue(ctx, tx, userID, ev))
}

// posted emits a comms message's new_message event.
func posted(tx *db.Tx, m *ent.ChatMessage) {
	tx.Emit(db.Event{UserID: m.UserID, Body: events.NewMessage(m)})
}

// becameReady notes an item that is now ready: an urgent one wakes the
// account's agents (docs/decisions.md, "Shared chat and events").
func becameReady(tx *db.Tx, it *ent.QueueItem) {
	if string(it.Priority) != "urgent" {
		return
	}
	tx.Emit(db.Event{UserID: it.UserID, Body: events.Wake(it.ID, it.Title, string(it.Priority))})
}

// inTx runs fn in one unit of work (db.Tx).
func (s *Service) inTx(ctx context.Context, fn func(ctx context.Context, tx *db.Tx) error) error {
	return s.DB.InTx(ctx, func(tx *db.Tx) error { return fn(ctx, tx) })
}
