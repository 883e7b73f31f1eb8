package relays

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/relay"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/membership"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/network/rules"
)

// SendRelay sends a relay to an active connection's peer and records this
// side's copy with the peer's answer (RULINGS "The operator network",
// operator-side relay routes; writes relay_sent).
func (s *Service) SendRelay(ctx context.Context, req *switchboardv1.SendRelayRequest) (*switchboardv1.SendRelayResponse, error) {
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
	if _, err := s.core.SwitchOn(ctx); err != nil {
		return nil, err
	}
	c, err := s.core.Owned(ctx, req.GetConnectionId())
	if err != nil {
		return nil, err
	}
	if c.Status != networkconnection.StatusActive || c.PeerTokenSealed == nil {
		return nil, apperr.IllegalMove("connection %s is %s: relays go to active connections only", c.ID, c.Status)
	}
	if err := network.OwnThread(ctx, s.core.DB.Relay, c.ID, network.Optional(req.GetThreadId()), network.Optional(req.GetParentRelayId())); err != nil {
		return nil, err
	}
	if err := s.core.NeedSecrets(); err != nil {
		return nil, err
	}
	if err := membership.CheckNamed(ctx, s.core.DB.Client, p.UserID, req.TeamId, req.ProjectId); err != nil {
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
	out := &switchboardv1.ReceiveRelayRequest{ConnectionId: network.Deref(c.PeerConnectionID), RelayId: id, FromUserEmail: me.Email,
		FromUserName: me.Name, ToUserEmail: c.PeerUserEmail, Type: req.GetType(), Intent: req.GetIntent(),
		Subject: strings.TrimSpace(req.GetSubject()), Payload: req.GetPayload(), Priority: req.GetPriority(),
		ThreadId: thread, ParentRelayId: req.GetParentRelayId(), CardId: req.GetCardId(),
		TeamId: req.TeamId, ProjectId: req.ProjectId}
	ans := &switchboardv1.ReceiveRelayResponse{}
	delivery, err := s.core.ToPeer(ctx, p.UserID, c, network.EventRelay, switchboardv1connect.NetworkRelayPeerServiceReceiveRelayProcedure, out, ans)
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
	res := &switchboardv1.SendRelayResponse{Relay: network.RelayProto(row, c), Delivery: delivery}
	if delivery == network.DeliveryDelivered {
		res.Answer = ans
	}
	return res, nil
}

// recordSent writes the sender's copy and relay_sent.
func (s *Service) recordSent(ctx context.Context, tx *db.Tx, p *auth.Principal, c *ent.NetworkConnection,
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
		SetThreadID(out.GetThreadId()).SetNillableParentRelayID(network.Optional(out.GetParentRelayId())).
		SetNillableCardID(network.Optional(out.GetCardId())).SetQuarantined(ans.GetQuarantined())
	if out.GetIntent() != "" {
		create.SetIntent(relay.Intent(out.GetIntent()))
	}
	if out.GetCardId() != "" && ans.CardId != nil {
		if err := network.LinkCard(ctx, tx, p.UserID, network.Optional(out.GetCardId()), ans.CardId, c); err != nil {
			return nil, err
		}
	}
	if ans.GetFiltered() {
		create.SetFilteredReason(ans.GetReason())
	}
	if sc := ans.GetScopeResolved(); sc != nil {
		create.SetNillableResolvedTeamID(sc.TeamId).SetNillableResolvedProjectID(sc.ProjectId)
	}
	if sc := ans.GetScopeDropped(); sc != nil {
		create.SetNillableDroppedTeamID(sc.TeamId).SetNillableDroppedProjectID(sc.ProjectId)
	}
	row, err := create.Save(ctx)
	if err != nil {
		return nil, err
	}
	peer := handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
	return row, activity.Write(ctx, tx, activity.Entry{UserID: p.UserID, Action: "relay_sent", Actor: p.Actor(), At: s.core.NowUTC(),
		Summary: fmt.Sprintf("Sent %q to %s", row.Subject, peer), CardID: network.Deref(row.CardID),
		Metadata: map[string]any{"relayId": row.ID, "connectionId": c.ID, "type": typ}})
}

// ListRelays lists the caller's relays, newest first; relays kept during
// quiet hours that have ended are delivered as a digest first.
func (s *Service) ListRelays(ctx context.Context, req *switchboardv1.ListRelaysRequest) (*switchboardv1.ListRelaysResponse, error) {
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
		out = append(out, network.RelayProto(r, conns[r.ConnectionID]))
	}
	return &switchboardv1.ListRelaysResponse{Relays: out}, nil
}

func (s *Service) connectionsOf(ctx context.Context, userID string) (map[string]*ent.NetworkConnection, error) {
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
func (s *Service) GetRelay(ctx context.Context, req *switchboardv1.GetRelayRequest) (*switchboardv1.GetRelayResponse, error) {
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

func (s *Service) shown(ctx context.Context, r *ent.Relay) *switchboardv1.Relay {
	c, _ := s.core.DB.NetworkConnection.Get(ctx, r.ConnectionID) // a removed connection shows no peer
	return network.RelayProto(r, c)
}

// ownedRelay is the caller's relay id; another account's is 404.
func (s *Service) ownedRelay(ctx context.Context, c *ent.Client, userID, id string) (*ent.Relay, error) {
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
func (s *Service) quarantined(ctx context.Context, tx *db.Tx, userID, id string) (*ent.Relay, error) {
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
func (s *Service) ReleaseRelay(ctx context.Context, req *switchboardv1.ReleaseRelayRequest) (*switchboardv1.ReleaseRelayResponse, error) {
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
		in.FromName = network.ShownName(c) // the name recorded now, not what arrived
		if err := tx.Relay.DeleteOneID(r.ID).Exec(ctx); err != nil {
			return err
		}
		id = r.ID
		if _, err = s.core.Take(ctx, tx, c, to, in, s.core.InboundRow(tx, c, to, in).SetID(r.ID)); err != nil {
			return err
		}
		// Released, it is delivered now.
		taken, err := tx.Relay.Get(ctx, r.ID)
		if err != nil {
			return err
		}
		return tx.Publish(ctx, network.RelayReceived{Relay: taken, Connection: c})
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
func inboundFromRow(r *ent.Relay) *network.Inbound {
	in := &network.Inbound{RelayID: r.RelayID, Type: string(r.Type), Subject: r.Subject, Payload: r.Payload,
		Priority: string(r.Priority), FromEmail: r.FromUserEmail, FromName: r.FromUserName,
		ThreadID: r.ThreadID, ParentID: r.ParentRelayID, CardID: r.CardID}
	if r.Intent != nil {
		in.Intent = string(*r.Intent)
	}
	in.Handling, _ = rules.Classify(in.Type, in.Intent) // stored values were checked on arrival
	in.QueuePriority, _ = rules.QueuePriority(in.Priority)
	return in
}

// DiscardRelay drops a quarantined relay: it is declined, and the sender is
// told so.
func (s *Service) DiscardRelay(ctx context.Context, req *switchboardv1.DiscardRelayRequest) (*switchboardv1.DiscardRelayResponse, error) {
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
