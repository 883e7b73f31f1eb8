package kanban

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/cardcontact"
	"github.com/switchboard-hq/switchboard/ent/cardlink"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
)

// The board scan's changes (server/board), made here so that a card changes
// only through the board's own rules: each in the caller's unit of work,
// with its activity.

// Escalate sets c urgent (the board scan's auto_escalate), telling its
// linked cards as a priority change does, with activity card_updated. It
// answers false when c was already urgent.
func Escalate(ctx context.Context, tx *db.Tx, c *ent.Card, actor string, now time.Time) (bool, error) {
	if c.Priority == card.PriorityUrgent {
		return false, nil
	}
	after, err := tx.Card.UpdateOne(c).SetPriority(card.PriorityUrgent).SetUpdatedAt(now).SetLastActivityAt(now).Save(ctx)
	if err != nil {
		return false, fmt.Errorf("kanban: escalate %s: %w", c.ID, err)
	}
	if err := tx.Publish(ctx, CardChanged{Before: c, After: after}); err != nil {
		return false, err
	}
	if err := tellLinked(ctx, tx, c, after, now); err != nil {
		return false, fmt.Errorf("kanban: tell linked cards: %w", err)
	}
	return true, activity.Write(ctx, tx, activity.Entry{
		UserID: c.UserID, Action: "card_updated", Actor: actor, CardID: c.ID, At: now,
		Summary:  fmt.Sprintf("Updated %q: priority (due soon with little done)", c.Title),
		Metadata: map[string]any{"fields": []string{"priority"}, "from": string(c.Priority), "to": "urgent", "reason": "auto_escalate"},
	})
}

// Archive archives c (an applied archive_candidate or merge), with
// activity card_updated.
func Archive(ctx context.Context, tx *db.Tx, c *ent.Card, actor, why string, now time.Time) error {
	if err := tx.Card.UpdateOne(c).SetIsArchived(true).SetUpdatedAt(now).Exec(ctx); err != nil {
		return fmt.Errorf("kanban: archive %s: %w", c.ID, err)
	}
	return activity.Write(ctx, tx, activity.Entry{
		UserID: c.UserID, Action: "card_updated", Actor: actor, CardID: c.ID, At: now,
		Summary:  fmt.Sprintf("Archived %q: %s", c.Title, why),
		Metadata: map[string]any{"fields": []string{"isArchived"}},
	})
}

