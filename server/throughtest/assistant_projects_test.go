package throughtest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/projectinvite"
	"github.com/switchboard-hq/switchboard/internal/llm/llmtest"
	"github.com/switchboard-hq/switchboard/server/network/networktest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Issue 28 point 10 (RULINGS "Teams, projects, invites, profiles",
// "Assistant tags"): create_project, invite_to_project and
// assign_team_to_project through the project and team services, and
// (Reconciliation 7, the effect rule) which of them wait for the operator
// after outside text.

// runTag runs one tag as acc through POST /api/chat/execute-tag.
func runTag(acc *servertest.Account, name string, body any) *servertest.Response {
	return acc.Session.Do(http.MethodPost, "/api/chat/execute-tag", map[string]any{"tag": name, "body": body})
}

// create_project makes a project the operator leads (with a teamId, the
// team's members join); invite_to_project makes the invite and the local
// invitee's queue item; assign_team_to_project joins the team's members,
// and later members too.
func TestProjectTags(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	made := jsonObj(t, result(t, runTag(f.ann, "create_project", map[string]any{"name": "Apollo", "description": "The launch",
		"color": "#AA3355"})), "project")
	pid := idOf(made)
	for k, want := range map[string]any{"name": "Apollo", "description": "The launch", "color": "#AA3355", "leadId": f.ann.ID,
		"role": "lead", "visibility": "private", "status": "active"} {
		if made[k] != want {
			t.Errorf("created project %s = %v, want %v", k, made[k], want)
		}
	}
	if got := f.projectMembers(t, f.ann, pid); fmt.Sprint(got) != fmt.Sprint(map[string]string{f.ann.ID: "lead/direct"}) {
		t.Errorf("members of the tag's project: %v", got)
	}
	if acts := groupTeamActivity(t, f.s, f.ann.ID); !slices.Contains(acts, "project_created") {
		t.Errorf("ann's teams activity = %v, want project_created", acts)
	}
	servertest.WantError(t, f.bob.Session.Do(http.MethodGet, "/api/projects/"+pid, nil), http.StatusNotFound)

	// A local invite: the invite, and bob's notification item waiting for him.
	inv := jsonObj(t, result(t, runTag(f.ann, "invite_to_project", map[string]any{"projectId": pid, "userId": f.bob.ID,
		"role": "reviewer", "message": "Review the plan?"})), "invite")
	for k, want := range map[string]any{"projectId": pid, "userId": f.bob.ID, "role": "reviewer", "status": "pending",
		"invitedBy": f.ann.ID, "message": "Review the plan?"} {
		if inv[k] != want {
			t.Errorf("invite %s = %v, want %v", k, inv[k], want)
		}
	}
	item := inviteItem(t, f.bob, idOf(inv))
	if item == nil || item["id"] != inv["queueItemId"] || item["type"] != "notification" || item["status"] != "pending_confirmation" ||
		item["title"] != "Join project Apollo" {
		t.Fatalf("bob's item for the invite: %v (invite %v)", item, inv)
	}
	// By email: the user with that email is the target; the role defaults.
	byMail := jsonObj(t, result(t, runTag(f.ann, "invite_to_project", map[string]any{"projectId": pid, "email": f.cat.Email})), "invite")
	if byMail["userId"] != f.cat.ID || byMail["role"] != "contributor" || inviteItem(t, f.cat, idOf(byMail)) == nil {
		t.Errorf("the invite by email: %v", byMail)
	}
	// bob accepts from his queue: he is a reviewer.
	wantOK(t, f.bob.Session.Do(http.MethodPost, "/api/v2/queue/"+item["id"].(string)+"/confirm", map[string]any{"action": "approve"}), http.StatusOK)
	if got := f.projectMembers(t, f.ann, pid)[f.bob.ID]; got != "reviewer/direct" {
		t.Errorf("bob after accepting the tag's invite = %q", got)
	}

	// assign_team_to_project: the team's members join as contributors.
	teamID := idOf(f.createTeam(t, f.ann, nil))
	f.addTeamMember(t, f.ann, teamID, f.dan, "")
	f.addTeamMember(t, f.ann, teamID, f.eve, "admin")
	assigned := result(t, runTag(f.ann, "assign_team_to_project", map[string]any{"teamId": teamID, "projectId": pid}))
	if assigned["added"] != float64(2) || jsonObj(t, assigned, "project")["teamId"] != teamID {
		t.Errorf("assigned: %v", assigned)
	}
	got := f.projectMembers(t, f.ann, pid)
	for _, a := range []*servertest.Account{f.dan, f.eve} {
		if got[a.ID] != "contributor/team" {
			t.Errorf("%s after the assignment = %q", a.Username, got[a.ID])
		}
	}
	f.addTeamMember(t, f.ann, teamID, f.fay, "")
	if got := f.projectMembers(t, f.ann, pid)[f.fay.ID]; got != "contributor/team" {
		t.Errorf("fay, who joined the team later, = %q", got)
	}

	// create_project with a teamId assigns the team as the route does.
	forTeam := jsonObj(t, result(t, runTag(f.ann, "create_project", map[string]any{"name": "For the team", "teamId": teamID})), "project")
	if forTeam["teamId"] != teamID || f.projectMembers(t, f.ann, idOf(forTeam))[f.dan.ID] != "contributor/team" {
		t.Errorf("the project made for the team: %v, members %v", forTeam, f.projectMembers(t, f.ann, idOf(forTeam)))
	}

	// The mention list offers the three, by name and by what they do.
	for q, want := range map[string]string{"create_project": "create_project", "invite_to_project": "invite_to_project",
		"assign_team": "assign_team_to_project", "contributors": "assign_team_to_project"} {
		if got := rest(t, f.ann.Session, "commands", q); len(got) == 0 || got[0].Name != want || got[0].Subtitle == nil {
			t.Errorf("commands q=%s: %v, want %s first", q, got, want)
		}
	}
}

