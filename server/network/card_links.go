package network

import (
	"context"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/kanban"
)

// EventCardStatus names the outbox rows that carry card-status updates.
const EventCardStatus = "card.status"

// ChangeLogLimit is how many entries a linked card's change log keeps
// (RULINGS "The operator network": Card links, at most 20).
const ChangeLogLimit = kanban.ChangeLogLimit

// linkCard links the local user's card to the peer's (RULINGS "The
// operator network": Card links): a card sent as a relay, or one a
// request relay became. No local card, or none of the user's: nothing.
func linkCard(ctx context.Context, tx *db.Tx, userID string, local, external *string, c *ent.NetworkConnection) error {
	if local == nil || *local == "" {
		return nil
	}
	_, err := tx.Card.Update().Where(card.ID(*local), card.UserID(userID)).
		SetNillableExternalCardID(external).SetExternalInstanceURL(c.PeerInstanceURL).Save(ctx)
	return err
}

// CardChanged is the board's hook (kanban.Service.Changed), in the card
// change's transaction: a card linked to a peer's card sends its new status
// and priority to the peer's instance through the outbox, the connection's
// peer token as the row's credential. A card linked to no active
// connection sends nothing.
func (s *Relays) CardChanged(ctx context.Context, tx *db.Tx, before, after *ent.Card) error {
	if after.ExternalCardID == nil || after.ExternalInstanceURL == nil {
		return nil
	}
	c, err := tx.NetworkConnection.Query().Where(networkconnection.UserID(after.UserID),
		networkconnection.PeerInstanceURL(*after.ExternalInstanceURL), networkconnection.StatusEQ(networkconnection.StatusActive)).
		Order(ent.Asc(networkconnection.FieldCreatedAt)).First(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	log := "priority " + string(before.Priority) + " → " + string(after.Priority)
	if before.Status != after.Status {
		log = "status " + string(before.Status) + " → " + string(after.Status)
		if before.Priority != after.Priority {
			log += ", priority " + string(before.Priority) + " → " + string(after.Priority)
		}
	}
	return s.core.toPeerInTx(ctx, tx, after.UserID, c, EventCardStatus, switchboardv1connect.NetworkSharePeerServiceReceiveCardStatusProcedure,
		&switchboardv1.ReceiveCardStatusRequest{CardId: after.ID, ExternalCardId: *after.ExternalCardID,
			NewStatus: string(after.Status), NewPriority: string(after.Priority), ChangeLog: after.Title + ": " + log})
}

// ReceiveCardStatus adds the peer's change of a linked card to the local
// card's change log, silently (no activity, no notification; the card's own
// status and priority stay): at most ChangeLogLimit entries, the oldest
// dropped. The card must be the connection's user's and linked to the
// sender's card on the sender's instance (else 404).
func (s *Peers) ReceiveCardStatus(ctx context.Context, req *switchboardv1.ReceiveCardStatusRequest) (*switchboardv1.ReceiveCardStatusResponse, error) {
	var body error
	if strings.TrimSpace(req.GetCardId()) == "" || strings.TrimSpace(req.GetExternalCardId()) == "" {
		body = apperr.Invalid("cardId and externalCardId are required")
	}
	c, err := s.core.fromActivePeer(ctx, "card-status", body)
	if err != nil {
		return nil, err
	}
	n, err := db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (int, error) {
		return kanban.AppendChange(ctx, tx, req.GetExternalCardId(), func(ctx context.Context) (*ent.Card, error) {
			k, err := tx.Card.Query().Where(card.ID(req.GetExternalCardId()), card.UserID(c.UserID),
				card.ExternalInstanceURL(c.PeerInstanceURL), card.ExternalCardID(req.GetCardId())).Only(ctx)
			if ent.IsNotFound(err) {
				return nil, apperr.NotFound("no card %q here is linked to your card %q", req.GetExternalCardId(), req.GetCardId())
			}
			return k, err
		}, &switchboardv1.CardChange{ExternalCardId: req.GetCardId(), NewStatus: req.GetNewStatus(),
			NewPriority: req.GetNewPriority(), ChangeLog: req.GetChangeLog(), From: handle.Peer(c.PeerUserEmail, c.PeerInstanceURL),
			ReceivedAt: timestamppb.New(s.core.now().Truncate(time.Microsecond))})
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ReceiveCardStatusResponse{Entries: int32(n)}, nil
}

// CardDigest is what the user's linked cards heard from peers since a time,
// newest card first: the digest the assistant or the briefing shows.
func (s *Relays) CardDigest(ctx context.Context, userID string, since time.Time) ([]*switchboardv1.KanbanCard, error) {
	cards, err := s.core.DB.Card.Query().Where(card.UserID(userID), card.ExternalCardIDNotNil(), card.ChangeLogNEQ("[]")).
		Order(ent.Desc(card.FieldUpdatedAt)).All(ctx)
	if err != nil {
		return nil, err
	}
	var out []*switchboardv1.KanbanCard
	for _, k := range cards {
		var fresh []*switchboardv1.CardChange
		for _, e := range kanban.ChangeLog(k) {
			if e.GetReceivedAt().AsTime().After(since) {
				fresh = append(fresh, e)
			}
		}
		if len(fresh) > 0 {
			out = append(out, &switchboardv1.KanbanCard{Id: k.ID, Title: k.Title, Status: string(k.Status),
				Priority: string(k.Priority), ChangeLog: fresh})
		}
	}
	return out, nil
}
