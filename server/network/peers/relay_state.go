package peers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/relay"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/network/rules"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// AckRelay applies the recipient's news of a relay this instance sent, if
// it moves the relay forward (rules.ApplyAck): the state, a comms message,
// relay_responded activity and relay.state_changed push webhooks, in one
// unit of work. Older or repeated news changes nothing.
func (s *Service) AckRelay(ctx context.Context, req *switchboardv1.AckRelayRequest) (*switchboardv1.AckRelayResponse, error) {
	c, err := s.core.FromPeer(ctx, "relay-ack", ackFields(req))
	if err != nil {
		return nil, err
	}
	if c.Status != networkconnection.StatusActive {
		return nil, apperr.NotFound("no active connection holds that federation token")
	}
	at := s.core.NowUTC()
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
func (s *Service) senderMoved(ctx context.Context, tx *db.Tx, c *ent.NetworkConnection, r *ent.Relay, req *switchboardv1.AckRelayRequest, at time.Time) error {
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
	if err := tx.Publish(ctx, network.RelayAcked{Relay: r, State: state}); err != nil {
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
	now := s.core.NowUTC()
	if _, err := comms.Post(ctx, tx, now, r.UserID, summary, "network", map[string]any{
		"type": network.CommsRelayState, "relayId": r.ID, "state": state, "connectionId": c.ID,
	}); err != nil {
		return err
	}
	if err := activity.Write(ctx, tx, activity.Entry{UserID: r.UserID, Action: "relay_responded", Actor: peer, At: now,
		Summary: summary, CardID: network.Deref(r.CardID),
		Metadata: map[string]any{"relayId": r.ID, "state": state, "connectionId": c.ID}}); err != nil {
		return err
	}
	return webhooks.Enqueue(ctx, tx, r.UserID, webhooks.Event{Name: webhooks.EventRelayStateChanged, At: now,
		Data: RelayStateChanged{RelayID: r.ID, ConnectionID: c.ID, State: state, Result: req.GetResult(),
			Reason: req.GetReason(), Subject: r.Subject}})
}
