package relays

import (
	"context"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/kanban"
	"github.com/switchboard-hq/switchboard/server/network"
)

// CardChanged is the board's hook (kanban.Service.Changed), in the card
// change's transaction: a card linked to a peer's card sends its new status
// and priority to the peer's instance through the outbox, the connection's
// peer token as the row's credential. A card linked to no active
// connection sends nothing.
func (s *Service) CardChanged(ctx context.Context, tx *db.Tx, before, after *ent.Card) error {
	if after.ExternalCardID == nil || after.ExternalInstanceURL == nil {
		return nil
	}
	c, err := tx.NetworkConnection.Query().Where(networkconnection.UserID(after.UserID),
		networkconnection.PeerInstanceURL(*after.ExternalInstanceURL), networkconnection.StatusEQ(networkconnection.StatusActive)).
		Order(ent.Asc(networkconnection.FieldCreatedAt), ent.Asc(networkconnection.FieldID)).First(ctx)
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
	return s.core.ToPeerInTx(ctx, tx, after.UserID, c, network.EventCardStatus, switchboardv1connect.NetworkSharePeerServiceReceiveCardStatusProcedure,
		&switchboardv1.ReceiveCardStatusRequest{CardId: after.ID, ExternalCardId: *after.ExternalCardID,
			NewStatus: string(after.Status), NewPriority: string(after.Priority), ChangeLog: after.Title + ": " + log})
}

// CardDigest is what the user's linked cards heard from peers since a time,
// newest card first: the digest the assistant or the briefing shows.
func (s *Service) CardDigest(ctx context.Context, userID string, since time.Time) ([]*switchboardv1.KanbanCard, error) {
	return cardDigest(ctx, s.core.DB.Card, userID, since)
}

// cardDigest is CardDigest over cards, the database's or a unit of work's.
func cardDigest(ctx context.Context, cards *ent.CardClient, userID string, since time.Time) ([]*switchboardv1.KanbanCard, error) {
	rows, err := cards.Query().Where(card.UserID(userID), card.ExternalCardIDNotNil(), card.ChangeLogNEQ("[]")).
		Order(ent.Desc(card.FieldUpdatedAt)).All(ctx)
	if err != nil {
		return nil, err
	}
	var out []*switchboardv1.KanbanCard
	for _, k := range rows {
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
