package network

import (
	"encoding/json"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/network/rules"
	widgetsvc "github.com/switchboard-hq/switchboard/server/widgets"
)

// itemMeta is a request relay's queue metadata: where it came from, its
// widgets (an approve/decline widget for request_approval) and, when the
// sender gave one, its widgetResponseUrl.
func itemMeta(c *ent.NetworkConnection, in *Inbound) (string, error) {
	payload := map[string]any{}
	_ = json.Unmarshal([]byte(in.Payload), &payload) // a JSON object, made from the request's Struct
	meta := map[string]any{"relayId": in.RelayID, "connectionId": c.ID, "intent": in.Intent,
		"peer": handle.Peer(c.PeerUserEmail, c.PeerInstanceURL), "relayPayload": payload}
	var widgets []any
	if list, ok := payload["widgets"].([]any); ok && len(list) <= 50 {
		widgets = append(widgets, list...)
	}
	if in.Intent == rules.IntentRequestApproval {
		widgets = append(widgets, map[string]any{"id": widgetsvc.RelayApproval, "type": "choice_card", "title": in.Subject,
			"items": []any{map[string]any{"id": "decision", "label": in.Subject, "actions": approvalActions()}}})
	}
	if len(widgets) > 0 {
		meta["widgets"] = widgets
	}
	if u, ok := payload["widgetResponseUrl"].(string); ok && u != "" {
		meta["widgetResponseUrl"] = u
	}
	b, err := json.Marshal(meta)
	return string(b), err
}

// approvalActions are the approve/decline widget's actions: the terminal
// widget actions but submit.
func approvalActions() []any {
	var out []any
	for _, a := range vocab.Values("widget_terminal_action") {
		if a != "submit" {
			out = append(out, a)
		}
	}
	return out
}

// description is the payload's description or message text, if any.
func description(payload string) *string {
	m := map[string]any{}
	_ = json.Unmarshal([]byte(payload), &m) // a JSON object
	for _, k := range []string{"description", "message", "body"} {
		if v, ok := m[k].(string); ok && strings.TrimSpace(v) != "" {
			return &v
		}
	}
	return nil
}

// RelayProto renders a relay; c is its connection, nil once removed.
func RelayProto(r *ent.Relay, c *ent.NetworkConnection) *switchboardv1.Relay {
	out := &switchboardv1.Relay{Id: r.ID, ConnectionId: r.ConnectionID, RelayId: r.RelayID, Direction: string(r.Direction),
		Type: string(r.Type), Subject: r.Subject, Priority: string(r.Priority), ThreadId: r.ThreadID,
		ParentRelayId: r.ParentRelayID, CardId: r.CardID, State: string(r.State), Result: r.Result, Reason: r.Reason,
		ItemId: r.ItemID, Quarantined: r.Quarantined, FilteredReason: r.FilteredReason, DigestPending: r.DigestPending,
		CreatedAt: timestamppb.New(r.CreatedAt), UpdatedAt: timestamppb.New(r.UpdatedAt)}
	if r.Intent != nil {
		out.Intent = string(*r.Intent)
	}
	st := &structpb.Struct{}
	if protojson.Unmarshal([]byte(r.Payload), st) == nil {
		out.Payload = st
	}
	if c != nil {
		out.Peer = handle.Peer(c.PeerUserEmail, c.PeerInstanceURL)
	}
	out.ScopeResolved, out.ScopeDropped = Scope{ResolvedTeam: r.ResolvedTeamID, ResolvedProject: r.ResolvedProjectID,
		DroppedTeam: r.DroppedTeamID, DroppedProject: r.DroppedProjectID}.Answer()
	return out
}
