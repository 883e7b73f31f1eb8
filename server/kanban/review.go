package kanban

import (
	"context"
	"errors"

	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/membership"
)

// reviewerOf answers the owner of another account's card whose review row
// p may complete (RULINGS "Teams, projects, invites, profiles": a
// project's reviewer, and its lead, complete queue_review items on the
// project's cards): the card is in a project p is the lead or a reviewer
// of, the row is a queue_review row, and the request only completes or
// reopens it. Another account's card outside p's projects stays 404; a
// member without the right, or a change beyond completing, is 403.
func reviewerOf(ctx context.Context, tx *db.Tx, p *auth.Principal, req *switchboardv1.UpdateChecklistItemRequest) (string, error) {
	notFound := apperr.NotFound("card %q not found", req.GetCardId())
	c, err := tx.Card.Query().Where(card.ID(req.GetCardId()), card.ProjectIDNotNil()).
		Select(card.FieldUserID, card.FieldProjectID).Only(ctx)
	if err != nil {
		return "", notFound
	}
	role, _, err := membership.ProjectRole(ctx, tx.Client(), *c.ProjectID, p.UserID)
	if err != nil {
		return "", err
	}
	if role == "" {
		return "", notFound
	}
	row, err := tx.ChecklistItem.Query().Where(checklistitem.ID(req.GetId()), checklistitem.CardID(c.ID)).
		Select(checklistitem.FieldSourceType).Only(ctx)
	if err != nil {
		return "", apperr.NotFound("checklist item %q not found on card %q", req.GetId(), c.ID)
	}
	switch {
	case role != string(vocab.ProjectRoleLead) && role != string(vocab.ProjectRoleReviewer):
		return "", apperr.Forbidden("a project %s may not change another member's card", role)
	case row.SourceType == nil || *row.SourceType != sourceQueueReview || req.Text != nil || req.Order != nil:
		return "", apperr.Forbidden("on another member's card a project %s may only complete its review items", role)
	}
	return c.UserID, nil
}

// leadOf answers the owner of another account's card that p leads the
// project of (RULINGS: project cards are edited by their owner or the
// lead). Another account's card outside p's projects stays 404; a member
// but the lead is 403.
func leadOf(ctx context.Context, tx *db.Tx, p *auth.Principal, cardID string) (string, error) {
	notFound := apperr.NotFound("card %q not found", cardID)
	c, err := tx.Card.Query().Where(card.ID(cardID), card.ProjectIDNotNil()).
		Select(card.FieldUserID, card.FieldProjectID).Only(ctx)
	if err != nil {
		return "", notFound
	}
	role, _, err := membership.ProjectRole(ctx, tx.Client(), *c.ProjectID, p.UserID)
	switch {
	case err != nil:
		return "", err
	case role == "":
		return "", notFound
	case role != string(vocab.ProjectRoleLead):
		return "", apperr.Forbidden("a project %s may not change another member's card; its owner or the lead may", role)
	}
	return c.UserID, nil
}

// sourceQueueReview is the bridge's review rows' source (server/queue).
const sourceQueueReview = "queue_review"

// asOwner is p acting on owner's card: the owner's account, p's name.
func asOwner(p *auth.Principal, owner string) *auth.Principal {
	q := *p
	q.UserID = owner
	return &q
}

func isNotFound(err error) bool {
	var e *apperr.Error
	return errors.As(err, &e) && e.Kind == apperr.KindNotFound
}
