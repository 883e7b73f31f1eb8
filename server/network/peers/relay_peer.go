package peers

import (
	"context"
	"net/url"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/project"
	"github.com/switchboard-hq/switchboard/ent/relay"
	"github.com/switchboard-hq/switchboard/ent/team"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/network/rules"
)

// ReceiveRelay takes a relay from the connection's peer user (RULINGS "The
// operator network", Relays; document 2 "Relay"): one handler for POST
// /api/v2/relay and /api/federation/relay.
func (s *Service) ReceiveRelay(ctx context.Context, req *switchboardv1.ReceiveRelayRequest) (*switchboardv1.ReceiveRelayResponse, error) {
	c, err := s.core.FromPeer(ctx, "relay", relayBody(req))
	if err != nil {
		return nil, err
	}
	if c.Status != networkconnection.StatusActive {
		return nil, apperr.NotFound("no active connection holds that federation token")
	}
	if from := strings.TrimSpace(req.GetFromUserEmail()); from != "" && !strings.EqualFold(from, c.PeerUserEmail) {
		return nil, apperr.Invalid("fromUserEmail %q is not this connection's peer user", from)
	}
	to, fallback, err := s.recipient(ctx, c)
	if err != nil {
		return nil, err
	}
	if t := strings.TrimSpace(req.GetToUserEmail()); t != "" && !fallback && !strings.EqualFold(t, to.Email) {
		return nil, apperr.Invalid("toUserEmail %q is not this connection's local user", t)
	}
	in, err := inboundOf(c, req)
	if err != nil {
		return nil, err
	}
	if in.Scope, err = scopeOf(ctx, s.core.DB.Client, c, req.TeamId, req.ProjectId); err != nil {
		return nil, err
	}
	var res *switchboardv1.ReceiveRelayResponse
	take := func(tx *db.Tx) error {
		res, err = s.receive(ctx, tx, c, to, in)
		return err
	}
	err = s.core.DB.InTx(ctx, take)
	if ent.IsConstraintError(err) {
		// The same relay arrived twice at once and the other copy won: this
		// one is its duplicate.
		err = s.core.DB.InTx(ctx, take)
	}
	if err != nil {
		return nil, err
	}
	res.Success = true
	if fallback && res.Duplicate == nil {
		res.Fallback = proto.Bool(true)
	}
	if res.Duplicate == nil {
		res.ScopeResolved, res.ScopeDropped = in.Scope.Answer()
	}
	return res, nil
}

// scopeOf resolves the team and project a relay names to this side's
// mirrors of them, joined over this connection (relay v2.3.2): another
// connection's, or one never joined, is dropped. A project implies its
// team: the mirror's own team, when it has one, is resolved with it.
func scopeOf(ctx context.Context, c *ent.Client, conn *ent.NetworkConnection, teamID, projectID *string) (network.Scope, error) {
	var sc network.Scope
	if id := network.Deref(projectID); id != "" {
		p, err := c.Project.Query().Where(project.OriginConnectionID(conn.ID), project.OriginID(id)).Only(ctx)
		switch {
		case err == nil:
			sc.ResolvedProject = &p.ID
			if teamID == nil && p.TeamID != nil {
				sc.ResolvedTeam = p.TeamID
			}
		case ent.IsNotFound(err):
			sc.DroppedProject = &id
		default:
			return sc, err
		}
	}
	if id := network.Deref(teamID); id != "" {
		t, err := c.Team.Query().Where(team.OriginConnectionID(conn.ID), team.OriginID(id)).Only(ctx)
		switch {
		case err == nil:
			sc.ResolvedTeam = &t.ID
		case ent.IsNotFound(err):
			sc.DroppedTeam = &id
		default:
			return sc, err
		}
	}
	return sc, nil
}

// relayBody is the relay's own refusal, answered after the switch: the
// sender's relay id is what the recipient is idempotent on.
func relayBody(req *switchboardv1.ReceiveRelayRequest) error {
	if strings.TrimSpace(req.GetRelayId()) == "" {
		return apperr.Invalid("relayId is required")
	}
	return nil
}

// recipient is the connection's local user, or the instance owner when that
// user is gone (fallback).
func (s *Service) recipient(ctx context.Context, c *ent.NetworkConnection) (*ent.User, bool, error) {
	u, err := s.core.DB.User.Get(ctx, c.UserID)
	if err == nil {
		return u, false, nil
	}
	if !ent.IsNotFound(err) {
		return nil, false, err
	}
	owner, err := s.core.DB.User.Query().Where(user.RoleEQ(user.RoleAdmin)).Order(ent.Asc(user.FieldCreatedAt), ent.Asc(user.FieldID)).First(ctx)
	if err != nil {
		return nil, false, err
	}
	return owner, true, nil
}

