package kanban

import (
	"context"
	"fmt"

	"github.com/switchboard-hq/switchboard/ent/card"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/membership"
)

// checkProject refuses filing a card under a project the caller may not
// file in (server/membership); current is the card's project before
// an update, which is not checked again.
func checkProject(ctx context.Context, tx *db.Tx, userID string, in *switchboardv1.CardInput, current *string) error {
	if in.ProjectId == nil || in.GetProjectId() == "" || (current != nil && *current == in.GetProjectId()) {
		return nil
	}
	return membership.CheckFile(ctx, tx.Client(), userID, in.GetProjectId())
}

// checkParent refuses a parentCardId that names no card of the caller's, as a
// path id is refused (docs/decisions.md, "Input at the boundary"); self is the
// card being changed ("" on create), which cannot be its own parent.
func checkParent(ctx context.Context, tx *db.Tx, userID, self string, in *switchboardv1.CardInput) error {
	id := in.GetParentCardId()
	if id == "" {
		return nil
	}
	if id == self {
		return apperr.Invalid("parentCardId: a card cannot be its own parent")
	}
	ok, err := tx.Card.Query().Where(card.ID(id), card.UserID(userID)).Exist(ctx)
	if err != nil {
		return fmt.Errorf("kanban: parent card: %w", err)
	}
	if !ok {
		return apperr.NotFound("parentCardId: card %q not found", id)
	}
	return nil
}