// MergeInto moves source's checklist items, contacts and links onto target
// and archives source (an applied merge_suggestion). The rows' card ids are
// immutable, so each moves as a new row on target and the old one goes.
// A contact already on target, and a link target already has to the same
// card or one between the two cards, are dropped rather than doubled.
func MergeInto(ctx context.Context, tx *db.Tx, source, target *ent.Card, actor string, now time.Time) error {
	if err := LockChecklist(ctx, tx, target.UserID, target.ID); err != nil {
		return err
	}
	items, err := tx.ChecklistItem.Query().Where(checklistitem.CardID(source.ID)).
		Order(ent.Asc(checklistitem.FieldOrder), ent.Asc(checklistitem.FieldCreatedAt), ent.Asc(checklistitem.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	last, err := tx.ChecklistItem.Query().Where(checklistitem.CardID(target.ID)).
		Order(ent.Desc(checklistitem.FieldOrder)).First(ctx)
	next := int32(0)
	switch {
	case err == nil:
		next = last.Order + 1
	case !ent.IsNotFound(err):
		return err
	}
	for _, it := range items {
		create := tx.ChecklistItem.Create().SetUserID(target.UserID).SetCardID(target.ID).SetText(it.Text).
			SetCompleted(it.Completed).SetOrder(next).SetNillableSummary(it.Summary).SetNillableBrief(it.Brief).
			SetNillableDueDate(it.DueDate).SetNillableSourceType(it.SourceType).SetNillableSourceID(it.SourceID).
			SetNillableSourceLabel(it.SourceLabel).SetNillableAssigneeType(it.AssigneeType).
			SetNillableAssigneeName(it.AssigneeName).SetNillableAssigneeID(it.AssigneeID).
			SetNillableDelegationStatus(it.DelegationStatus).SetNillableChildCardID(it.ChildCardID).
			SetCreatedBy(it.CreatedBy).SetNillableCreatedByRef(it.CreatedByRef).
			SetTextBy(it.TextBy).SetNillableTextByRef(it.TextByRef).
			SetCreatedAt(it.CreatedAt).SetUpdatedAt(now)
		if err := create.Exec(ctx); err != nil {
			return fmt.Errorf("kanban: move checklist item: %w", err)
		}
		next++
	}
	if _, err := tx.ChecklistItem.Delete().Where(checklistitem.CardID(source.ID)).Exec(ctx); err != nil {
		return err
	}
	if err := moveContacts(ctx, tx, source, target); err != nil {
		return err
	}
	if err := moveLinks(ctx, tx, source, target); err != nil {
		return err
	}
	if err := tx.Card.UpdateOneID(target.ID).SetUpdatedAt(now).SetLastActivityAt(now).Exec(ctx); err != nil {
		return err
	}
	if err := activity.Write(ctx, tx, activity.Entry{
		UserID: target.UserID, Action: "card_updated", Actor: actor, CardID: target.ID, At: now,
		Summary:  fmt.Sprintf("Merged %q into %q: %d checklist items", source.Title, target.Title, len(items)),
		Metadata: map[string]any{"fields": []string{"checklist", "contacts"}, "mergedFrom": source.ID},
	}); err != nil {
		return err
	}
	return Archive(ctx, tx, source, actor, fmt.Sprintf("merged into %q", target.Title), now)
}

func moveContacts(ctx context.Context, tx *db.Tx, source, target *ent.Card) error {
	have, err := tx.CardContact.Query().Where(cardcontact.CardID(target.ID)).All(ctx)
	if err != nil {
		return err
	}
	on := map[string]bool{}
	for _, cc := range have {
		on[cc.ContactID] = true
	}
	moving, err := tx.CardContact.Query().Where(cardcontact.CardID(source.ID)).
		Order(ent.Asc(cardcontact.FieldCreatedAt), ent.Asc(cardcontact.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	for _, cc := range moving {
		if on[cc.ContactID] {
			continue
		}
		on[cc.ContactID] = true
		if err := tx.CardContact.Create().SetUserID(target.UserID).SetCardID(target.ID).SetContactID(cc.ContactID).
			SetNillableRole(cc.Role).SetInvolvement(cc.Involvement).SetCanDelegate(cc.CanDelegate).
			SetCreatedAt(cc.CreatedAt).Exec(ctx); err != nil {
			return fmt.Errorf("kanban: move contact: %w", err)
		}
	}
	_, err = tx.CardContact.Delete().Where(cardcontact.CardID(source.ID)).Exec(ctx)
	return err
}

func moveLinks(ctx context.Context, tx *db.Tx, source, target *ent.Card) error {
	linked := func(id string) ([]*ent.CardLink, error) {
		return tx.CardLink.Query().Where(cardlink.Or(cardlink.FromCardID(id), cardlink.ToCardID(id))).
			Order(ent.Asc(cardlink.FieldCreatedAt), ent.Asc(cardlink.FieldID)).All(ctx)
	}
	have, err := linked(target.ID)
	if err != nil {
		return err
	}
	other := func(l *ent.CardLink, self string) string {
		if l.FromCardID == self {
			return l.ToCardID
		}
		return l.FromCardID
	}
	with := map[string]bool{source.ID: true, target.ID: true}
	for _, l := range have {
		with[other(l, target.ID)] = true
	}
	moving, err := linked(source.ID)
	if err != nil {
		return err
	}
	for _, l := range moving {
		o := other(l, source.ID)
		if with[o] {
			continue
		}
		with[o] = true
		from, to := target.ID, o
		if l.ToCardID == source.ID {
			from, to = o, target.ID
		}
		if err := tx.CardLink.Create().SetUserID(l.UserID).SetFromCardID(from).SetToCardID(to).
			SetLinkType(l.LinkType).SetCreatedAt(l.CreatedAt).Exec(ctx); err != nil {
			return fmt.Errorf("kanban: move link: %w", err)
		}
	}
	_, err = tx.CardLink.Delete().Where(cardlink.Or(cardlink.FromCardID(source.ID), cardlink.ToCardID(source.ID))).Exec(ctx)
	return err
}
