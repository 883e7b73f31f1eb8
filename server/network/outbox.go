package network

import (
	"context"
	"fmt"
	"net/http"

	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/peerwire"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// Outbox attempts one held outbox row now (webhooks.Dispatcher).
type Outbox interface {
	Attempt(ctx context.Context, id string) (webhooks.Attempted, error)
}

// What became of a send (vocabulary peer_delivery).
const (
	DeliveryDelivered = string(vocab.PeerDeliveryDelivered)
	deliveryQueued    = string(vocab.PeerDeliveryQueued)
)

// Outbox events of what the operator sends a peer.
const (
	EventRelay        = "network.relay"
	EventNotification = "network.notification"
	EventJob          = "network.job"
	// EventRelayAck carries a relay-ack to the relay's sender.
	EventRelayAck = "relay.ack"
	// EventCardStatus carries a linked card's status to the peer.
	EventCardStatus = "card.status"
)

// ToPeer sends msg to the connection's peer at procedure (its Connect
// name) through the durable outbox (RULINGS "Details for the house issue"):
// the row, in the protocol the peer speaks (peerwire; JSON either way, the
// outbox's payload being text), is committed, then attempted at once with
// the connection's token. A 2xx answer is read into answer: delivered. A
// refusal (4xx) is the peer's error, as a direct call answered it, and the
// row ends. Anything else (the peer down, its breaker open) leaves the row
// to the federation retry schedule: queued.
func (s *Core) ToPeer(ctx context.Context, userID string, c *ent.NetworkConnection, event, procedure string,
	msg, answer proto.Message) (string, error) {
	wire := s.Directory.Of(ctx, c.PeerInstanceURL)
	id := ids.New()
	err := s.DB.InTx(ctx, func(tx *db.Tx) error {
		return s.forward(ctx, tx, wire, webhooks.Forward{UserID: userID, Event: event, ID: id, Held: s.Outbox != nil},
			c, procedure, msg)
	})
	if err != nil {
		return "", err
	}
	if s.Outbox == nil {
		return deliveryQueued, nil
	}
	got, err := s.Outbox.Attempt(ctx, id)
	if err != nil {
		return "", apperr.Internal(err)
	}
	switch {
	case got.Delivered:
		if err := wire.Decode(got.Status, got.Body, answer); err != nil {
			// Delivered all the same; only the peer's details are missing.
			s.Logger.WarnContext(ctx, "network: a peer's answer could not be read", "connection", c.ID, "event", event, "error", err)
		}
		return DeliveryDelivered, nil
	case got.Refused:
		return "", PeerError(c.PeerInstanceURL, wire.Decode(got.Status, got.Body, nil))
	}
	return deliveryQueued, nil
}

// ToPeerInTx writes msg for the connection's peer at procedure to the
// outbox inside tx (an ack, a linked card's change), in the protocol the
// peer is known to speak: nothing is read from the peer inside a
// transaction, so one this process has never heard from gets REST,
// which every peer serves.
func (s *Core) ToPeerInTx(ctx context.Context, tx *db.Tx, userID string, c *ent.NetworkConnection, event, procedure string,
	msg proto.Message) error {
	return s.forward(ctx, tx, s.Directory.Known(c.PeerInstanceURL), webhooks.Forward{UserID: userID, Event: event},
		c, procedure, msg)
}

// forward writes f, msg rendered for procedure in wire, as the connection's
// federation row (its credential added at each attempt, relays.Service.Credential).
func (s *Core) forward(ctx context.Context, tx *db.Tx, wire peerwire.Protocol, f webhooks.Forward, c *ent.NetworkConnection,
	procedure string, msg proto.Message) error {
	call, err := wire.Encode(c.PeerInstanceURL, procedure, msg)
	if err != nil {
		return apperr.Internal(err)
	}
	if call.Method != http.MethodPost {
		return apperr.Internal(fmt.Errorf("network: the outbox posts, and %s is %s", procedure, call.Method))
	}
	// The dispatcher sets the JSON content type itself.
	delete(call.Header, "Content-Type")
	f.URL, f.Body, f.Headers, f.At, f.InstanceID = call.URL, call.Body, call.Header, s.NowUTC(), AckInstance+c.ID
	return webhooks.EnqueueForward(ctx, tx, f)
}
