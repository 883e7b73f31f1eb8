package network

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/kanban"
)

// ChangeLogLimit is how many entries a linked card's change log keeps
// (RULINGS "The operator network": Card links, at most 20).
const ChangeLogLimit = kanban.ChangeLogLimit

// LinkCard links the local user's card to the peer's (RULINGS "The
// operator network": Card links): a card sent as a relay, or one a
// request relay became. No local card, or none of the user's: nothing.
func LinkCard(ctx context.Context, tx *db.Tx, userID string, local, external *string, c *ent.NetworkConnection) error {
	if local == nil || *local == "" {
		return nil
	}
	_, err := tx.Card.Update().Where(card.ID(*local), card.UserID(userID)).
		SetNillableExternalCardID(external).SetExternalInstanceURL(c.PeerInstanceURL).Save(ctx)
	return err
}
