package queue

import (
	"context"
	"log/slog"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/comms"
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
	changes []Change
}

// Change is one queue change, the data of a queue.updated webhook.
type Change struct {
	QueueItemID string `json:"queueItemId"`
	// created, updated, status_changed, result_reported or deleted.
	Action string `json:"action"`
	Status string `json:"status"`
	From   string `json:"from,omitempty"`
}

type outboxKey struct{}

func outboxOf(ctx context.Context) *outbox {
	ob, _ := ctx.Value(outboxKey{}).(*outbox)
	return ob
}

// changed notes a queue change for the webhooks.
func changed(ctx context.Context, c Change) {
	if ob := outboxOf(ctx); ob != nil {
		ob.changes = append(ob.changes, c)
	}
}

// posted notes a comms message for the stream's new_message event.
func posted(ctx context.Context, m *ent.ChatMessage) {
	if ob := outboxOf(ctx); ob != nil {
		ob.events = append(ob.events, &switchboardv1.ChatEvent{Type: "new_message", Message: comms.ToProto(m)})
	}
}

// becameReady notes an item that is now ready: an urgent one wakes the
// account's agents (RULINGS "Shared chat and events").
func becameReady(ctx context.Context, it *ent.QueueItem) {
	ob := outboxOf(ctx)
	if ob == nil || string(it.Priority) != "urgent" {
		return
	}
	ob.events = append(ob.events, &switchboardv1.ChatEvent{
		Type: "wake", Reason: ptr("urgent_task"),
		Metadata: &switchboardv1.WakeMetadata{QueueItemId: it.ID, Title: it.Title, Priority: string(it.Priority)},
	})
}

func ptr[T any](v T) *T { return &v }

// inTx runs fn in one transaction with an outbox: queue changes are handed to
// the webhooks inside it, chat events are published after it commits.
func (s *Service) inTx(ctx context.Context, userID string, fn func(ctx context.Context, tx *ent.Tx) error) error {
	ob := &outbox{}
	ctx = context.WithValue(ctx, outboxKey{}, ob)
	err := s.DB.InTx(ctx, func(tx *ent.Tx) error {
		ob.events, ob.changes = ob.events[:0], ob.changes[:0]
		if err := fn(ctx, tx); err != nil {
			return err
		}
		if s.Webhooks == nil {
			return nil
		}
		for _, c := range ob.changes {
			if err := s.Webhooks.QueueUpdated(ctx, tx, userID, c); err != nil {
				return internal(err)
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

// Webhooks records outbound webhook deliveries in the caller's transaction.
type Webhooks interface {
	QueueUpdated(ctx context.Context, tx *ent.Tx, userID string, c Change) error
}
