package widgets

import (
	"fmt"
	"slices"
	"strings"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// Types are AgentWidgetData's types; quoteActions the two a payment prompt
// offers (the store's quote decision).
var (
	Types        = vocab.Values("widget_type")
	quoteActions = vocab.Values("quote_action")
)

// CheckShape refuses a widget that does not hold together as its type asks,
// naming the field under at (such as "widget"): the type is one of the
// widget types, the title and every item's id (unique) and label are set,
// and each type has the items it needs:
//   - info_card: at least one item; actions optional.
//   - choice_card: at least two items, each offering an action (the choice).
//   - action_list: at least one item, each offering an action.
//   - payment_prompt: exactly one item offering approve and decline.
//
// The contract bounds the lengths and counts and the layout's values.
func CheckShape(at string, w *switchboardv1.AgentWidgetData) error {
	if w == nil {
		return apperr.Invalid("%s is required", at)
	}
	if w.GetType() == "" {
		return apperr.Invalid("%s.type is required: one of %s", at, strings.Join(Types, ", "))
	}
	if !slices.Contains(Types, w.GetType()) {
		return apperr.OneOf(at+".type", w.GetType(), Types)
	}
	if strings.TrimSpace(w.GetTitle()) == "" {
		return apperr.Invalid("%s.title is required", at)
	}
	if err := checkItems(at, w.GetItems()); err != nil {
		return err
	}
	items := w.GetItems()
	switch vocab.WidgetType(w.GetType()) {
	case vocab.WidgetTypeChoiceCard:
		if len(items) < 2 {
			return apperr.Invalid("%s.items: a choice_card offers at least 2 items to choose from, not %d", at, len(items))
		}
		return everyItemActs(at, items, "a choice_card's item offers the action that chooses it")
	case vocab.WidgetTypeActionList:
		return everyItemActs(at, items, "an action_list's item offers at least one action")
	case vocab.WidgetTypePaymentPrompt:
		if len(items) != 1 {
			return apperr.Invalid("%s.items: a payment_prompt has exactly 1 item (the price), not %d", at, len(items))
		}
		for _, want := range quoteActions {
			if !slices.Contains(items[0].GetActions(), want) {
				return apperr.Invalid("%s.items[0].actions: a payment_prompt's item offers %s", at, strings.Join(quoteActions, " and "))
			}
		}
	}
	return nil
}

// checkItems: at least one item, each with a unique id and a label, and
// actions that are not blank or repeated.
func checkItems(at string, items []*switchboardv1.AgentWidgetItem) error {
	if len(items) == 0 {
		return apperr.Invalid("%s.items is required: at least one item", at)
	}
	seen := map[string]bool{}
	for i, it := range items {
		where := fmt.Sprintf("%s.items[%d]", at, i)
		id := strings.TrimSpace(it.GetId())
		switch {
		case id == "":
			return apperr.Invalid("%s.id is required", where)
		case seen[id]:
			return apperr.Invalid("%s.id %q repeats an earlier item's", where, id)
		case strings.TrimSpace(it.GetLabel()) == "":
			return apperr.Invalid("%s.label is required", where)
		}
		seen[id] = true
		for j, a := range it.GetActions() {
			if strings.TrimSpace(a) == "" {
				return apperr.Invalid("%s.actions[%d] is blank", where, j)
			}
			if slices.Contains(it.GetActions()[:j], a) {
				return apperr.Invalid("%s.actions[%d] %q is listed twice", where, j, a)
			}
		}
	}
	return nil
}

func everyItemActs(at string, items []*switchboardv1.AgentWidgetItem, why string) error {
	for i, it := range items {
		if len(it.GetActions()) == 0 {
			return apperr.Invalid("%s.items[%d].actions is required: %s", at, i, why)
		}
	}
	return nil
}
