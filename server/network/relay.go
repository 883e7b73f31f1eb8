package network

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/relay"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network/rules"
	widgetsvc "github.com/switchboard-hq/switchboard/server/widgets"
)

// SendRelay sends a relay to an active connection's peer and records this
// side's copy with the peer's answer (RULINGS "The operator network",
// operator-side relay routes; writes relay_sent).
func (s *Relays) SendRelay(ctx context.Context, req *switchboardv1.SendRelayRequest) (*switchboardv1.SendRelayResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.GetSubject()) == "" {
		return nil, apperr.Invalid("subject is required")
	}
	if _, err := rules.Classify(req.GetType(), req.GetIntent()); err != nil {
		return nil, err
	}
	if _, err := rules.QueuePriority(req.GetPriority()); err != nil {
		return nil, err
	}
	if _, err := s.core.on(ctx); err != nil {
		return nil, err
	}
	c, err := s.core.owned(ctx, req.GetConnectionId())
	if err != nil {
		return nil, err
	}
	if c.Status != networkconnection.StatusActive || c.PeerTokenSealed == nil {
		return nil, apperr.IllegalMove("connection %s is %s: relays go to active connections only", c.ID, c.Status)
	}
	if err := ownThread(ctx, s.core.DB.Relay, c.ID, optional(req.GetThreadId()), optional(req.GetParentRelayId())); err != nil {
		return nil, err
	}
	if err := s.core.needSecrets(); err != nil {
		return nil, err
	}
	me, err := s.core.DB.User.Get(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	id := ids.New()
	thread := req.GetThreadId()
	if thread == "" {
		thread = id
	}
	out := &switchboardv1.ReceiveRelayRequest{ConnectionId: deref(c.PeerConnectionID), RelayId: id, FromUserEmail: me.Email,
		FromUserName: me.Name, ToUserEmail: c.PeerUserEmail, Type: req.GetType(), Intent: req.GetIntent(),
		Subject: strings.TrimSpace(req.GetSubject()), Payload: req.GetPayload(), Priority: req.GetPriority(),
		ThreadId: thread, ParentRelayId: req.GetParentRelayId(), CardId: req.GetCardId()}
	ans := &switchboardv1.ReceiveRelayResponse{}
	delivery, err := s.core.toPeer(ctx, p.UserID, c, EventRelay, switchboardv1connect.NetworkRelayPeerServiceReceiveRelayProcedure, out, ans)
	if err != nil {
		return nil, err
	}
	// Recorded once the peer has it or the outbox does; a refusal records
	// nothing, as before.
	row, err := db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (*ent.Relay, error) {
		return s.recordSent(ctx, tx, p, c, out, ans)
	})
	if err != nil {
		return nil, err
	}
	res := &switchboardv1.SendRelayResponse{Relay: relayProto(row, c), Delivery: delivery}
	if delivery == deliveryDelivered {
		res.Answer = ans
	}
	return res, nil
}

// recordSent writes the sender's copy and relay_sent.
func (s *Relays) recordSent(ctx context.Context, tx *db.Tx, p *auth.Principal, c *ent.NetworkConnection,
	out *switchboardv1.ReceiveRelayRequest, ans *switchboardv1.ReceiveRelayResponse) (*ent.Relay, error) {
	payload := "{}"
	if out.GetPayload() != nil {
		b, err := protojson.Marshal(out.GetPayload())
		if err != nil {
			return nil, apperr.Invalid("payload must be a JSON object")
		}
		payload = string(b)
	}
	typ, prio := out.GetType(), out.GetPriority()
	if typ == "" {
		typ = rules.TypeRequest
	}
	if prio == "" {
		prio = rules.PriorityNormal
	}
	create := tx.Relay.Create().SetID(out.GetRelayId()).SetUserID(p.UserID).SetConnectionID(c.ID).SetRelayID(out.GetRelayId()).
		SetDirection(relay.DirectionOutbound).SetType(relay.Type(typ)).SetSubject(out.GetSubject()).SetPayload(payload).
		SetPriority(relay.Priority(prio)).SetFromUserEmail(out.GetFromUserEmail()).SetFromUserName(out.GetFromUserName()).
		SetThreadID(out.GetThreadId()).SetNillableParentRelayID(optional(out.GetParentRelayId())).
		SetNillableCardID(optional(out.GetCardId())).SetQuarantined(ans.GetQuarantined())
	if out.GetIntent() != "" {
		create.SetIntent(relay.Intent(out.GetIntent()))
	}
	if out.GetCardId() != "" && ans.CardId != nil {
		if err := linkCard(ctx, tx, p.UserID, optional(out.GetCardId()), ans.CardId, c); err != nil {
			return nil, err
		}
	}
	if ans.GetFiltered() {
		create.SetFilteredReason(ans.GetReason())
	}
	row, err := create.Save(ctx)
	if err != nil {
		return nil, err
	}
	peer := handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
	return row, activity.Write(ctx, tx, activity.Entry{UserID: p.UserID, Action: "relay_sent", Actor: p.Actor(), At: s.core.now(),
		Summary: fmt.Sprintf("Sent %q to %s", row.Subject, peer), CardID: deref(row.CardID),
		Metadata: map[string]any{"relayId": row.ID, "connectionId": c.ID, "type": typ}})
}

