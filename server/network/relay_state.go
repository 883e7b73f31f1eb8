package network

import (
	"context"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/ent/relay"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/network/rules"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// AckPath is the sender's route for relay-acks.
const AckPath = "/api/federation/relay-ack"

// EventRelayAck names the outbox rows that carry relay-acks.
const EventRelayAck = "relay.ack"

// ackInstance is the outbox row's instance id of a connection: the
// dispatcher asks Credential for its header at each attempt.
const ackInstance = "network-connection:"

// ItemMoved is the queue's hook (queue.Service.Moved): when the item a
// received relay became moves, the relay's state follows (rules.Change) and
// the change is written to the outbox for the sender, in the move's own unit
// of work.
func (s *Relays) ItemMoved(ctx context.Context, tx *db.Tx, it *ent.QueueItem, from string) error {
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
func (s *Relays) ItemRemoved(ctx context.Context, tx *db.Tx, it *ent.QueueItem, _ bool) error {
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
func (s *Relays) recipientMoved(ctx context.Context, tx *db.Tx, r *ent.Relay, state string, result, reason *string) error {
	// Microseconds, what PostgreSQL keeps: the sender orders acks by it.
	now := s.core.now().Truncate(time.Microsecond)
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
	ack := &switchboardv1.AckRelayRequest{RelayId: r.RelayID, State: state, Result: deref(result), Reason: deref(reason),
		OccurredAt: timestamppb.New(now)}
	return s.core.toPeerInTx(ctx, tx, r.UserID, c, EventRelayAck, switchboardv1connect.NetworkRelayPeerServiceAckRelayProcedure, ack)
}

// Credential is the header an outbox row of the operator network carries:
// the peer's token of the row's connection, read at each attempt (a
// rotation does not strand queued acks). found is false for a row that is
// not the network's, or whose connection is gone or has no peer token.
func (s *Relays) Credential(ctx context.Context, instanceID string) (header, value string, found bool, err error) {
	id, ok := strings.CutPrefix(instanceID, ackInstance)
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
	token, err := s.core.Secrets.OpenText(*c.PeerTokenSealed, peerAAD(c.ID))
	if err != nil {
		return "", "", false, err
	}
	return auth.FederationTokenHeader, token, true, nil
}

// Owns reports whether an outbox instance id is the network's.
func Owns(instanceID string) bool { return strings.HasPrefix(instanceID, ackInstance) }

// AckRelay applies the recipient's news of a relay this instance sent, if
// it moves the relay forward (rules.ApplyAck): the state, a comms message,
// relay_responded activity and relay.state_changed push webhooks, in one
// unit of work. Older or repeated news changes nothing.
func (s *Peers) AckRelay(ctx context.Context, req *switchboardv1.AckRelayRequest) (*switchboardv1.AckRelayResponse, error) {
	c, err := s.core.fromPeer(ctx, "relay-ack", ackFields(req))
	if err != nil {
		return nil, err
	}
	if c.Status != networkconnection.StatusActive {
		return nil, apperr.NotFound("no active connection holds that federation token")
	}
	at := s.core.now()
	if req.GetOccurredAt() != nil {
		at = req.GetOccurredAt().AsTime().UTC()
	}
	at = at.Truncate(time.Microsecond)
	res := &switchboardv1.AckRelayResponse{}
	err = s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		r, err := tx.Relay.Query().Where(relay.ConnectionID(c.ID), relay.DirectionEQ(relay.DirectionOutbound),
			relay.RelayID(req.GetRelayId())).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFound("no relay %q was sent on this connection", req.GetRelayId())
		}
		if err != nil {
			return err
		}
		var since time.Time
		if r.StateAt != nil {
			since = *r.StateAt
		}
		apply, err := rules.ApplyAck(string(r.State), since, rules.Ack{State: req.GetState(), OccurredAt: at})
		if err != nil {
			return err
		}
		res.Applied, res.State = apply, string(r.State)
		if !apply {
			return nil
		}
		res.State = req.GetState()
		return s.senderMoved(ctx, tx, c, r, req, at)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func ackFields(req *switchboardv1.AckRelayRequest) error {
	if strings.TrimSpace(req.GetRelayId()) == "" || req.GetState() == "" {
		return apperr.Invalid("relayId and state are required")
	}
	return nil
}

// RelayStateChanged is the data of relay.state_changed.
type RelayStateChanged struct {
	RelayID      string `json:"relayId"`
	ConnectionID string `json:"connectionId"`
	State        string `json:"state"`
	Result       string `json:"result,omitempty"`
	Reason       string `json:"reason,omitempty"`
	Subject      string `json:"subject"`
}

// senderMoved writes an applied ack on the sender's side.
func (s *Peers) senderMoved(ctx context.Context, tx *db.Tx, c *ent.NetworkConnection, r *ent.Relay, req *switchboardv1.AckRelayRequest, at time.Time) error {
	state := req.GetState()
	up := tx.Relay.UpdateOneID(r.ID).SetState(relay.State(state)).SetStateAt(at)
	if v := req.GetResult(); v != "" {
		up.SetResult(v)
	}
	if v := req.GetReason(); v != "" {
		up.SetReason(v)
	} else if state == rules.StateAccepted {
		up.ClearReason()
	}
	if err := up.Exec(ctx); err != nil {
		return err
	}
	peer := handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
	summary := fmt.Sprintf("%s: %q is %s", peer, r.Subject, state)
	switch {
	case req.GetReason() != "":
		summary += " (" + req.GetReason() + ")"
	case req.GetResult() != "":
		summary += ": " + req.GetResult()
	}
	now := s.core.now()
	if _, err := comms.Post(ctx, tx, now, r.UserID, summary, "network", map[string]any{
		"type": commsRelayState, "relayId": r.ID, "state": state, "connectionId": c.ID,
	}); err != nil {
		return err
	}
	if err := activity.Write(ctx, tx, activity.Entry{UserID: r.UserID, Action: "relay_responded", Actor: peer, At: now,
		Summary: summary, CardID: deref(r.CardID),
		Metadata: map[string]any{"relayId": r.ID, "state": state, "connectionId": c.ID}}); err != nil {
		return err
	}
	return webhooks.Enqueue(ctx, tx, r.UserID, webhooks.Event{Name: webhooks.EventRelayStateChanged, At: now,
		Data: RelayStateChanged{RelayID: r.ID, ConnectionID: c.ID, State: state, Result: req.GetResult(),
			Reason: req.GetReason(), Subject: r.Subject}})
}

// deliverDigests posts, for userID, one comms message listing the relays
// kept during quiet hours that have ended by now, and clears them
// (docs/decisions.md: the digest is delivered on the next read).
func (s *Relays) deliverDigests(ctx context.Context, userID string) error {
	now := s.core.now()
	return s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		due, err := tx.Relay.Query().Where(relay.UserID(userID), relay.DigestPending(true), relay.DigestDueLTE(now)).
			Order(ent.Asc(relay.FieldCreatedAt)).All(ctx)
		if err != nil || len(due) == 0 {
			return err
		}
		lines := make([]string, 0, len(due)+1)
		lines = append(lines, fmt.Sprintf("%d relays arrived during quiet hours:", len(due)))
		relayIDs := make([]string, 0, len(due))
		for _, r := range due {
			lines = append(lines, fmt.Sprintf("- %s: %s", r.FromUserName, r.Subject))
			relayIDs = append(relayIDs, r.ID)
		}
		n, err := tx.Relay.Update().Where(relay.IDIn(relayIDs...), relay.DigestPending(true)).SetDigestPending(false).Save(ctx)
		if err != nil || n == 0 {
			return err
		}
		_, err = comms.Post(ctx, tx, now, userID, strings.Join(lines, "\n"), "network",
			map[string]any{"type": commsDigest, "relayIds": relayIDs})
		return err
	})
}
