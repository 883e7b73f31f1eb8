package relays

import (
	"context"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/ent/relay"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/network/rules"
)

// ItemMoved is the queue's hook (queue.Service.Moved): when the item a
// received relay became moves, the relay's state follows (rules.Change) and
// the change is written to the outbox for the sender, in the move's own unit
// of work.
func (s *Service) ItemMoved(ctx context.Context, tx *db.Tx, it *ent.QueueItem, from string) error {
	r, err := itemRelay(ctx, tx, it)
	if err != nil || r == nil {
		return err
	}
	state, changed, err := rules.Change(from, string(it.Status))
	if err != nil || !changed {
		return err
	}
	var result, reason *string
	if it.Result != nil && it.ResultStatus != nil {
		switch {
		case state == rules.StateBlocked && *it.ResultStatus == queueitem.ResultStatusBlocked:
			reason = it.Result
		case state == rules.StateCompleted:
			result = it.Result
		}
	}
	return s.recipientMoved(ctx, tx, r, state, result, reason)
}

// ItemRemoved is the queue's hook (queue.Service.Removed): an item rejected
// or removed declines its relay, unless the relay is finished already.
func (s *Service) ItemRemoved(ctx context.Context, tx *db.Tx, it *ent.QueueItem, _ bool) error {
	r, err := itemRelay(ctx, tx, it)
	if err != nil || r == nil || rules.Final(string(r.State)) {
		return err
	}
	return s.recipientMoved(ctx, tx, r, rules.StateDeclined, nil, nil)
}

func itemRelay(ctx context.Context, tx *db.Tx, it *ent.QueueItem) (*ent.Relay, error) {
	r, err := tx.Relay.Query().Where(relay.ItemID(it.ID), relay.DirectionEQ(relay.DirectionInbound)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return r, err
}

// recipientMoved records the recipient's relay in its new state and writes
// the ack for the sender to the outbox. A connection removed meanwhile has
// no one to tell.
func (s *Service) recipientMoved(ctx context.Context, tx *db.Tx, r *ent.Relay, state string, result, reason *string) error {
	// Microseconds, what PostgreSQL keeps: the sender orders acks by it.
	now := s.core.NowUTC().Truncate(time.Microsecond)
	if err := rules.Next(string(r.State), state); err != nil {
		return err
	}
	up := tx.Relay.UpdateOneID(r.ID).SetState(relay.State(state)).SetStateAt(now)
	if result != nil {
		up.SetResult(*result)
	}
	if reason != nil {
		up.SetReason(*reason)
	} else if state == rules.StateAccepted {
		up.ClearReason()
	}
	if err := up.Exec(ctx); err != nil {
		return err
	}
	c, err := tx.NetworkConnection.Get(ctx, r.ConnectionID)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	ack := &switchboardv1.AckRelayRequest{RelayId: r.RelayID, State: state, Result: network.Deref(result), Reason: network.Deref(reason),
		OccurredAt: timestamppb.New(now)}
	return s.core.ToPeerInTx(ctx, tx, r.UserID, c, network.EventRelayAck, switchboardv1connect.NetworkRelayPeerServiceAckRelayProcedure, ack)
}

// Credential is the header an outbox row of the operator network carries:
// the peer's token of the row's connection, read at each attempt (a
// rotation does not strand queued acks). found is false for a row that is
// not the network's, or whose connection is gone or has no peer token.
func (s *Service) Credential(ctx context.Context, instanceID string) (header, value string, found bool, err error) {
	id, ok := strings.CutPrefix(instanceID, network.AckInstance)
	if !ok || s.core.Secrets == nil {
		return "", "", false, nil
	}
	c, err := s.core.DB.NetworkConnection.Get(ctx, id)
	if ent.IsNotFound(err) || (err == nil && c.PeerTokenSealed == nil) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, err
	}
	token, err := s.core.Secrets.OpenText(*c.PeerTokenSealed, network.PeerAAD(c.ID))
	if err != nil {
		return "", "", false, err
	}
	return auth.FederationTokenHeader, token, true, nil
}