// ListRelays lists the caller's relays, newest first; relays kept during
// quiet hours that have ended are delivered as a digest first.
func (s *Relays) ListRelays(ctx context.Context, req *switchboardv1.ListRelaysRequest) (*switchboardv1.ListRelaysResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.deliverDigests(ctx, p.UserID); err != nil {
		return nil, err
	}
	where := []predicate.Relay{relay.UserID(p.UserID)}
	if t := req.GetThreadId(); t != "" {
		where = append(where, relay.ThreadID(t))
	}
	if st := req.GetState(); st != "" {
		where = append(where, relay.StateEQ(relay.State(st)))
	}
	rows, err := s.core.DB.Relay.Query().Where(where...).Order(ent.Desc(relay.FieldCreatedAt), ent.Desc(relay.FieldID)).
		Limit(500).All(ctx)
	if err != nil {
		return nil, err
	}
	conns, err := s.connectionsOf(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	out := make([]*switchboardv1.Relay, 0, len(rows))
	for _, r := range rows {
		out = append(out, relayProto(r, conns[r.ConnectionID]))
	}
	return &switchboardv1.ListRelaysResponse{Relays: out}, nil
}

func (s *Relays) connectionsOf(ctx context.Context, userID string) (map[string]*ent.NetworkConnection, error) {
	rows, err := s.core.DB.NetworkConnection.Query().Where(networkconnection.UserID(userID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*ent.NetworkConnection, len(rows))
	for _, c := range rows {
		out[c.ID] = c
	}
	return out, nil
}

// GetRelay answers one of the caller's relays.
func (s *Relays) GetRelay(ctx context.Context, req *switchboardv1.GetRelayRequest) (*switchboardv1.GetRelayResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.ownedRelay(ctx, s.core.DB.Client, p.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetRelayResponse{Relay: s.shown(ctx, r)}, nil
}

func (s *Relays) shown(ctx context.Context, r *ent.Relay) *switchboardv1.Relay {
	c, _ := s.core.DB.NetworkConnection.Get(ctx, r.ConnectionID) // a removed connection shows no peer
	return relayProto(r, c)
}

// ownedRelay is the caller's relay id; another account's is 404.
func (s *Relays) ownedRelay(ctx context.Context, c *ent.Client, userID, id string) (*ent.Relay, error) {
	if strings.TrimSpace(id) == "" {
		return nil, apperr.Invalid("id is required")
	}
	r, err := c.Relay.Query().Where(relay.ID(id), relay.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("no relay %q", id)
	}
	return r, err
}

// quarantined is the caller's quarantined relay id, in tx.
func (s *Relays) quarantined(ctx context.Context, tx *db.Tx, userID, id string) (*ent.Relay, error) {
	r, err := s.ownedRelay(ctx, tx.Client(), userID, id)
	if err != nil {
		return nil, err
	}
	if !r.Quarantined {
		return nil, apperr.IllegalMove("relay %s is not quarantined", id)
	}
	return r, nil
}

// ReleaseRelay takes a quarantined relay as if it had arrived from a
// trusted connection.
func (s *Relays) ReleaseRelay(ctx context.Context, req *switchboardv1.ReleaseRelayRequest) (*switchboardv1.ReleaseRelayResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var id string
	err = s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		r, err := s.quarantined(ctx, tx, p.UserID, req.GetId())
		if err != nil {
			return err
		}
		c, err := tx.NetworkConnection.Get(ctx, r.ConnectionID)
		if ent.IsNotFound(err) {
			return apperr.IllegalMove("relay %s's connection was removed; discard it", r.ID)
		}
		if err != nil {
			return err
		}
		to, err := tx.User.Get(ctx, r.UserID)
		if err != nil {
			return err
		}
		in := inboundFromRow(r)
		in.fromName = shownName(c) // the name recorded now, not what arrived
		if err := tx.Relay.DeleteOneID(r.ID).Exec(ctx); err != nil {
			return err
		}
		id = r.ID
		_, err = s.core.take(ctx, tx, c, to, in, s.core.inboundRow(tx, c, to, in).SetID(r.ID))
		return err
	})
	if err != nil {
		return nil, err
	}
	r, err := s.ownedRelay(ctx, s.core.DB.Client, p.UserID, id)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ReleaseRelayResponse{Relay: s.shown(ctx, r)}, nil
}

// inboundFromRow is a kept relay as receive reads it.
func inboundFromRow(r *ent.Relay) *inbound {
	in := &inbound{relayID: r.RelayID, typ: string(r.Type), subject: r.Subject, payload: r.Payload,
		priority: string(r.Priority), fromEmail: r.FromUserEmail, fromName: r.FromUserName,
		threadID: r.ThreadID, parentID: r.ParentRelayID, cardID: r.CardID}
	if r.Intent != nil {
		in.intent = string(*r.Intent)
	}
	in.handling, _ = rules.Classify(in.typ, in.intent) // stored values were checked on arrival
	in.queuePriority, _ = rules.QueuePriority(in.priority)
	return in
}

// DiscardRelay drops a quarantined relay: it is declined, and the sender is
// told so.
func (s *Relays) DiscardRelay(ctx context.Context, req *switchboardv1.DiscardRelayRequest) (*switchboardv1.DiscardRelayResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	err = s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		r, err := s.quarantined(ctx, tx, p.UserID, req.GetId())
		if err != nil {
			return err
		}
		if err := tx.Relay.UpdateOneID(r.ID).SetQuarantined(false).Exec(ctx); err != nil {
			return err
		}
		return s.recipientMoved(ctx, tx, r, rules.StateDeclined, nil, proto.String("discarded from quarantine"))
	})
	if err != nil {
		return nil, err
	}
	r, err := s.ownedRelay(ctx, s.core.DB.Client, p.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DiscardRelayResponse{Relay: s.shown(ctx, r)}, nil
}

