package queue

import (
	"context"
	"log/slog"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/setting"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// Publisher pushes chat events to the account's open streams once the change
// behind them has committed (server/events.Bus).
type Publisher interface {
	Publish(ctx context.Context, userID string, ev *switchboardv1.ChatEvent) error
}

// outbox collects, during one transaction, what the queue tells others about
// it: chat events, published only after the commit (a rolled-back move says
// nothing), and queue changes, which become webhook deliveries inside the
// transaction itself, so the change and its deliveries commit together.
type outbox struct {
	events  []*switchboardv1.ChatEvent
	changes []webhooks.QueueUpdated
	// settings is the account's row when the transaction read it already,
	// so the webhooks need no second read.
	settings *ent.Setting
}

type outboxKey struct{}

func outboxOf(ctx context.Context) *outbox {
	ob, _ := ctx.Value(outboxKey{}).(*outbox)
	return ob
}

// changed notes a queue change for the webhooks; Action is the activity
// action the change wrote (queue_added, queue_status_changed, …).
func changed(ctx context.Context, c webhooks.QueueUpdated) {
	if ob := outboxOf(ctx); ob != nil {
		ob.changes = append(ob.changes, c)
	}
}

// posted notes a comms message for the stream's new_message event.
func posted(ctx context.Context, m *ent.ChatMessage) {
	if ob := outboxOf(ctx); ob != nil {
		ob.events = append(ob.events, events.NewMessage(m))
	}
}

// becameReady notes an item that is now ready: an urgent one wakes the
// account's agents (docs/decisions.md "Shared chat and events").
func becameReady(ctx context.Context, it *ent.QueueItem) {
	ob := outboxOf(ctx)
	if ob == nil || string(it.Priority) != "urgent" {
		return
	}
	ob.events = append(ob.events, events.Wake(it.ID, it.Title, string(it.Priority)))
}

// inTx runs fn in one transaction with an outbox: queue changes are handed to
// the webhooks inside it, chat events are published after it commits.
func (s *Service) inTx(ctx context.Context, userID string, fn func(ctx context.Context, tx *ent.Tx) error) error {
	ob := &outbox{}
	ctx = context.WithValue(ctx, outboxKey{}, ob)
	err := s.DB.InTx(ctx, func(tx *ent.Tx) error {
		ob.events, ob.changes, ob.settings = ob.events[:0], ob.changes[:0], nil
		if err := fn(ctx, tx); err != nil {
			return err
		}
		if len(ob.changes) == 0 {
			return nil
		}
		row := ob.settings
		if row == nil {
			var err error
			if row, err = tx.Setting.Query().Where(setting.UserID(userID)).Only(ctx); err != nil {
				return apperr.Wrap(err)
			}
		}
		at := s.Now()
		for _, c := range ob.changes {
			ev := webhooks.Event{Name: webhooks.EventQueueUpdated, At: at, Data: c}
			if err := webhooks.EnqueueFor(ctx, tx, row, ev); err != nil {
				return apperr.Wrap(err)
			}
		}
		return nil
	})
	if err != nil || s.Events == nil {
		return err
	}
	// The change is committed: a failed publish is logged, not reported as a
	// failed request (subscribers still find the message in the list).
	for _, ev := range ob.events {
		if err := s.Events.Publish(context.WithoutCancel(ctx), userID, ev); err != nil {
			slog.ErrorContext(ctx, "publish chat event", "type", ev.GetType(), "err", err)
		}
	}
	return nil
}
