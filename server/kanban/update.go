package kanban

import (
	"context"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// updateCard answers the card as updated, or the card as it was together with
// errNoChange when the input matches it (clearing what is already empty
// changes nothing).
func (s *Service) updateCard(ctx context.Context, tx *db.Tx, p *auth.Principal, id string, in *switchboardv1.CardInput, cl clears) (*switchboardv1.KanbanCardDetail, error) {
	if err := LockColumns(ctx, tx, p.UserID); err != nil {
		return nil, err
	}
	if in.GetChecklist() != nil || cl["checklist"] != nil { // the queue appends to it too
		if err := LockChecklist(ctx, tx, p.UserID, id); err != nil {
			return nil, err
		}
	}
	before, err := getCard(ctx, tx.Card, p.UserID, id)
	if err != nil {
		return nil, err
	}
	contacts, err := ownContacts(ctx, tx, p.UserID, in.GetContacts())
	if err != nil {
		return nil, err
	}
	if err := checkParent(ctx, tx, p.UserID, before.ID, in); err != nil {
		return nil, err
	}
	if err := checkProject(ctx, tx, p.UserID, in, before.ProjectID); err != nil {
		return nil, err
	}
	now := s.now()
	upd := tx.Card.UpdateOne(before)
	if err := applyInput(upd.Mutation(), in, cl); err != nil {
		return nil, err
	}
	w := provenance.Of(ctx)
	setCardText(upd.Mutation(), cardText(before, upd.Mutation(), w))
	moved := in.Status != nil && in.GetStatus() != string(before.Status)
	if moved && in.Order == nil {
		if err := toEndOf(ctx, tx, upd, p.UserID, in.GetStatus()); err != nil {
			return nil, err
		}
	}
	// A cleared list is replaced by an empty one (parseClears refused a
	// non-empty list named in clearFields).
	var ch checklistChange
	if len(in.GetChecklist()) > 0 || cl["checklist"] != nil {
		if ch, err = replaceChecklist(ctx, tx, before, before.Edges.ChecklistItems, in.GetChecklist(), w, now); err != nil {
			return nil, err
		}
	}
	contactsChanged := false
	if len(in.GetContacts()) > 0 || cl["contacts"] != nil {
		if contactsChanged, err = replaceContacts(ctx, tx, before, before.Edges.CardContacts, in.GetContacts(), contacts, now); err != nil {
			return nil, err
		}
	}
	// An explicit status in the same request is the caller's decision; the
	// rule only fills the gap. A cleared checklist leaves no item to close, so
	// it never completes the card.
	autoDone := in.Status == nil && len(in.GetChecklist()) > 0 &&
		AutoCompletes(string(before.Status), items(before.Edges.ChecklistItems), ch.items)
	if autoDone {
		upd.SetStatus(card.StatusCompleted)
		if err := toEndOf(ctx, tx, upd, p.UserID, StatusCompleted); err != nil {
			return nil, err
		}
	}
	if _, err := upd.SetUpdatedAt(now).SetLastActivityAt(now).Save(ctx); err != nil {
		return nil, fmt.Errorf("kanban: update card: %w", err)
	}
	after, err := getCard(ctx, tx.Card, p.UserID, id)
	if err != nil {
		return nil, err
	}
	fields := changedFields(toCardFields(before), toCardFields(after), moved || autoDone)
	if ch.reshaped {
		fields = append(fields, "checklist")
	}
	if contactsChanged {
		fields = append(fields, "contacts")
	}
	if !moved && !autoDone && len(fields) == 0 && len(ch.toggled) == 0 {
		d, err := toCardDetail(before)
		if err != nil {
			return nil, err
		}
		return d, errNoChange
	}
	if before.Status != after.Status || before.Priority != after.Priority {
		if err := tx.Publish(ctx, CardChanged{Before: before, After: after}); err != nil {
			return nil, err
		}
		if err := tellLinked(ctx, tx, before, after, now); err != nil {
			return nil, fmt.Errorf("kanban: tell linked cards: %w", err)
		}
	}
	log := cardLog{tx: tx, p: p, card: after, now: now}
	if moved {
		if err := log.moved(ctx, string(before.Status), string(after.Status)); err != nil {
			return nil, err
		}
	}
	for _, it := range ch.toggled {
		if err := log.toggled(ctx, it); err != nil {
			return nil, err
		}
	}
	if len(fields) > 0 {
		if err := log.write(ctx, "card_updated", fmt.Sprintf("Updated %q: %s", after.Title, strings.Join(fields, ", ")),
			map[string]any{"fields": fields}); err != nil {
			return nil, err
		}
	}
	if autoDone {
		if err := log.autoCompleted(ctx); err != nil {
			return nil, err
		}
	}
	return toCardDetail(after)
}

func toEndOf(ctx context.Context, tx *db.Tx, upd *ent.CardUpdateOne, userID, status string) error {
	order, err := EndOfColumn(ctx, tx, userID, status)
	if err != nil {
		return err
	}
	upd.SetOrder(order)
	return nil
}

// ignoredInDiff are the fields an update changes by itself, or that are
// reported on their own (status as card_moved, the lists by replaceChecklist
// and replaceContacts).
var ignoredInDiff = map[protoreflect.Name]bool{
	"updated_at": true, "last_activity_at": true, "status": true,
	"checklist": true, "contacts": true, "pending_review": true,
	"items_awaiting_approval": true,
}

// changedFields names (in JSON) the fields whose value differs. When the card
// moved, its order is part of the move, not a change of its own.
func changedFields(before, after *switchboardv1.KanbanCard, moved bool) []string {
	b, a := before.ProtoReflect(), after.ProtoReflect()
	var out []string
	fds := b.Descriptor().Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if ignoredInDiff[fd.Name()] || (moved && fd.Name() == "order") {
			continue
		}
		if b.Has(fd) != a.Has(fd) || !b.Get(fd).Equal(a.Get(fd)) {
			out = append(out, fd.JSONName())
		}
	}
	return out
}