func inboundOf(c *ent.NetworkConnection, req *switchboardv1.ReceiveRelayRequest) (*network.Inbound, error) {
	h, err := rules.Classify(req.GetType(), req.GetIntent())
	if err != nil {
		return nil, err
	}
	invite := h != rules.AsReply && rules.IsInvite(req.GetPayload().GetFields()["kind"].GetStringValue())
	if invite {
		h = rules.AsItem
	}
	qp, err := rules.QueuePriority(req.GetPriority())
	if err != nil {
		return nil, err
	}
	payload := "{}"
	if req.GetPayload() != nil {
		b, err := protojson.Marshal(req.GetPayload())
		if err != nil {
			return nil, apperr.Invalid("payload must be a JSON object")
		}
		payload = string(b)
		if err := checkWidgetResponseURL(c, req.GetPayload().GetFields()["widgetResponseUrl"]); err != nil {
			return nil, err
		}
	}
	typ := req.GetType()
	if typ == "" {
		typ = rules.TypeRequest
	}
	prio := req.GetPriority()
	if prio == "" {
		prio = rules.PriorityNormal
	}
	// The relay's fromUserName is not shown: the connection's recorded name
	// is (RULINGS "Security details").
	return &network.Inbound{RelayID: req.GetRelayId(), Type: typ, Intent: req.GetIntent(), Subject: strings.TrimSpace(req.GetSubject()),
		Payload: payload, Priority: prio, QueuePriority: qp, FromEmail: c.PeerUserEmail, FromName: network.ShownName(c),
		ThreadID: network.Optional(req.GetThreadId()), ParentID: network.Optional(req.GetParentRelayId()), CardID: network.Optional(req.GetCardId()),
		Handling: h, Invite: invite}, nil
}

// receive records the relay and does what its kind asks, in tx, and
// publishes RelayReceived for a relay it had not received before.
func (s *Service) receive(ctx context.Context, tx *db.Tx, c *ent.NetworkConnection, to *ent.User, in *network.Inbound) (*switchboardv1.ReceiveRelayResponse, error) {
	res, err := s.take(ctx, tx, c, to, in)
	if err != nil || res.Duplicate != nil {
		return res, err
	}
	row, err := tx.Relay.Query().Where(relay.ConnectionID(c.ID), relay.DirectionEQ(relay.DirectionInbound),
		relay.RelayID(in.RelayID)).Only(ctx)
	if err != nil {
		return nil, err
	}
	return res, tx.Publish(ctx, network.RelayReceived{Relay: row, Connection: c})
}

func (s *Service) take(ctx context.Context, tx *db.Tx, c *ent.NetworkConnection, to *ent.User, in *network.Inbound) (*switchboardv1.ReceiveRelayResponse, error) {
	prior, err := tx.Relay.Query().Where(relay.ConnectionID(c.ID), relay.DirectionEQ(relay.DirectionInbound),
		relay.RelayID(in.RelayID)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	if prior != nil {
		return &switchboardv1.ReceiveRelayResponse{RelayId: &in.RelayID, Duplicate: proto.Bool(true),
			Message: proto.String("relay " + in.RelayID + " was already received")}, nil
	}
	if err := network.OwnThread(ctx, tx.Relay, c.ID, in.ThreadID, in.ParentID); err != nil {
		return nil, err
	}
	create := s.core.InboundRow(tx, c, to, in)
	if string(c.TrustLevel) == rules.TrustUntrusted {
		if _, err := create.SetQuarantined(true).Save(ctx); err != nil {
			return nil, err
		}
		return &switchboardv1.ReceiveRelayResponse{RelayId: &in.RelayID, Quarantined: proto.Bool(true),
			Message: proto.String("the relay is held for " + to.Name + "'s review: the connection is untrusted")}, nil
	}
	return s.core.Take(ctx, tx, c, to, in, create)
}

// checkWidgetResponseURL refuses a payload.widgetResponseUrl off the
// connection's verified origin (RULINGS "Details for the house issue"): the
// recipient's widget answers go there, so only the verified peer may name it.
func checkWidgetResponseURL(c *ent.NetworkConnection, v *structpb.Value) error {
	if v == nil {
		return nil
	}
	raw, ok := v.GetKind().(*structpb.Value_StringValue)
	if !ok {
		return apperr.Invalid("payload.widgetResponseUrl must be a URL")
	}
	if raw.StringValue == "" {
		return nil
	}
	u, err := egress.ParseURL(raw.StringValue)
	if err != nil {
		return apperr.Invalid("payload.widgetResponseUrl: %s", err.Error())
	}
	peer, err := egress.ParseURL(c.PeerInstanceURL)
	if err != nil || originOf(u) != originOf(peer) {
		return apperr.Invalid("payload.widgetResponseUrl must share the connection's origin (%s)", c.PeerInstanceURL)
	}
	return nil
}

// originOf is scheme, host and port, the port spelled even when it is the
// scheme's default, so that https://a and https://a:443 are one origin.
func originOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}
