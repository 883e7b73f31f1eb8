package kanban

import (
	"context"
	"errors"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/membership"
)

// projectCard is another account's card in a project and p's role in
// that project: a card outside p's projects (or none) is 404, as any other
// account's card is.
func projectCard(ctx context.Context, tx *db.Tx, p *auth.Principal, cardID string) (owner, role string, err error) {
	notFound := apperr.NotFound("card %q not found", cardID)
	c, err := tx.Card.Query().Where(card.ID(cardID), card.ProjectIDNotNil()).
		Select(card.FieldUserID, card.FieldProjectID).Only(ctx)
	if ent.IsNotFound(err) {
		return "", "", notFound
	} else if err != nil {
		return "", "", err
	}
	if role, _, err = membership.ProjectRole(ctx, tx.Client(), *c.ProjectID, p.UserID); err != nil {
		return "", "", err
	}
	if role == "" {
		return "", "", notFound
	}
	return c.UserID, role, nil
}

// reviewerOf answers the owner of another account's card whose review row
// p may complete (RULINGS "Teams, projects, invites, profiles": a
// project's reviewer, and its lead, complete queue_review items on the
// project's cards): the row is a queue_review row and the request only
// completes or reopens it. A member without the right, or a change beyond
// completing, is 403.
func reviewerOf(ctx context.Context, tx *db.Tx, p *auth.Principal, req *switchboardv1.UpdateChecklistItemRequest) (string, error) {
	owner, role, err := projectCard(ctx, tx, p, req.GetCardId())
	if err != nil {
		return "", err
	}
	row, err := tx.ChecklistItem.Query().Where(checklistitem.ID(req.GetId()), checklistitem.CardID(req.GetCardId())).
		Select(checklistitem.FieldSourceType).Only(ctx)
	if ent.IsNotFound(err) {
		return "", apperr.NotFound("checklist item %q not found on card %q", req.GetId(), req.GetCardId())
	} else if err != nil {
		return "", err
	}
	switch {
	case role != string(vocab.ProjectRoleLead) && role != string(vocab.ProjectRoleReviewer):
		return "", apperr.Forbidden("a project %s may not change another member's card", role)
	case row.SourceType == nil || *row.SourceType != SourceQueueReview || req.Text != nil || req.Order != nil:
		return "", apperr.Forbidden("on another member's card a project %s may only complete its review items", role)
	}
	return owner, nil
}

// leadOf answers the owner of another account's card that p leads the
// project of (RULINGS: project cards are edited by their owner or the
// lead); another member there is 403.
func leadOf(ctx context.Context, tx *db.Tx, p *auth.Principal, cardID string) (string, error) {
	owner, role, err := projectCard(ctx, tx, p, cardID)
	if err != nil {
		return "", err
	}
	if role != string(vocab.ProjectRoleLead) {
		return "", apperr.Forbidden("a project %s may not change another member's card; its owner or the lead may", role)
	}
	return owner, nil
}

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