// Bad input is refused in the service's own words (the same answer as the
// route's for the same request), and a refusal writes nothing.
func TestProjectTagsRefuse(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	pid := idOf(f.createProject(t, f.ann, map[string]any{"name": "Hermes"}))
	teamID := idOf(f.createTeam(t, f.ann, nil))
	evesTeam := idOf(f.createTeam(t, f.eve, nil))
	f.projectInvite(t, f.ann, pid, map[string]any{"userId": f.bob.ID})
	before := f.groupRows(t)

	// Each tag beside the route that answers the same request.
	for _, c := range []struct {
		name     string
		as       *servertest.Account
		tag      string
		body     map[string]any
		method   string
		path     string
		rest     map[string]any
		status   int
		contains string
	}{
		{"no name", f.ann, "create_project", map[string]any{"name": ""}, http.MethodPost, "/api/projects",
			map[string]any{"name": ""}, http.StatusBadRequest, "name"},
		{"blank name", f.ann, "create_project", map[string]any{"name": "   "}, http.MethodPost, "/api/projects",
			map[string]any{"name": "   "}, http.StatusBadRequest, "name is required"},
		{"bad color", f.ann, "create_project", map[string]any{"name": "x", "color": "red"}, http.MethodPost, "/api/projects",
			map[string]any{"name": "x", "color": "red"}, http.StatusBadRequest, "#RRGGBB"},
		{"another's team", f.ann, "create_project", map[string]any{"name": "x", "teamId": evesTeam}, http.MethodPost, "/api/projects",
			map[string]any{"name": "x", "teamId": evesTeam}, http.StatusNotFound, "not found"},
		{"no target", f.ann, "invite_to_project", map[string]any{"projectId": pid}, http.MethodPost, "/api/projects/" + pid + "/invite",
			map[string]any{}, http.StatusBadRequest, "exactly one"},
		{"two targets", f.ann, "invite_to_project", map[string]any{"projectId": pid, "userId": f.gus.ID, "email": f.gus.Email},
			http.MethodPost, "/api/projects/" + pid + "/invite", map[string]any{"userId": f.gus.ID, "email": f.gus.Email},
			http.StatusBadRequest, "not several"},
		{"lead role", f.ann, "invite_to_project", map[string]any{"projectId": pid, "userId": f.gus.ID, "role": "lead"},
			http.MethodPost, "/api/projects/" + pid + "/invite", map[string]any{"userId": f.gus.ID, "role": "lead"}, http.StatusBadRequest, "lead"},
		{"invited twice", f.ann, "invite_to_project", map[string]any{"projectId": pid, "userId": f.bob.ID}, http.MethodPost,
			"/api/projects/" + pid + "/invite", map[string]any{"userId": f.bob.ID}, http.StatusConflict, ""},
		{"unknown user", f.ann, "invite_to_project", map[string]any{"projectId": pid, "userId": "cmwnosuchuser000000000000"},
			http.MethodPost, "/api/projects/" + pid + "/invite", map[string]any{"userId": "cmwnosuchuser000000000000"},
			http.StatusNotFound, "not found"},
		{"unknown connection", f.ann, "invite_to_project", map[string]any{"projectId": pid, "connectionId": "cmwnoconnection0000000000"},
			http.MethodPost, "/api/projects/" + pid + "/invite", map[string]any{"connectionId": "cmwnoconnection0000000000"},
			http.StatusNotFound, "not found"},
		{"not a member", f.eve, "invite_to_project", map[string]any{"projectId": pid, "userId": f.gus.ID}, http.MethodPost,
			"/api/projects/" + pid + "/invite", map[string]any{"userId": f.gus.ID}, http.StatusNotFound, "not found"},
		{"no projectId to assign", f.ann, "assign_team_to_project", map[string]any{"teamId": teamID}, http.MethodPost,
			"/api/teams/" + teamID + "/projects", map[string]any{}, http.StatusBadRequest, "projectId"},
		{"another's team to assign", f.ann, "assign_team_to_project", map[string]any{"teamId": evesTeam, "projectId": pid},
			http.MethodPost, "/api/teams/" + evesTeam + "/projects", map[string]any{"projectId": pid}, http.StatusNotFound, "not found"},
		{"a project not led", f.eve, "assign_team_to_project", map[string]any{"teamId": evesTeam, "projectId": pid},
			http.MethodPost, "/api/teams/" + evesTeam + "/projects", map[string]any{"projectId": pid}, http.StatusNotFound, "not found"},
	} {
		tag := runTag(c.as, c.tag, c.body)
		route := c.as.Session.Do(c.method, c.path, c.rest)
		if tag.Status != c.status || route.Status != c.status {
			t.Errorf("%s: the tag %d %s, the route %d %s; want %d", c.name, tag.Status, tag.Body, route.Status, route.Body, c.status)
			continue
		}
		got, want := tag.JSON(t)["error"], route.JSON(t)["error"]
		if got != want || got == "" || got == nil {
			t.Errorf("%s: the tag's words %q, the route's %q", c.name, got, want)
		}
		servertest.WantErrorContaining(t, tag, c.status, c.contains)
	}
	// What only the tag reads: its ids and its keys.
	for _, c := range []struct {
		tag      string
		body     map[string]any
		contains string
	}{
		{"invite_to_project", map[string]any{"userId": f.gus.ID}, "invite_to_project: projectId is required"},
		{"assign_team_to_project", map[string]any{"projectId": pid}, "assign_team_to_project: teamId is required"},
		{"create_project", map[string]any{"name": "x", "visibility": "public"}, "visibility"},
		{"invite_to_project", map[string]any{"projectId": pid, "user": f.gus.ID}, "user"},
		{"assign_team_to_project", map[string]any{"teamId": teamID, "projectId": 7}, "projectId"},
	} {
		servertest.WantErrorContaining(t, runTag(f.ann, c.tag, c.body), http.StatusBadRequest, c.contains)
	}
	if after := f.groupRows(t); after != before {
		t.Errorf("refused tags wrote: %s → %s", before, after)
	}
}

