package assistant

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// SettingsGroups are show_settings_widget's groups (docs/decisions.md "The
// assistant (issue 16)").
var SettingsGroups = []string{"working_style", "triage", "goals", "identity", "all"}

// settingFields are the settings each group shows (docs/decisions.md "The
// assistant (issue 16)"): the widget's rows, in this order.
var settingFields = map[string][]string{
	"working_style": {"mode", "assistantName"},
	"triage":        {"queueAutoApprove"},
	"goals":         {"goalsEnabled"},
	"identity":      {"assistantName"},
	"all":           {"mode", "assistantName", "queueAutoApprove", "goalsEnabled"},
}

var settingLabels = map[string]string{
	"mode": "Working style", "assistantName": "Assistant name",
	"queueAutoApprove": "Approve queued tasks automatically", "goalsEnabled": "Goals",
}

// settable are the fields the settings API changes (settings.proto,
// UpdateSettingsRequest); the others are shown read-only.
var settable = []string{"queueAutoApprove"}

// settingsWidget is show_settings_widget: the group's settings as a widget
// the dashboard renders, in the shape queue items carry widgets in
// (metadata.widgets: id, type, title, items with id, label and actions).
// The widget acts through execute-tag with this tag and a set object,
// which changes the settings through the settings service and answers the
// widget again.
func (e *Executor) settingsWidget(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
	a, err := decode[struct {
		Group string          `json:"group"`
		Set   map[string]bool `json:"set"`
	}]("show_settings_widget", body)
	if err != nil {
		return nil, err
	}
	if a.Group == "" {
		a.Group = "all"
	}
	if err := apperr.OneOf("group", a.Group, SettingsGroups); err != nil {
		return nil, err
	}
	for k := range a.Set {
		if !slices.Contains(settable, k) || !slices.Contains(settingFields[a.Group], k) {
			return nil, apperr.Invalid("show_settings_widget: %s cannot be set from the %s widget (settable: %s)", k, a.Group,
				strings.Join(settable, ", "))
		}
	}
	if v, ok := a.Set["queueAutoApprove"]; ok {
		if _, err := call(ctx, e.Settings.UpdateSettings, &switchboardv1.UpdateSettingsRequest{QueueAutoApprove: &v}); err != nil {
			return nil, err
		}
	}
	res, err := call(ctx, e.Settings.GetSettings, &switchboardv1.GetSettingsRequest{})
	if err != nil {
		return nil, err
	}
	cur := res.(*switchboardv1.GetSettingsResponse)
	values := map[string]any{"mode": cur.GetMode(), "assistantName": cur.GetAssistantName(),
		"queueAutoApprove": cur.GetQueueAutoApprove(), "goalsEnabled": cur.GetGoalsEnabled()}
	var items []any
	for _, f := range settingFields[a.Group] {
		row := map[string]any{"id": f, "label": settingLabels[f], "value": values[f], "editable": false}
		if slices.Contains(settable, f) {
			row["editable"] = true
			row["actions"] = []any{"enable", "disable"}
			row["execute"] = map[string]any{"tag": "show_settings_widget", "body": map[string]any{"group": a.Group,
				"set": map[string]any{f: !values[f].(bool)}}}
		}
		items = append(items, row)
	}
	return widget(map[string]any{"id": "settings_" + a.Group, "type": "action_list", "kind": "settings", "group": a.Group,
		"title": "Settings", "items": items})
}

// googleIdentities are show_google_connect's identities (docs/decisions.md
// "The assistant (issue 16)").
var googleIdentities = []string{"operator", "agent"}

// googleConnect is show_google_connect: the widget offering to connect a
// Google account; its connect action (execute-tag with action "connect")
// answers that Google is not configured on this instance (Google Drive
// sources are out of scope here).
func (e *Executor) googleConnect(_ context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
	a, err := decode[struct {
		Identity    string `json:"identity"`
		Label       string `json:"label"`
		Description string `json:"description"`
		Action      string `json:"action"`
	}]("show_google_connect", body)
	if err != nil {
		return nil, err
	}
	if a.Identity == "" {
		a.Identity = "operator"
	}
	if err := apperr.OneOf("identity", a.Identity, googleIdentities); err != nil {
		return nil, err
	}
	for name, v := range map[string]string{"label": a.Label, "description": a.Description} {
		if len([]rune(v)) > 500 || strings.ContainsRune(v, 0) {
			return nil, apperr.Invalid("show_google_connect: %s must be text of at most 500 characters", name)
		}
	}
	switch a.Action {
	case "":
	case "connect":
		return nil, &apperr.Error{Kind: apperr.KindIntegrationRequired, Message: "Google is not configured on this instance"}
	default:
		return nil, apperr.OneOf("action", a.Action, []string{"connect"})
	}
	if a.Label == "" {
		a.Label = "Connect Google"
	}
	return widget(map[string]any{"id": "google_connect_" + a.Identity, "type": "action_list", "kind": "google_connect",
		"title": a.Label, "description": a.Description, "identity": a.Identity,
		"items": []any{map[string]any{"id": "connect", "label": a.Label, "actions": []any{"connect"},
			"execute": map[string]any{"tag": "show_google_connect", "body": map[string]any{"identity": a.Identity, "action": "connect"}}}}})
}

// widget is a widget tag's result: {widget}.
func widget(w map[string]any) (proto.Message, error) {
	s, err := structpb.NewStruct(map[string]any{"widget": w})
	if err != nil {
		return nil, apperr.Internal(err)
	}
	return s, nil
}
