package assistant

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
)

// Issue 28 point 10: the three tags are offered only where their services
// exist, in the documents' order.
func TestGroupTagsNeedTheirServices(t *testing.T) {
	t.Parallel()
	names := func(e *Executor) []string {
		defer e.Close()
		var out []string
		for _, c := range e.Commands() {
			out = append(out, c.Name)
		}
		return out
	}
	tags := []string{"create_project", "invite_to_project", "assign_team_to_project"}
	without := names(New(Config{}))
	for _, n := range tags {
		if slices.Contains(without, n) {
			t.Errorf("%s offered without its service: %v", n, without)
		}
	}
	onlyProjects := names(New(Config{Services: Services{Projects: switchboardv1connect.UnimplementedProjectServiceHandler{}}}))
	if !slices.Contains(onlyProjects, "create_project") || !slices.Contains(onlyProjects, "invite_to_project") ||
		slices.Contains(onlyProjects, "assign_team_to_project") {
		t.Errorf("with the project service only: %v", onlyProjects)
	}
	both := names(New(Config{Services: Services{Projects: switchboardv1connect.UnimplementedProjectServiceHandler{},
		Teams: switchboardv1connect.UnimplementedTeamServiceHandler{}}}))
	at := func(n string) int { return slices.Index(both, n) }
	if at("link_cards") < 0 || !(at("link_cards") < at("create_project") && at("create_project") < at("invite_to_project") &&
		at("invite_to_project") < at("assign_team_to_project") && at("assign_team_to_project") < at("show_google_connect")) {
		t.Errorf("the documents' order: %v", both)
	}
}

// RULINGS Reconciliation 7 and the effect rule: a project of one's own is
// no risk; one made for a team assigns it (grants); an invite reaches
// another operator whoever it names; assigning a team grants.
func TestGroupTagEffects(t *testing.T) {
	t.Parallel()
	e := &Executor{}
	for _, c := range []struct {
		tag, body string
		want      Effect
	}{
		{"create_project", `{"name":"Apollo"}`, 0},
		{"create_project", `{"name":"Apollo","color":"#AA3355","description":"d"}`, 0},
		{"create_project", `{"name":"Apollo","teamId":" "}`, 0},
		{"create_project", `{"name":"Apollo","teamId":"cmwteam"}`, Grants},
		{"invite_to_project", `{"projectId":"p","userId":"u"}`, Reaches | Grants},
		{"invite_to_project", `{"projectId":"p","email":"a@b.example"}`, Reaches | Grants},
		{"invite_to_project", `{"projectId":"p","connectionId":"c"}`, Reaches | Grants},
		{"assign_team_to_project", `{"teamId":"t","projectId":"p"}`, Grants},
	} {
		got, err := e.effectsOf(t.Context(), nil, c.tag, json.RawMessage(c.body))
		if err != nil || got != c.want {
			t.Errorf("%s %s: effects %v, %v; want %v", c.tag, c.body, got, err, c.want)
		}
	}
	// A body the tag would refuse is refused here too, not held.
	if _, err := e.effectsOf(t.Context(), nil, "create_project", json.RawMessage(`{"name":"x","visibility":"public"}`)); err == nil {
		t.Error("create_project with an unknown key: no error")
	}
}
