package widgets

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// Terminal are the actions that complete the item (RULINGS "A2A"), the
// vocabulary widget_terminal_action.
var Terminal = vocab.Values("widget_terminal_action")

// Response is one answer to a widget, as the request gives it.
type Response struct {
	ItemID       string
	WidgetID     string
	WidgetItemID *string
	Action       string
	Payload      map[string]any
	At           time.Time
}

// Plan is what a response does to its item: decided from the item's
// metadata alone (Decide), applied by the service in one transaction.
type Plan struct {
	// Metadata is the item's new metadata, widgetResponses appended.
	Metadata map[string]any
	// Record is the entry appended, as stored and forwarded.
	Record map[string]any
	// Complete is set for a terminal action.
	Complete bool
	// ForwardURL is the item's widgetResponseUrl, empty when none.
	ForwardURL string
}

// Decide checks r against the widgets in the item's metadata and answers
// the plan: the widget must be one of metadata.widgets (by its id, or by its
// position when it has none), the row one of its items, the action one the
// row lists when it lists any.
func Decide(meta map[string]any, r Response) (Plan, error) {
	w, ok := find(meta, r.WidgetID)
	if !ok {
		return Plan{}, apperr.NotFound("widget %q not found on queue item %q", r.WidgetID, r.ItemID)
	}
	if r.WidgetItemID != nil && *r.WidgetItemID != "" {
		row, ok := findRow(w, *r.WidgetItemID)
		if !ok {
			return Plan{}, apperr.NotFound("widget %q has no row %q", r.WidgetID, *r.WidgetItemID)
		}
		if actions := texts(row["actions"]); len(actions) > 0 && !slices.Contains(actions, r.Action) {
			return Plan{}, apperr.OneOf("action", r.Action, actions)
		}
	}
	record := map[string]any{
		"widgetId": r.WidgetID, "itemId": r.ItemID, "action": r.Action, "payload": r.Payload,
		"respondedAt": r.At.UTC().Format(time.RFC3339Nano),
	}
	if r.WidgetItemID != nil && *r.WidgetItemID != "" {
		record["widgetItemId"] = *r.WidgetItemID
	}
	next := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		next[k] = v
	}
	prior, _ := meta["widgetResponses"].([]any)
	next["widgetResponses"] = append(slices.Clone(prior), record)
	url, _ := meta["widgetResponseUrl"].(string)
	return Plan{Metadata: next, Record: record, Complete: slices.Contains(Terminal, r.Action), ForwardURL: url}, nil
}

// ForwardBody is what the widgetResponseUrl receives: the record itself,
// {itemId, widgetId, widgetItemId?, action, payload, respondedAt}.
func ForwardBody(record map[string]any) ([]byte, error) { return json.Marshal(record) }

func find(meta map[string]any, id string) (map[string]any, bool) {
	list, _ := meta["widgets"].([]any)
	for i, raw := range list {
		w, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		if own, ok := w["id"].(string); ok && own != "" {
			if own == id {
				return w, true
			}
			continue
		}
		if strconv.Itoa(i) == id {
			return w, true
		}
	}
	return nil, false
}

func findRow(w map[string]any, id string) (map[string]any, bool) {
	rows, _ := w["items"].([]any)
	for _, raw := range rows {
		if row, ok := raw.(map[string]any); ok && row["id"] == id {
			return row, true
		}
	}
	return nil, false
}

func texts(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// RelayApproval is the id of the approve/decline widget a request_approval
// relay's item carries (server/network).
const RelayApproval = "relay-approval"

// declineAction is the relay-approval widget's refusal.
const declineAction = "decline"

// DeclinesRelay reports whether r declines the relay the item came with:
// decline on its relay-approval widget. The item is then removed, not
// completed, so the sender hears declined; approve completes it as any
// terminal action does.
func DeclinesRelay(meta map[string]any, r Response) bool {
	_, fromRelay := meta["relayId"].(string)
	return fromRelay && r.WidgetID == RelayApproval && r.Action == declineAction
}
