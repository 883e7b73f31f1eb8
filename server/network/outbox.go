package network

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// Outbox attempts one held outbox row now (webhooks.Dispatcher).
type Outbox interface {
	Attempt(ctx context.Context, id string) (webhooks.Attempted, error)
}

// What became of a send (vocabulary peer_delivery).
const (
	deliveryDelivered = string(vocab.PeerDeliveryDelivered)
	deliveryQueued    = string(vocab.PeerDeliveryQueued)
)

// Outbox events of what the operator sends a peer.
const (
	EventRelay        = "network.relay"
	EventNotification = "network.notification"
	EventJob          = "network.job"
)

// toPeer sends msg to the connection's peer at procedure (its Connect path,
// JSON) through the durable outbox (RULINGS "Details for the house issue"):
// the row is committed, then attempted at once with the connection's token.
// A 2xx answer is read into answer: delivered. A refusal (4xx) is the peer's
// error, as a direct call answered it, and the row ends. Anything else (the
// peer down, its breaker open) leaves the row to the federation retry
// schedule: queued.
func (s *Core) toPeer(ctx context.Context, userID string, c *ent.NetworkConnection, event, procedure string,
	msg, answer proto.Message) (string, error) {
	body, err := protojson.Marshal(msg)
	if err != nil {
		return "", apperr.Internal(err)
	}
	id := ids.New()
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		return webhooks.EnqueueForward(ctx, tx, webhooks.Forward{UserID: userID, Event: event,
			URL: strings.TrimSuffix(c.PeerInstanceURL, "/") + procedure, Body: body, At: s.now(),
			Headers: map[string]string{"Connect-Protocol-Version": "1"}, InstanceID: ackInstance + c.ID,
			ID: id, Held: s.Outbox != nil})
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
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(got.Body, answer); err != nil {
			// Delivered all the same; only the peer's details are missing.
			s.Logger.WarnContext(ctx, "network: a peer's answer could not be read", "connection", c.ID, "event", event, "error", err)
		}
		return deliveryDelivered, nil
	case got.Refused:
		return "", peerError(c.PeerInstanceURL, refusal(got.Status, got.Body))
	}
	return deliveryQueued, nil
}

// refusal is a peer's 4xx answer as the Connect error it carries, or, for a
// body without one (the peer's gate answering in REST's shape), the code of
// its status.
func refusal(status int, body []byte) error {
	var wire struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Error   string `json:"error"`
	}
	_ = json.Unmarshal(body, &wire)
	var code connect.Code
	if wire.Code == "" || code.UnmarshalText([]byte(wire.Code)) != nil {
		code = codeOfStatus(status)
	}
	msg := wire.Message
	if msg == "" {
		msg = wire.Error
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return connect.NewError(code, errors.New(msg))
}

func codeOfStatus(status int) connect.Code {
	switch status {
	case http.StatusUnauthorized:
		return connect.CodeUnauthenticated
	case http.StatusForbidden:
		return connect.CodePermissionDenied
	case http.StatusNotFound:
		return connect.CodeNotFound
	case http.StatusConflict:
		return connect.CodeAlreadyExists
	case http.StatusTooManyRequests:
		return connect.CodeResourceExhausted
	}
	return connect.CodeInvalidArgument
}
