package kanban

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/cardcontact"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/ent/contact"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// checklistChange is what replacing a checklist did.
type checklistChange struct {
	items    []Item               // the new checklist, for the rules
	toggled  []*ent.ChecklistItem // kept items whose completed flag flipped, as saved
	reshaped bool                 // items added, removed, reworded or reordered
}

// replaceChecklist makes list the card's checklist. Entries with an id keep
// that item, with its source fields; an id that is not one of the card's items
// is refused. An entry without an order takes its position in the list.
func replaceChecklist(ctx context.Context, tx *db.Tx, c *ent.Card, existing []*ent.ChecklistItem,
	list []*switchboardv1.ChecklistItemInput, w provenance.Mark, now time.Time) (checklistChange, error) {
	var ch checklistChange
	byID := make(map[string]*ent.ChecklistItem, len(existing))
	for _, it := range existing {
		byID[it.ID] = it
	}
	for _, in := range list {
		if in.Id != nil && byID[in.GetId()] == nil {
			// Another card's item, or none: not found, as a path id.
			return ch, apperr.NotFound("checklist item %q not found on this card", in.GetId())
		}
	}
	kept := map[string]bool{}
	for i, in := range list {
		text, done, order := strings.TrimSpace(in.GetText()), in.GetCompleted(), int32(i)
		if in.Order != nil {
			order = in.GetOrder()
		}
		old := byID[in.GetId()]
		if old == nil {
			create := tx.ChecklistItem.Create().SetUserID(c.UserID).SetCardID(c.ID).SetText(text).
				SetCompleted(done).SetOrder(order).SetCreatedAt(now).SetUpdatedAt(now)
			provenance.SetCreated[checklistitem.CreatedBy, checklistitem.TextBy](create.Mutation(), w)
			if err := create.Exec(ctx); err != nil {
				return ch, fmt.Errorf("kanban: add checklist item: %w", err)
			}
			ch.items = append(ch.items, Item{Completed: done})
			ch.reshaped = true
			continue
		}
		kept[old.ID] = true
		ch.items = append(ch.items, Item{Completed: done, SourceType: deref(old.SourceType)})
		if old.Text == text && old.Order == order && old.Completed == done {
			continue
		}
		upd := tx.ChecklistItem.UpdateOne(old).SetText(text).SetOrder(order).SetCompleted(done).SetUpdatedAt(now)
		setChecklistText(upd.Mutation(), checklistText(old, text, w))
		row, err := upd.Save(ctx)
		if err != nil {
			return ch, fmt.Errorf("kanban: update checklist item: %w", err)
		}
		ch.reshaped = ch.reshaped || old.Text != text || old.Order != order
		if old.Completed != done {
			ch.toggled = append(ch.toggled, row)
		}
	}
	var gone []string
	for _, it := range existing {
		if !kept[it.ID] {
			gone = append(gone, it.ID)
		}
	}
	if len(gone) > 0 {
		if _, err := tx.ChecklistItem.Delete().Where(checklistitem.IDIn(gone...)).Exec(ctx); err != nil {
			return ch, fmt.Errorf("kanban: remove checklist items: %w", err)
		}
		ch.reshaped = true
	}
	return ch, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// ownContacts loads the contacts a card input names; each must be one of the
// account's (another account's contact is as unknown as a missing one: 404).
func ownContacts(ctx context.Context, tx *db.Tx, userID string, list []*switchboardv1.CardContactInput) (map[string]*ent.Contact, error) {
	if len(list) == 0 {
		return nil, nil
	}
	ids := make([]string, len(list))
	for i, c := range list {
		ids[i] = c.GetContactId()
	}
	rows, err := tx.Contact.Query().Where(contact.IDIn(ids...), contact.UserID(userID)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("kanban: load contacts: %w", err)
	}
	out := make(map[string]*ent.Contact, len(rows))
	for _, r := range rows {
		out[r.ID] = r
	}
	for _, id := range ids {
		if out[id] == nil {
			return nil, apperr.NotFound("contact %q not found", id)
		}
	}
	return out, nil
}

// replaceContacts makes list the card's contacts. A contact already on the card
// keeps its link (id and createdAt); it reports whether anything changed.
func replaceContacts(ctx context.Context, tx *db.Tx, c *ent.Card, existing []*ent.CardContact,
	list []*switchboardv1.CardContactInput, contacts map[string]*ent.Contact, now time.Time) (bool, error) {
	byContact := make(map[string]*ent.CardContact, len(existing))
	for _, cc := range existing {
		byContact[cc.ContactID] = cc
	}
	changed := false
	kept := map[string]bool{}
	for _, in := range list {
		role, inv := strings.TrimSpace(in.GetRole()), involvement(in)
		if old := byContact[in.GetContactId()]; old != nil {
			kept[old.ID] = true
			if deref(old.Role) == role && old.Involvement == inv && old.CanDelegate == in.GetCanDelegate() {
				continue
			}
			u := tx.CardContact.UpdateOne(old).SetInvolvement(inv).SetCanDelegate(in.GetCanDelegate())
			if role == "" {
				u.ClearRole()
			} else {
				u.SetRole(role)
			}
			if err := u.Exec(ctx); err != nil {
				return false, fmt.Errorf("kanban: update contact link: %w", err)
			}
			changed = true
			continue
		}
		create := tx.CardContact.Create().SetUserID(c.UserID).SetCardID(c.ID).
			SetContactID(contacts[in.GetContactId()].ID).SetInvolvement(inv).
			SetCanDelegate(in.GetCanDelegate()).SetCreatedAt(now)
		if role != "" {
			create.SetRole(role)
		}
		if err := create.Exec(ctx); err != nil {
			return false, fmt.Errorf("kanban: add contact link: %w", err)
		}
		changed = true
	}
	var gone []string
	for _, cc := range existing {
		if !kept[cc.ID] {
			gone = append(gone, cc.ID)
		}
	}
	if len(gone) > 0 {
		if _, err := tx.CardContact.Delete().Where(cardcontact.IDIn(gone...)).Exec(ctx); err != nil {
			return false, fmt.Errorf("kanban: remove contact links: %w", err)
		}
		changed = true
	}
	return changed, nil
}

// UpdateChecklistItem toggles or edits one checklist item. Closing the card's
// last open item auto-completes the card.
func (s *Service) UpdateChecklistItem(ctx context.Context, req *switchboardv1.UpdateChecklistItemRequest) (*switchboardv1.UpdateChecklistItemResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.Text == nil && req.Completed == nil && req.Order == nil {
		return nil, apperr.Invalid("nothing to change: send text, completed or order")
	}
	if req.Text != nil && strings.TrimSpace(req.GetText()) == "" {
		return nil, apperr.Invalid("text must not be empty")
	}
	if req.GetOrder() < 0 {
		return nil, apperr.Invalid("order must not be negative")
	}
	res := &switchboardv1.UpdateChecklistItemResponse{}
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		var err error
		res.Item, res.CardCompleted, err = s.updateItem(ctx, tx, p, req)
		if isNotFound(err) {
			// Another member's project card: a reviewer's review row.
			owner, rerr := reviewerOf(ctx, tx, p, req)
			if rerr != nil {
				return rerr
			}
			res.Item, res.CardCompleted, err = s.updateItem(ctx, tx, asOwner(p, owner), req)
		}
		return err
	})
	if errors.Is(err, errNoChange) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (s *Service) updateItem(ctx context.Context, tx *db.Tx, p *auth.Principal, req *switchboardv1.UpdateChecklistItemRequest) (*switchboardv1.ChecklistItem, bool, error) {
	if err := LockColumns(ctx, tx, p.UserID); err != nil { // an auto-complete joins a column
		return nil, false, err
	}
	if err := LockChecklist(ctx, tx, p.UserID, req.GetCardId()); err != nil { // the queue appends to it too
		return nil, false, err
	}
	c, err := getCard(ctx, tx.Card, p.UserID, req.GetCardId())
	if err != nil {
		return nil, false, err
	}
	idx := -1
	for i, it := range c.Edges.ChecklistItems {
		if it.ID == req.GetId() {
			idx = i
		}
	}
	if idx < 0 {
		return nil, false, apperr.NotFound("checklist item %q not found on card %q", req.GetId(), c.ID)
	}
	old := c.Edges.ChecklistItems[idx]
	text, done, order := old.Text, old.Completed, old.Order
	if req.Text != nil {
		text = strings.TrimSpace(req.GetText())
	}
	if req.Completed != nil {
		done = req.GetCompleted()
	}
	if req.Order != nil {
		order = req.GetOrder()
	}
	toggled, edited := done != old.Completed, text != old.Text || order != old.Order
	if !toggled && !edited {
		return toChecklistItem(old), false, errNoChange
	}
	now := s.now()
	upd := tx.ChecklistItem.UpdateOne(old).SetText(text).SetCompleted(done).SetOrder(order).SetUpdatedAt(now)
	setChecklistText(upd.Mutation(), checklistText(old, text, provenance.Of(ctx)))
	row, err := upd.Save(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("kanban: update checklist item: %w", err)
	}
	before := items(c.Edges.ChecklistItems)
	after := append([]Item(nil), before...)
	after[idx].Completed = done
	log := cardLog{tx: tx, p: p, card: c, now: now}
	if toggled {
		if err := log.toggled(ctx, row); err != nil {
			return nil, false, err
		}
	}
	if edited {
		if err := log.write(ctx, "card_updated", fmt.Sprintf("Edited checklist item %q on %q", row.Text, c.Title),
			map[string]any{"checklistItemId": row.ID}); err != nil {
			return nil, false, err
		}
	}
	completes := AutoCompletes(string(c.Status), before, after)
	if completes {
		err = autoComplete(ctx, tx, c, p.Actor(), now)
	} else {
		err = tx.Card.UpdateOne(c).SetUpdatedAt(now).SetLastActivityAt(now).Exec(ctx)
	}
	if err != nil {
		return nil, false, fmt.Errorf("kanban: touch card: %w", err)
	}
	return toChecklistItem(row), completes, nil
}

// autoComplete moves the card to the end of the completed column and records
// card_auto_completed.
func autoComplete(ctx context.Context, tx *db.Tx, c *ent.Card, actor string, now time.Time) error {
	order, err := EndOfColumn(ctx, tx, c.UserID, StatusCompleted)
	if err != nil {
		return err
	}
	if err := tx.Card.UpdateOne(c).SetStatus(card.StatusCompleted).SetOrder(order).
		SetUpdatedAt(now).SetLastActivityAt(now).Exec(ctx); err != nil {
		return fmt.Errorf("kanban: auto-complete card: %w", err)
	}
	return writeAutoCompleted(ctx, tx, c, actor, now)
}