// itemMeta is a request relay's queue metadata: where it came from, its
// widgets (an approve/decline widget for request_approval) and, when the
// sender gave one, its widgetResponseUrl.
func itemMeta(c *ent.NetworkConnection, in *inbound) (string, error) {
	payload := map[string]any{}
	_ = json.Unmarshal([]byte(in.payload), &payload) // a JSON object, made from the request's Struct
	meta := map[string]any{"relayId": in.relayID, "connectionId": c.ID, "intent": in.intent,
		"peer": handle.Peer(c.PeerUserEmail, c.PeerInstanceURL), "relayPayload": payload}
	var widgets []any
	if list, ok := payload["widgets"].([]any); ok && len(list) <= 50 {
		widgets = append(widgets, list...)
	}
	if in.intent == rules.IntentRequestApproval {
		widgets = append(widgets, map[string]any{"id": widgetsvc.RelayApproval, "type": "choice_card", "title": in.subject,
			"items": []any{map[string]any{"id": "decision", "label": in.subject, "actions": approvalActions()}}})
	}
	if len(widgets) > 0 {
		meta["widgets"] = widgets
	}
	if u, ok := payload["widgetResponseUrl"].(string); ok && u != "" {
		meta["widgetResponseUrl"] = u
	}
	b, err := json.Marshal(meta)
	return string(b), err
}

// approvalActions are the approve/decline widget's actions: the terminal
// widget actions but submit.
func approvalActions() []any {
	var out []any
	for _, a := range vocab.Values("widget_terminal_action") {
		if a != "submit" {
			out = append(out, a)
		}
	}
	return out
}

// description is the payload's description or message text, if any.
func description(payload string) *string {
	m := map[string]any{}
	_ = json.Unmarshal([]byte(payload), &m) // a JSON object
	for _, k := range []string{"description", "message", "body"} {
		if v, ok := m[k].(string); ok && strings.TrimSpace(v) != "" {
			return &v
		}
	}
	return nil
}

// relayProto renders a relay; c is its connection, nil once removed.
func relayProto(r *ent.Relay, c *ent.NetworkConnection) *switchboardv1.Relay {
	out := &switchboardv1.Relay{Id: r.ID, ConnectionId: r.ConnectionID, RelayId: r.RelayID, Direction: string(r.Direction),
		Type: string(r.Type), Subject: r.Subject, Priority: string(r.Priority), ThreadId: r.ThreadID,
		ParentRelayId: r.ParentRelayID, CardId: r.CardID, State: string(r.State), Result: r.Result, Reason: r.Reason,
		ItemId: r.ItemID, Quarantined: r.Quarantined, FilteredReason: r.FilteredReason, DigestPending: r.DigestPending,
		CreatedAt: timestamppb.New(r.CreatedAt), UpdatedAt: timestamppb.New(r.UpdatedAt)}
	if r.Intent != nil {
		out.Intent = string(*r.Intent)
	}
	st := &structpb.Struct{}
	if protojson.Unmarshal([]byte(r.Payload), st) == nil {
		out.Payload = st
	}
	if c != nil {
		out.Peer = handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
	}
	return out
}