// cardLog writes activity for one card, in the caller's transaction.
type cardLog struct {
	tx   *db.Tx
	p    *auth.Principal
	card *ent.Card
	now  time.Time
}

func (l cardLog) write(ctx context.Context, action, summary string, meta map[string]any) error {
	return activity.Write(ctx, l.tx, activity.Entry{
		UserID: l.card.UserID, Action: action, Actor: l.p.Actor(), Summary: summary,
		CardID: l.card.ID, Metadata: meta, At: l.now,
	})
}

func (l cardLog) moved(ctx context.Context, from, to string) error {
	return l.write(ctx, "card_moved", fmt.Sprintf("Moved %q from %s to %s", l.card.Title, from, to),
		map[string]any{"from": from, "to": to})
}

func (l cardLog) toggled(ctx context.Context, it *ent.ChecklistItem) error {
	action, verb := "checklist_unchecked", "Unchecked"
	if it.Completed {
		action, verb = "checklist_completed", "Checked"
	}
	return l.write(ctx, action, fmt.Sprintf("%s %q on %q", verb, it.Text, l.card.Title),
		map[string]any{"checklistItemId": it.ID})
}

func (l cardLog) autoCompleted(ctx context.Context) error {
	return writeAutoCompleted(ctx, l.tx, l.card, l.p.Actor(), l.now)
}

func writeAutoCompleted(ctx context.Context, tx *db.Tx, c *ent.Card, actor string, now time.Time) error {
	return activity.Write(ctx, tx, activity.Entry{
		UserID: c.UserID, Action: "card_auto_completed", Actor: actor, CardID: c.ID, At: now,
		Summary: fmt.Sprintf("Completed %q: every checklist item is done", c.Title),
	})
}
