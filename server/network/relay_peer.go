package network

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/networkpreference"
	"github.com/switchboard-hq/switchboard/ent/relay"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/network/rules"
	"github.com/switchboard-hq/switchboard/server/queue"
)

var _ switchboardv1connect.NetworkRelayPeerServiceHandler = (*Peers)(nil)

// The comms message types relays write.
const (
	commsRelay      = "relay_received"
	commsRelayState = "relay_state_changed"
	commsDigest     = "relay_digest"
)

// ReceiveRelay takes a relay from the connection's peer user (RULINGS "The
// operator network", Relays; document 2 "Relay"): one handler for POST
// /api/v2/relay and /api/federation/relay.
func (s *Peers) ReceiveRelay(ctx context.Context, req *switchboardv1.ReceiveRelayRequest) (*switchboardv1.ReceiveRelayResponse, error) {
	c, err := s.core.fromPeer(ctx, "relay", relayBody(req))
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
	if req.TeamId != nil || req.ProjectId != nil {
		// Teams and projects do not exist yet: every scope is dropped, echoed.
		res.ScopeDropped = &switchboardv1.RelayScope{TeamId: req.TeamId, ProjectId: req.ProjectId}
	}
	return res, nil
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
func (s *Peers) recipient(ctx context.Context, c *ent.NetworkConnection) (*ent.User, bool, error) {
	u, err := s.core.DB.User.Get(ctx, c.UserID)
	if err == nil {
		return u, false, nil
	}
	if !ent.IsNotFound(err) {
		return nil, false, err
	}
	owner, err := s.core.DB.User.Query().Where(user.RoleEQ(user.RoleAdmin)).Order(ent.Asc(user.FieldCreatedAt)).First(ctx)
	if err != nil {
		return nil, false, err
	}
	return owner, true, nil
}

// inbound is a checked relay as the recipient keeps it.
type inbound struct {
	relayID, typ, intent, subject, payload, priority, queuePriority string
	fromEmail, fromName                                             string
	threadID, parentID, cardID                                      *string
	handling                                                        rules.Handling
}

func inboundOf(c *ent.NetworkConnection, req *switchboardv1.ReceiveRelayRequest) (*inbound, error) {
	h, err := rules.Classify(req.GetType(), req.GetIntent())
	if err != nil {
		return nil, err
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
	return &inbound{relayID: req.GetRelayId(), typ: typ, intent: req.GetIntent(), subject: strings.TrimSpace(req.GetSubject()),
		payload: payload, priority: prio, queuePriority: qp, fromEmail: c.PeerUserEmail, fromName: shownName(c),
		threadID: optional(req.GetThreadId()), parentID: optional(req.GetParentRelayId()), cardID: optional(req.GetCardId()),
		handling: h}, nil
}

// receive records the relay and does what its kind asks, in tx.
func (s *Peers) receive(ctx context.Context, tx *db.Tx, c *ent.NetworkConnection, to *ent.User, in *inbound) (*switchboardv1.ReceiveRelayResponse, error) {
	prior, err := tx.Relay.Query().Where(relay.ConnectionID(c.ID), relay.DirectionEQ(relay.DirectionInbound),
		relay.RelayID(in.relayID)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	if prior != nil {
		return &switchboardv1.ReceiveRelayResponse{RelayId: &in.relayID, Duplicate: proto.Bool(true),
			Message: proto.String("relay " + in.relayID + " was already received")}, nil
	}
	if err := ownThread(ctx, tx.Relay, c.ID, in.threadID, in.parentID); err != nil {
		return nil, err
	}
	create := s.core.inboundRow(tx, c, to, in)
	if string(c.TrustLevel) == rules.TrustUntrusted {
		if _, err := create.SetQuarantined(true).Save(ctx); err != nil {
			return nil, err
		}
		return &switchboardv1.ReceiveRelayResponse{RelayId: &in.relayID, Quarantined: proto.Bool(true),
			Message: proto.String("the relay is held for " + to.Name + "'s review: the connection is untrusted")}, nil
	}
	return s.core.take(ctx, tx, c, to, in, create)
}

// take delivers a relay that is not quarantined: a request becomes a queue
// item, an ambient relay passes the preferences, a response joins its thread.
func (s *Core) take(ctx context.Context, tx *db.Tx, c *ent.NetworkConnection, to *ent.User, in *inbound, create *ent.RelayCreate) (*switchboardv1.ReceiveRelayResponse, error) {
	res := &switchboardv1.ReceiveRelayResponse{RelayId: &in.relayID}
	peer := handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
	switch in.handling {
	case rules.AsItem:
		it, err := s.queueItem(ctx, tx, c, to, in, create)
		if err != nil {
			return nil, err
		}
		res.Task, res.CardId = proto.Bool(true), it.CardID
		res.Message = proto.String(fmt.Sprintf("queued for %s's confirmation", to.Name))
		return res, nil
	case rules.AsAmbient:
		res.Ambient = proto.Bool(true)
		prefs, err := s.relayPrefs(ctx, tx, to.ID)
		if err != nil {
			return nil, err
		}
		now := s.now()
		out := rules.Filter(prefs, in.subject, now)
		if !out.Deliver {
			create.SetFilteredReason(out.Reason)
			if out.Digest() {
				if end, ok := rules.QuietEnds(prefs, now); ok {
					create.SetDigestPending(true).SetDigestDue(end)
				}
			}
			if _, err := create.Save(ctx); err != nil {
				return nil, err
			}
			res.Filtered, res.Reason = proto.Bool(true), &out.Reason
			return res, nil
		}
		if _, err := create.Save(ctx); err != nil {
			return nil, err
		}
		if err := s.relayMessage(ctx, tx, to.ID, in, peer); err != nil {
			return nil, err
		}
		res.Message = proto.String("delivered to " + to.Name)
		return res, nil
	}
	if _, err := create.Save(ctx); err != nil {
		return nil, err
	}
	if err := s.relayMessage(ctx, tx, to.ID, in, peer); err != nil {
		return nil, err
	}
	res.Message = proto.String("added to the thread")
	return res, nil
}

// inboundRow is the recipient's copy of a relay, not yet saved.
func (s *Core) inboundRow(tx *db.Tx, c *ent.NetworkConnection, to *ent.User, in *inbound) *ent.RelayCreate {
	create := tx.Relay.Create().SetUserID(to.ID).SetConnectionID(c.ID).SetRelayID(in.relayID).
		SetDirection(relay.DirectionInbound).SetType(relay.Type(in.typ)).SetSubject(in.subject).SetPayload(in.payload).
		SetPriority(relay.Priority(in.priority)).SetFromUserEmail(in.fromEmail).SetFromUserName(in.fromName).
		SetNillableThreadID(in.threadID).SetNillableParentRelayID(in.parentID).SetNillableCardID(in.cardID)
	if in.intent != "" {
		create.SetIntent(relay.Intent(in.intent))
	}
	return create
}

// queueItem makes a request relay the recipient's pending item (with its
// card, through the queue's own create) and saves the relay with the item.
func (s *Core) queueItem(ctx context.Context, tx *db.Tx, c *ent.NetworkConnection, to *ent.User, in *inbound, create *ent.RelayCreate) (*ent.QueueItem, error) {
	if s.Queue == nil {
		return nil, apperr.Internal(fmt.Errorf("network: no queue to take relays"))
	}
	limit, err := s.maxOpen(ctx, tx, to.ID)
	if err != nil {
		return nil, err
	}
	open, err := tx.Relay.Query().Where(relay.ConnectionID(c.ID), relay.DirectionEQ(relay.DirectionInbound),
		relay.ItemIDNotNil(), relay.StateIn(relay.StateDelivered, relay.StateAccepted, relay.StateBlocked)).Count(ctx)
	if err != nil {
		return nil, err
	}
	if open >= limit {
		return nil, &apperr.Error{Kind: apperr.KindRateLimited, RetryAfter: time.Minute,
			Message: fmt.Sprintf("%d relays from this connection are open, the most %s takes (maxOpenRelays)", open, to.Name)}
	}
	meta, err := itemMeta(c, in)
	if err != nil {
		return nil, err
	}
	title := in.subject
	if title == "" {
		title = "Request from " + handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
	}
	peer := handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
	req := &switchboardv1.CreateQueueItemRequest{Title: title, Priority: &in.queuePriority, Metadata: &meta,
		Source: proto.String("relay:" + peer), Description: description(in.payload)}
	p := &auth.Principal{UserID: to.ID, Username: to.Username, Name: to.Name, Role: string(to.Role), Via: auth.ViaKey, KeyLabel: peer}
	return s.Queue.CreateForeign(ctx, tx, p, req, queue.Foreign{RequesterEmail: c.PeerUserEmail, RequesterName: in.fromName,
		SourceInstanceName: instanceNameOf(c), ConnectionID: c.ID}, func(ctx context.Context, tx *db.Tx, it *ent.QueueItem) error {
		if _, err := create.SetItemID(it.ID).Save(ctx); err != nil {
			return err
		}
		return linkCard(ctx, tx, to.ID, it.CardID, in.cardID, c)
	})
}

func instanceNameOf(c *ent.NetworkConnection) string {
	if c.PeerInstanceName != "" {
		return c.PeerInstanceName
	}
	return c.PeerInstanceURL
}

// maxOpen is the recipient's maxOpenRelays.
func (s *Core) maxOpen(ctx context.Context, tx *db.Tx, userID string) (int, error) {
	pref, err := tx.NetworkPreference.Query().Where(networkpreference.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return DefaultMaxOpenRelays, nil
	}
	if err != nil {
		return 0, err
	}
	return pref.MaxOpenRelays, nil
}

// relayPrefs are the recipient's preferences as the rules read them.
func (s *Core) relayPrefs(ctx context.Context, tx *db.Tx, userID string) (rules.Preferences, error) {
	pref, err := tx.NetworkPreference.Query().Where(networkpreference.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return rules.Preferences{AmbientEnabled: true}, nil
	}
	if err != nil {
		return rules.Preferences{}, err
	}
	out := rules.Preferences{MutedTopics: pref.MutedTopics, AmbientEnabled: pref.AmbientEnabled}
	if pref.QuietStart != nil && pref.QuietEnd != nil {
		out.QuietHours = rules.QuietHours{Start: *pref.QuietStart, End: *pref.QuietEnd, TimeZone: deref(pref.QuietTimeZone)}
	}
	return out, nil
}

// relayMessage is an ambient or response relay as a comms message.
func (s *Core) relayMessage(ctx context.Context, tx *db.Tx, userID string, in *inbound, peer string) error {
	content := fmt.Sprintf("%s (%s): %s", in.fromName, peer, in.subject)
	meta := map[string]any{"type": commsRelay, "relayId": in.relayID, "relayType": in.typ}
	if in.threadID != nil {
		meta["threadId"] = *in.threadID
	}
	if in.parentID != nil {
		meta["parentRelayId"] = *in.parentID
	}
	_, err := comms.Post(ctx, tx, s.now(), userID, content, "network", meta)
	return err
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