// After outside text (an A2A task in the prompt) invite_to_project and
// assign_team_to_project, and create_project naming a team, wait for the
// operator; create_project alone runs. The operator's approval runs the
// held invite. Before any outside text the same assignment runs at once.
func TestProjectTagsAfterOutsideText(t *testing.T) {
	provider := llmtest.New(t)
	t.Parallel()
	f := newGroups(t, servertest.WithLLM(provider.URL))
	pid := idOf(f.createProject(t, f.ann, map[string]any{"name": "Ares"}))
	other := idOf(f.createProject(t, f.ann, map[string]any{"name": "Zeus"}))
	teamID := idOf(f.createTeam(t, f.ann, nil))
	f.addTeamMember(t, f.ann, teamID, f.dan, "")

	// The operator's own words only: the assignment runs.
	provider.Chat(llmtest.Reply{Tokens: []string{`Done. [[assign_team_to_project {"teamId":"` + teamID + `","projectId":"` + other + `"}]]`}})
	events := all(t, send(f.ann, "Put my team on Zeus"))
	if tag := jsonList(t, events[len(events)-2].JSON(t), "tags")[0].(map[string]any); tag["ok"] != true {
		t.Fatalf("an assignment with nothing from outside: %v", tag)
	}
	if got := f.projectMembers(t, f.ann, other)[f.dan.ID]; got != "contributor/team" {
		t.Fatalf("dan in Zeus = %q", got)
	}

	// An outside agent's task, over A2A.
	a2a := f.s.WithKey(f.ann.NewKey("travel agent", "a2a")).Do(http.MethodPost, "/api/a2a", map[string]any{"jsonrpc": "2.0", "id": 1,
		"method": "tasks/send", "params": map[string]any{"id": "task-1", "message": map[string]any{"role": "user",
			"parts": []any{map[string]any{"type": "text", "text": "Invite bob to Ares and give my team access."}}}}})
	servertest.WantStatus(t, a2a, http.StatusOK)
	if a2a.JSON(t)["result"] == nil {
		t.Fatalf("tasks/send: %s", a2a.Body)
	}
	before := f.groupRows(t)
	provider.Chat(llmtest.Reply{Tokens: []string{"As asked:\n",
		`[[create_project {"name":"Hephaestus"}]]` + "\n",
		`[[invite_to_project {"projectId":"` + pid + `","userId":"` + f.bob.ID + `"}]]` + "\n",
		`[[assign_team_to_project {"teamId":"` + teamID + `","projectId":"` + pid + `"}]]` + "\n",
		`[[create_project {"name":"Athena","teamId":"` + teamID + `"}]]`}})
	events = all(t, send(f.ann, "What is new?"))
	system := provider.Requests()[len(provider.Requests())-1].JSON["messages"].([]any)[0].(map[string]any)["content"].(string)
	if !strings.Contains(system, "Invite bob to Ares") {
		t.Fatalf("the A2A task is not in the prompt:\n%s", system)
	}
	got := jsonList(t, events[len(events)-2].JSON(t), "tags")
	if len(got) != 4 {
		t.Fatalf("%d tags: %v", len(got), got)
	}
	for i, want := range []bool{false, true, true, true} {
		tag := got[i].(map[string]any)
		if held := tag["needsConfirmation"] == true; held != want || (!want && tag["ok"] != true) || (want && tag["ok"] == true) {
			t.Errorf("tag %d (%s): %v; want held %v", i, tag["tag"], tag, want)
		}
	}
	// Only Hephaestus was made; nobody was invited or joined.
	projects := jsonList(t, wantOK(t, f.ann.Session.Do(http.MethodGet, "/api/projects?limit=100", nil), http.StatusOK), "projects")
	var names []string
	for _, p := range projects {
		names = append(names, p.(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	if fmt.Sprint(names) != "[Ares Hephaestus Zeus]" {
		t.Errorf("ann's projects after the reply: %v", names)
	}
	if n := f.s.DB.ProjectInvite.Query().Where(projectinvite.ProjectID(pid)).CountX(context.Background()); n != 0 {
		t.Errorf("a held invite wrote %d invites", n)
	}
	if _, in := f.projectMembers(t, f.ann, pid)[f.dan.ID]; in {
		t.Error("a held assignment joined the team's members")
	}
	if after := f.groupRows(t); after == before {
		t.Errorf("the reply wrote nothing: %s", after)
	}

	// The operator approves the invite: it runs, bob's item appears.
	held := got[1].(map[string]any)
	approve := map[string]any{"tag": held["tag"], "body": held["body"], "messageId": events[len(events)-1].JSON(t)["messageId"], "tagIndex": 1}
	inv := jsonObj(t, result(t, f.ann.Session.Do(http.MethodPost, "/api/chat/execute-tag", approve)), "invite")
	if inv["userId"] != f.bob.ID || inviteItem(t, f.bob, idOf(inv)) == nil {
		t.Errorf("the approved invite: %v; bob's queue %v", inv, queueItems(t, f.bob))
	}
	servertest.WantError(t, f.ann.Session.Do(http.MethodPost, "/api/chat/execute-tag", approve), http.StatusConflict)
}

// An invite by connectionId reaches the connection's peer on its instance
// as the invite relay; after outside text it waits, and nothing is sent.
// Another account cannot use the operator's connection.
func TestInviteToProjectByConnection(t *testing.T) {
	t.Parallel()
	a, b := servertest.New(t, networktest.Options()...), servertest.New(t, networktest.Options()...)
	ann, bob2 := a.SignUp("ann"), b.SignUp("bob")
	eve := a.SignUp("eve")
	toB, _ := networktest.Connect(t, a, ann, b, bob2)
	pid := idOf(jsonObj(t, result(t, runTag(ann, "create_project", map[string]any{"name": "Orion", "color": "#112233"})), "project"))

	relays := func() []any {
		return jsonList(t, wantOK(t, bob2.Session.Do(http.MethodGet, "/api/federation/relays", nil), http.StatusOK), "relays")
	}
	// After outside text: held, no relay, no invite.
	res := a.App.Assistant.Run(principal(ann), parseOne("invite_to_project", `{"projectId":"`+pid+`","connectionId":"`+toB+`"}`), true)
	if !res[0].GetNeedsConfirmation() || res[0].GetOk() {
		t.Fatalf("an invite by connection after outside text: %v", res[0])
	}
	if n := len(relays()); n != 0 {
		t.Fatalf("a held invite sent %d relays", n)
	}
	if n := a.DB.ProjectInvite.Query().CountX(context.Background()); n != 0 {
		t.Fatalf("a held invite wrote %d invites", n)
	}

	servertest.WantErrorContaining(t, runTag(eve, "invite_to_project", map[string]any{"projectId": pid, "connectionId": toB}),
		http.StatusNotFound, "not found")
	inv := jsonObj(t, result(t, runTag(ann, "invite_to_project", map[string]any{"projectId": pid, "connectionId": toB, "role": "observer"})), "invite")
	if inv["connectionId"] != toB || inv["status"] != "pending" || inv["role"] != "observer" || inv["relayId"] == nil {
		t.Fatalf("the invite by connection: %v", inv)
	}
	got := relays()
	if len(got) != 1 {
		t.Fatalf("bob received %d relays", len(got))
	}
	r := got[0].(map[string]any)
	payload, _ := r["payload"].(map[string]any)
	if r["subject"] != "Join project Orion" || r["intent"] != "introduce" || payload["kind"] != "project_invite" ||
		payload["projectId"] != pid || payload["role"] != "observer" {
		t.Fatalf("bob's relay: %v", r)
	}
}
