package network

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkpreference"
	"github.com/switchboard-hq/switchboard/ent/relay"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/network/rules"
	"github.com/switchboard-hq/switchboard/server/queue"
)

// The comms message types relays write.
const (
	commsRelay      = "relay_received"
	CommsRelayState = "relay_state_changed"
	CommsDigest     = "relay_digest"
)

// Inbound is a checked relay as the recipient keeps it.
type Inbound struct {
	RelayID, Type, Intent, Subject, Payload, Priority, QueuePriority string
	FromEmail, FromName                                              string
	ThreadID, ParentID, CardID                                       *string
	Handling                                                         rules.Handling
	// Invite is an invite relay's (its payload's kind): its item stays off
	// the board.
	Invite bool
	// Scope is the team and project the relay named, as this side resolved
	// them to its own mirrors (relay v2.3.2): a request's item is filed
	// under the resolved project.
	Scope Scope
}

// Scope is a relay's named team and project, resolved or dropped.
type Scope struct {
	ResolvedTeam, ResolvedProject, DroppedTeam, DroppedProject *string
}

// Answer renders the scope as the relay's answer echoes it (nil parts
// absent).
func (sc Scope) Answer() (resolved, dropped *switchboardv1.RelayScope) {
	if sc.ResolvedTeam != nil || sc.ResolvedProject != nil {
		resolved = &switchboardv1.RelayScope{TeamId: sc.ResolvedTeam, ProjectId: sc.ResolvedProject}
	}
	if sc.DroppedTeam != nil || sc.DroppedProject != nil {
		dropped = &switchboardv1.RelayScope{TeamId: sc.DroppedTeam, ProjectId: sc.DroppedProject}
	}
	return resolved, dropped
}

// RelayTaken is published in the unit of work that makes a request relay
// from a connection's peer the recipient's queue item, so that records the
// relay's payload opens (an engagement's contract, server/economy) are
// made with it.
type RelayTaken struct {
	Relay      *ent.Relay
	Item       *ent.QueueItem
	Connection *ent.NetworkConnection
}

// ConnectionDeclined is published in the unit of work that declines a
// peer's request to connect (the peer is not told, and no activity names
// it), so that the operator's views follow it.
type ConnectionDeclined struct {
	Connection *ent.NetworkConnection
}

// RelayReceived is published in the unit of work that records a relay from
// a connection's peer for its recipient (taken, filtered or held for review;
// not a duplicate), so that the recipient's views follow it.
type RelayReceived struct {
	Relay      *ent.Relay
	Connection *ent.NetworkConnection
}

// RelayAcked is published in the unit of work that applies a peer's ack to
// a relay this side sent, so that records waiting on the answer (an invite
// over the network, server/groups) follow it.
type RelayAcked struct {
	Relay *ent.Relay
	// State is the state the ack moved the relay to.
	State string
}

