package widgets

import (
	"strings"
	"testing"
	"time"
)

func ptr(s string) *string { return &s }

// RULINGS "A2A" (widgets): which responses a widget accepts, decided from
// the item's metadata alone.
func TestDecide(t *testing.T) {
	meta := map[string]any{
		"widgets": []any{
			map[string]any{"type": "payment_prompt", "title": "Pay", "items": []any{
				map[string]any{"id": "pay", "label": "Pay 5 EUR", "actions": []any{"approve", "decline"}},
			}},
			map[string]any{"id": "pick", "type": "choice_card", "title": "Pick", "items": []any{
				map[string]any{"id": "a", "label": "A"},
			}},
		},
		"widgetResponseUrl": "https://agent.example.com/widgets",
		"intent":            "pay",
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		name     string
		r        Response
		refused  string // "" when accepted
		complete bool
	}{
		{"the first widget by position, a terminal action", Response{WidgetID: "0", WidgetItemID: ptr("pay"), Action: "approve"}, "", true},
		{"decline is terminal", Response{WidgetID: "0", WidgetItemID: ptr("pay"), Action: "decline"}, "", true},
		{"submit is terminal", Response{WidgetID: "pick", Action: "submit"}, "", true},
		{"a widget by its id, a row without actions", Response{WidgetID: "pick", WidgetItemID: ptr("a"), Action: "select"}, "", false},
		{"a widget with an id is not found by its position", Response{WidgetID: "1", Action: "select"}, "not found", false},
		{"an unknown widget", Response{WidgetID: "nope", Action: "approve"}, "not found", false},
		{"an unknown row", Response{WidgetID: "0", WidgetItemID: ptr("card"), Action: "approve"}, "no row", false},
		{"an action the row does not list", Response{WidgetID: "0", WidgetItemID: ptr("pay"), Action: "later"}, "action", false},
	} {
		c.r.ItemID, c.r.At, c.r.Payload = "item1", at, map[string]any{"k": "v"}
		plan, err := Decide(meta, c.r)
		if c.refused != "" {
			if err == nil || !strings.Contains(err.Error(), c.refused) {
				t.Errorf("%s: %v, want a refusal with %q", c.name, err, c.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if plan.Complete != c.complete || plan.ForwardURL != "https://agent.example.com/widgets" {
			t.Errorf("%s: plan %+v", c.name, plan)
		}
		list, _ := plan.Metadata["widgetResponses"].([]any)
		if len(list) != 1 || plan.Metadata["intent"] != "pay" || plan.Record["action"] != c.r.Action ||
			plan.Record["respondedAt"] != "2026-01-02T03:04:05Z" || plan.Record["widgetId"] != c.r.WidgetID {
			t.Errorf("%s: metadata %v record %v", c.name, plan.Metadata, plan.Record)
		}
		if _, had := meta["widgetResponses"]; had {
			t.Fatalf("%s: Decide changed the metadata it read", c.name)
		}
	}
}
