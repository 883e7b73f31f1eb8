package queue

import (
	"context"
	"fmt"

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

// accountSettings is the account's settings row as one change reads it: at
// most once, however many of its steps need it (the webhook targets, the
// comms author, the moves of released dependants). Make one per unit of work,
// inside it, so that a unit run again reads afresh.
type accountSettings struct {
	userID    string
	row       *ent.Setting
	assistant string
}

func settingsFor(userID string) *accountSettings { return &accountSettings{userID: userID} }

// get answers the row and the assistant's name, reading them on first use.
func (a *accountSettings) get(ctx context.Context, tx *db.Tx) (*ent.Setting, string, error) {
	if a.row == nil {
		row, assistant, err := settingsRow(ctx, tx, a.userID)
		if err != nil {
			return nil, "", err
		}
		a.row, a.assistant = row, assistant
	}
	return a.row, a.assistant, nil
}

// changed writes a queue change's webhook deliveries and its queue_updated
// event in tx; Action is the activity action the change wrote (queue_added,
// queue_status_changed, …), it the item the change made.
func (s *Service) changed(ctx context.Context, tx *db.Tx, set *accountSettings, it *ent.QueueItem, c webhooks.QueueUpdated) error {
	announce(tx, it, c)
	row, _, err := set.get(ctx, tx)
	if err != nil {
		return apperr.Wrap(fmt.Errorf("webhooks: read settings: %w", err))
	}
	ev := webhooks.Event{Name: webhooks.EventQueueUpdated, At: s.Now(), Data: c}
	return apperr.Wrap(webhooks.EnqueueFor(ctx, tx, row, ev))
}

// announce emits a queue change's queue_updated event, which a live view of
// the queue (the dashboard) follows.
func announce(tx *db.Tx, it *ent.QueueItem, c webhooks.QueueUpdated) {
	change := "updated"
	switch c.Action {
	case "queue_added":
		change = "created"
	case "queue_deleted":
		change = "deleted"
	}
	tx.Emit(db.Event{UserID: it.UserID, Body: events.QueueUpdated(change, it, c.Status)})
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