// Take delivers a relay that is not quarantined: a request becomes a queue
// item, an ambient relay passes the preferences, a response joins its thread.
func (s *Core) Take(ctx context.Context, tx *db.Tx, c *ent.NetworkConnection, to *ent.User, in *Inbound, create *ent.RelayCreate) (*switchboardv1.ReceiveRelayResponse, error) {
	res := &switchboardv1.ReceiveRelayResponse{RelayId: &in.RelayID}
	peer := handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
	switch in.Handling {
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
		prefs, err := s.RelayPrefs(ctx, tx, to.ID)
		if err != nil {
			return nil, err
		}
		now := s.NowUTC()
		out := rules.Filter(prefs, in.Subject, now)
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

// InboundRow is the recipient's copy of a relay, not yet saved.
func (s *Core) InboundRow(tx *db.Tx, c *ent.NetworkConnection, to *ent.User, in *Inbound) *ent.RelayCreate {
	create := tx.Relay.Create().SetUserID(to.ID).SetConnectionID(c.ID).SetRelayID(in.RelayID).
		SetDirection(relay.DirectionInbound).SetType(relay.Type(in.Type)).SetSubject(in.Subject).SetPayload(in.Payload).
		SetPriority(relay.Priority(in.Priority)).SetFromUserEmail(in.FromEmail).SetFromUserName(in.FromName).
		SetNillableThreadID(in.ThreadID).SetNillableParentRelayID(in.ParentID).SetNillableCardID(in.CardID).
		SetNillableResolvedTeamID(in.Scope.ResolvedTeam).SetNillableResolvedProjectID(in.Scope.ResolvedProject).
		SetNillableDroppedTeamID(in.Scope.DroppedTeam).SetNillableDroppedProjectID(in.Scope.DroppedProject)
	if in.Intent != "" {
		create.SetIntent(relay.Intent(in.Intent))
	}
	return create
}

// queueItem makes a request relay the recipient's pending item (with its
// card, through the queue's own create) and saves the relay with the item.
func (s *Core) queueItem(ctx context.Context, tx *db.Tx, c *ent.NetworkConnection, to *ent.User, in *Inbound, create *ent.RelayCreate) (*ent.QueueItem, error) {
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
	title := in.Subject
	if title == "" {
		title = "Request from " + handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
	}
	peer := handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
	req := &switchboardv1.CreateQueueItemRequest{Title: title, Priority: &in.QueuePriority, Metadata: &meta,
		Source: proto.String("relay:" + peer), Description: description(in.Payload), ProjectId: in.Scope.ResolvedProject}
	p := &auth.Principal{UserID: to.ID, Username: to.Username, Name: to.Name, Role: string(to.Role), Via: auth.ViaKey, KeyLabel: peer}
	return s.Queue.CreateForeign(ctx, tx, p, req, queue.Foreign{RequesterEmail: c.PeerUserEmail, RequesterName: in.FromName,
		SourceInstanceName: instanceNameOf(c), ConnectionID: c.ID, OffBoard: in.Invite}, func(ctx context.Context, tx *db.Tx, it *ent.QueueItem) error {
		row, err := create.SetItemID(it.ID).Save(ctx)
		if err != nil {
			return err
		}
		if err := LinkCard(ctx, tx, to.ID, it.CardID, in.CardID, c); err != nil {
			return err
		}
		return tx.Publish(ctx, RelayTaken{Relay: row, Item: it, Connection: c})
	})
}

func instanceNameOf(c *ent.NetworkConnection) string {
	if c.PeerInstanceName != "" {
		return c.PeerInstanceName
	}
	return c.PeerInstanceURL
}

// MaxOpen is the recipient's maxOpenRelays.
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

// RelayPrefs are the recipient's preferences as the rules read them.
func (s *Core) RelayPrefs(ctx context.Context, tx *db.Tx, userID string) (rules.Preferences, error) {
	pref, err := tx.NetworkPreference.Query().Where(networkpreference.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return rules.Preferences{AmbientEnabled: true}, nil
	}
	if err != nil {
		return rules.Preferences{}, err
	}
	out := rules.Preferences{MutedTopics: pref.MutedTopics, AmbientEnabled: pref.AmbientEnabled}
	if pref.QuietStart != nil && pref.QuietEnd != nil {
		out.QuietHours = rules.QuietHours{Start: *pref.QuietStart, End: *pref.QuietEnd, TimeZone: Deref(pref.QuietTimeZone)}
	}
	return out, nil
}

// relayMessage is an ambient or response relay as a comms message.
func (s *Core) relayMessage(ctx context.Context, tx *db.Tx, userID string, in *Inbound, peer string) error {
	content := fmt.Sprintf("%s (%s): %s", in.FromName, peer, in.Subject)
	meta := map[string]any{"type": commsRelay, "relayId": in.RelayID, "relayType": in.Type}
	if in.ThreadID != nil {
		meta["threadId"] = *in.ThreadID
	}
	if in.ParentID != nil {
		meta["parentRelayId"] = *in.ParentID
	}
	_, err := comms.Post(ctx, tx, s.NowUTC(), userID, content, "network", meta)
	return err
}
