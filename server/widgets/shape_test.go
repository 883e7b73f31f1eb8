package widgets

import (
	"strings"
	"testing"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

func item(id, label string, actions ...string) *switchboardv1.AgentWidgetItem {
	return &switchboardv1.AgentWidgetItem{Id: id, Label: label, Actions: actions}
}

func widget(typ string, items ...*switchboardv1.AgentWidgetItem) *switchboardv1.AgentWidgetData {
	return &switchboardv1.AgentWidgetData{Type: typ, Title: "Title", Items: items}
}

// Each widget type's shape: what holds and what is refused, naming the field.
func TestCheckShape(t *testing.T) {
	for _, tc := range []struct {
		name   string
		w      *switchboardv1.AgentWidgetData
		naming string // "" when it holds
	}{
		{"info card", widget("info_card", item("1", "Finding")), ""},
		{"info card with actions", widget("info_card", item("1", "Finding", "open")), ""},
		{"choice card", widget("choice_card", item("a", "A", "select"), item("b", "B", "select")), ""},
		{"action list", widget("action_list", item("1", "Patch", "approve", "decline")), ""},
		{"payment prompt", widget("payment_prompt", item("quote", "$5", "decline", "approve")), ""},
		{"absent", nil, "w is required"},
		{"no type", widget("", item("1", "a")), "w.type is required"},
		{"unknown type", widget("banner", item("1", "a")), "w.type"},
		{"blank title", &switchboardv1.AgentWidgetData{Type: "info_card", Title: " ", Items: []*switchboardv1.AgentWidgetItem{item("1", "a")}}, "w.title"},
		{"no items", widget("info_card"), "w.items is required"},
		{"blank id", widget("info_card", item(" ", "a")), "w.items[0].id"},
		{"repeated id", widget("info_card", item("1", "a"), item("1", "b")), "w.items[1].id"},
		{"blank label", widget("info_card", item("1", "")), "w.items[0].label"},
		{"blank action", widget("info_card", item("1", "a", "")), "w.items[0].actions[0]"},
		{"repeated action", widget("action_list", item("1", "a", "go", "go")), "w.items[0].actions[1]"},
		{"one choice", widget("choice_card", item("a", "A", "select")), "w.items"},
		{"choice without action", widget("choice_card", item("a", "A", "select"), item("b", "B")), "w.items[1].actions"},
		{"list item without action", widget("action_list", item("1", "a")), "w.items[0].actions"},
		{"two prices", widget("payment_prompt", item("a", "$5", "approve", "decline"), item("b", "$6", "approve", "decline")), "w.items"},
		{"prompt without decline", widget("payment_prompt", item("q", "$5", "approve")), "w.items[0].actions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckShape("w", tc.w)
			if tc.naming == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e := apperr.From(err)
			if err == nil || e.Kind != apperr.KindInvalid || !strings.Contains(e.Message, tc.naming) {
				t.Fatalf("CheckShape = %v, want a 400 naming %q", err, tc.naming)
			}
		})
	}
}
