package throughtest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Refusals of the teams and projects routes: isolation (RULINGS
// Reconciliation 2: a team or project the caller is not in is 404 on every
// route), bad input at the boundary (RULINGS "Input at the boundary"), and
// the key scope `projects` (issue 28, General).

// Another operator's team and project, and unknown ids, are 404 on every
// route and both transports; nothing of them changes.
func TestGroupsIsolation(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	teamID := idOf(f.createTeam(t, f.bob, map[string]any{"name": "Bob's team", "visibility": "public"}))
	f.addTeamMember(t, f.bob, teamID, f.cat, "")
	pid := idOf(f.createProject(t, f.bob, map[string]any{"name": "Bob's project", "teamId": teamID}))
	f.invite(t, f.bob, teamID, map[string]any{"userId": f.dan.ID})
	projInvite := f.projectInvite(t, f.bob, pid, map[string]any{"userId": f.dan.ID})
	bobCard := idOf(jsonObj(t, wantOK(t, f.bob.Session.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Bob's card", "projectId": pid}), http.StatusCreated), "card"))
	annProject := idOf(f.createProject(t, f.ann, nil))
	annItem := idOf(jsonObj(t, wantOK(t, f.ann.Session.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Ann's"}), http.StatusCreated), "item"))
	annCard := idOf(jsonObj(t, wantOK(t, f.ann.Session.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Ann's"}), http.StatusCreated), "card"))
	bobSees := f.seen(t, f.bob, f.cat)
	annSees := f.seen(t, f.ann)
	before := f.groupRows(t)

	for _, target := range []struct{ name, team, project string }{
		{"another operator's", teamID, pid},
		{"unknown", "nosuchteam00000000000000", "nosuchproject00000000000"},
	} {
		calls := []groupCall{
			{"GetTeam", map[string]any{"id": target.team}},
			{"UpdateTeam", map[string]any{"id": target.team, "description": "Mine now"}},
			{"UpdateTeam", map[string]any{"id": target.team, "ownerId": f.ann.ID}},
			{"DeleteTeam", map[string]any{"id": target.team}},
			{"AddTeamMember", map[string]any{"id": target.team, "userId": f.ann.ID, "role": "admin"}},
			{"RemoveTeamMember", map[string]any{"id": target.team, "memberId": f.cat.ID}},
			{"CreateTeamInvite", map[string]any{"id": target.team, "userId": f.ann.ID}},
			{"ListTeamInvites", map[string]any{"id": target.team}},
			{"AssignTeamProject", map[string]any{"id": target.team, "projectId": annProject}},
			{"ListTeamProjects", map[string]any{"id": target.team}},
			{"UnassignTeamProject", map[string]any{"id": target.team, "projectId": target.project}},
			{"GetProject", map[string]any{"id": target.project}},
			{"UpdateProject", map[string]any{"id": target.project, "name": "Mine now"}},
			{"InviteToProject", map[string]any{"id": target.project, "userId": f.ann.ID}},
			{"ListProjectInvites", map[string]any{"id": target.project}},
			{"AddProjectMember", map[string]any{"id": target.project, "userId": f.ann.ID}},
			{"RemoveProjectMember", map[string]any{"id": target.project, "memberId": f.bob.ID}},
			{"CreateProject", map[string]any{"name": "Into bob's team", "teamId": target.team}},
			{"CreateQueueItem", map[string]any{"title": "Filed", "projectId": target.project}},
			{"UpdateQueueItem", map[string]any{"id": annItem, "projectId": target.project}},
			{"CreateCard", map[string]any{"card": map[string]any{"title": "Filed", "projectId": target.project}}},
			{"UpdateCard", map[string]any{"id": annCard, "card": map[string]any{"projectId": target.project}}},
		}
		for _, c := range calls {
			for _, tr := range groupTransports {
				t.Run(target.name+"/"+c.rpc+"/"+tr, func(t *testing.T) {
					notFound404.check(t, tr, c, f.ann.Session)
				})
			}
		}
	}
	// The typed clients, on every protocol.
	for name := range servertest.Protocols() {
		_, err := teamClient(f.s, f.ann, name).GetTeam(context.Background(), &switchboardv1.GetTeamRequest{Id: teamID})
		servertest.WantCode(t, err, connect.CodeNotFound)
		_, err = projectClient(f.s, f.ann, name).GetProject(context.Background(), &switchboardv1.GetProjectRequest{Id: pid})
		servertest.WantCode(t, err, connect.CodeNotFound)
		_, err = keyedTeamClient(f.s, f.ann.NewKey("agent "+name, "projects"), name).ListTeamProjects(context.Background(), &switchboardv1.ListTeamProjectsRequest{Id: teamID})
		servertest.WantCode(t, err, connect.CodeNotFound)
	}
	// Lists are the caller's own (Reconciliation 2: no 404 there): filtering
	// by bob's team lists nothing.
	if ps := jsonList(t, wantOK(t, f.ann.Session.Do(http.MethodGet, "/api/projects?teamId="+teamID, nil), http.StatusOK), "projects"); len(ps) != 0 {
		t.Errorf("ann lists bob's team's projects: %v", ps)
	}
	// Another's project invite is answered by its invitee only: 403.
	servertest.WantError(t, answerProject(f.ann, idOf(projInvite), "accept"), http.StatusForbidden)
	// Ann cannot read bob's card through his project either.
	servertest.WantError(t, f.ann.Session.Do(http.MethodGet, "/api/v2/kanban/"+bobCard, nil), http.StatusNotFound)

	if after := f.groupRows(t); after != before {
		t.Errorf("isolation refusals wrote: %s → %s", before, after)
	}
	if now := f.seen(t, f.bob, f.cat); now != bobSees {
		t.Errorf("bob's team and project changed:\n%s\n---\n%s", bobSees, now)
	}
	if now := f.seen(t, f.ann); now != annSees {
		t.Errorf("ann's lists changed:\n%s\n---\n%s", annSees, now)
	}
}

// RULINGS "Input at the boundary": NUL, invalid UTF-8 and over-long text in
// any field of these routes is 400 on both transports, and writes nothing.
func TestGroupsBadInputWritesNothing(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	teamID := idOf(f.createTeam(t, f.ann, map[string]any{"name": "Kept", "description": "as is"}))
	pid := idOf(f.createProject(t, f.ann, map[string]any{"name": "Kept too"}))
	f.addProjectMember(t, f.ann, pid, f.bob, "")
	before, seen := f.groupRows(t), f.seen(t, f.ann, f.bob)

	// Each field with the rest of a valid request: the path's id (empty
	// when the route has none) and other JSON members.
	type field struct {
		rpc, name string
		max       int
		id, extra string
	}
	fields := []field{
		{"CreateTeam", "name", 200, "", ``},
		{"CreateTeam", "handle", 30, "", `"name":"Fine",`},
		{"CreateTeam", "description", 5000, "", `"name":"Fine",`},
		{"CreateTeam", "avatarUrl", 2048, "", `"name":"Fine",`},
		{"UpdateTeam", "name", 200, teamID, ``},
		{"UpdateTeam", "description", 5000, teamID, ``},
		{"AddTeamMember", "email", 254, teamID, ``},
		{"CreateTeamInvite", "message", 2000, teamID, ``},
		{"CreateProject", "name", 200, "", ``},
		{"CreateProject", "description", 5000, "", `"name":"Fine",`},
		{"CreateProject", "color", 7, "", `"name":"Fine",`},
		{"UpdateProject", "description", 5000, pid, ``},
		{"InviteToProject", "message", 2000, pid, `"userId":"` + f.cat.ID + `",`},
		{"AddProjectMember", "email", 254, pid, ``},
	}
	values := map[string]func(max int) string{
		"NUL":           func(int) string { return `"a\u0000b"` },
		"invalid UTF-8": func(int) string { return "\"a\xff\xfeb\"" },
		"over-long":     func(max int) string { return `"` + strings.Repeat("é", max+1) + `"` },
	}
	for _, fd := range fields {
		for class, value := range values {
			t.Run(fd.rpc+"/"+fd.name+"/"+class, func(t *testing.T) {
				r := groupRoutes[fd.rpc]
				members := fd.extra + `"` + fd.name + `":` + value(fd.max)
				res := f.ann.Session.Do(r.method, strings.Replace(r.path, "{id}", fd.id, 1), "{"+members+"}")
				if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), fd.name) || !strings.Contains(string(res.Body), `"success":false`) {
					t.Errorf("REST: %d %s", res.Status, res.Body)
				}
				if fd.id != "" {
					members = `"id":"` + fd.id + `",` + members
				}
				cres := f.ann.Session.Do(http.MethodPost, "/switchboard.v1."+r.service+"/"+fd.rpc, "{"+members+"}", "Connect-Protocol-Version", "1")
				if cres.Status != http.StatusBadRequest || !strings.Contains(string(cres.Body), `"invalid_argument"`) {
					t.Errorf("Connect: %d %s", cres.Status, cres.Body)
				}
			})
		}
	}
	// The query and the answer's id, too.
	for _, path := range []string{
		"/api/teams/" + teamID + "/members?memberId=a%00b",
		"/api/teams/" + teamID + "/projects?projectId=a%FF%FEb",
		"/api/projects/" + pid + "/members?memberId=" + strings.Repeat("m", 65),
	} {
		servertest.WantError(t, f.ann.Session.Do(http.MethodDelete, path, nil), http.StatusBadRequest)
	}
	servertest.WantError(t, f.ann.Session.Do(http.MethodPatch, "/api/project-invites", "{\"inviteId\":\"a\xffb\",\"action\":\"accept\"}"), http.StatusBadRequest)
	servertest.WantError(t, f.s.Anonymous().Do(http.MethodGet, "/api/teams/invite/"+strings.Repeat("t", 129), nil), http.StatusBadRequest)
	// Malformed and unknown fields.
	for _, c := range []struct{ method, path, body string }{
		{http.MethodPost, "/api/teams", `{"name":`},
		{http.MethodPost, "/api/teams", `{"name":"X","owner":"me"}`},
		{http.MethodPost, "/api/teams", `["name"]`},
		{http.MethodPost, "/api/projects", `{"name":"X","colour":"#112233"}`},
		{http.MethodPut, "/api/teams/" + teamID, `{"name":"X","members":[]}`},
		{http.MethodPost, "/api/teams/" + teamID + "/invites", `{"force":"yes"}`},
		{http.MethodPatch, "/api/project-invites", `{"inviteId":"x"}`},
	} {
		servertest.WantError(t, f.ann.Session.Do(c.method, c.path, c.body), http.StatusBadRequest)
	}
	if after := f.groupRows(t); after != before {
		t.Errorf("bad input wrote: %s → %s", before, after)
	}
	if now := f.seen(t, f.ann, f.bob); now != seen {
		t.Errorf("bad input changed what the API shows:\n%s\n---\n%s", seen, now)
	}
}

// issue 28, General: a key with the scope projects reads its user's teams and
// projects and creates projects; without the scope it is 403; no key calls
// the session-only routes.
func TestGroupsKeyScope(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	// Every refused call below would succeed with ann's session.
	teamID := idOf(f.createTeam(t, f.ann, nil))
	f.addTeamMember(t, f.ann, teamID, f.cat, "")
	pid := idOf(f.createProject(t, f.ann, map[string]any{"teamId": teamID}))
	f.addProjectMember(t, f.ann, pid, f.dan, "")
	bobsTeam := idOf(f.createTeam(t, f.bob, nil))
	tok := f.invite(t, f.bob, bobsTeam, nil)["token"].(string)
	bobsProject := idOf(f.createProject(t, f.bob, nil))
	projInvite := f.projectInvite(t, f.bob, bobsProject, map[string]any{"userId": f.ann.ID})
	other := idOf(f.createProject(t, f.ann, nil))
	projects := f.ann.NewKey("filing agent", "projects")
	queueOnly := f.ann.NewKey("queue agent", "queue", "kanban", "contacts", "settings")

	reads := []groupCall{
		{"ListTeams", map[string]any{}},
		{"GetTeam", map[string]any{"id": teamID}},
		{"ListTeamInvites", map[string]any{"id": teamID}},
		{"ListTeamProjects", map[string]any{"id": teamID}},
		{"ListProjects", map[string]any{}},
		{"GetProject", map[string]any{"id": pid}},
		{"ListProjectInvites", map[string]any{"id": pid}},
		{"CreateProject", map[string]any{"name": "Filed by an agent"}},
	}
	sessionOnly := []groupCall{
		{"CreateTeam", map[string]any{"name": "By a key"}},
		{"UpdateTeam", map[string]any{"id": teamID, "description": "By a key"}},
		{"DeleteTeam", map[string]any{"id": teamID}},
		{"AddTeamMember", map[string]any{"id": teamID, "userId": f.gus.ID}},
		{"RemoveTeamMember", map[string]any{"id": teamID, "memberId": f.cat.ID}},
		{"CreateTeamInvite", map[string]any{"id": teamID}},
		{"AnswerTeamInvite", map[string]any{"token": tok, "action": "accept"}},
		{"AssignTeamProject", map[string]any{"id": teamID, "projectId": other}},
		{"UnassignTeamProject", map[string]any{"id": teamID, "projectId": pid}},
		{"UpdateProject", map[string]any{"id": pid, "name": "By a key"}},
		{"InviteToProject", map[string]any{"id": pid, "userId": f.gus.ID}},
		{"AnswerProjectInvite", map[string]any{"inviteId": idOf(projInvite), "action": "accept"}},
		{"AddProjectMember", map[string]any{"id": pid, "userId": f.gus.ID}},
		{"RemoveProjectMember", map[string]any{"id": pid, "memberId": f.dan.ID}},
	}
	before := f.groupRows(t)
	for _, c := range append(append([]groupCall{}, reads...), sessionOnly...) {
		for _, tr := range groupTransports {
			t.Run("without the scope/"+c.rpc+"/"+tr, func(t *testing.T) {
				forbidden403.check(t, tr, c, f.s.WithKey(queueOnly))
			})
		}
	}
	for _, c := range sessionOnly {
		for _, tr := range groupTransports {
			t.Run("session only/"+c.rpc+"/"+tr, func(t *testing.T) {
				forbidden403.check(t, tr, c, f.s.WithKey(projects))
			})
		}
	}
	if after := f.groupRows(t); after != before {
		t.Errorf("refused keys wrote: %s → %s", before, after)
	}
	for _, c := range reads {
		for _, tr := range groupTransports {
			t.Run("with the scope/"+c.rpc+"/"+tr, func(t *testing.T) {
				want := ok200
				if c.rpc == "CreateProject" {
					want = ok201
				}
				res := want.check(t, tr, c, f.s.WithKey(projects))
				if c.rpc == "CreateProject" && res.Status < 300 {
					if p := jsonObj(t, res.JSON(t), "project"); p["leadId"] != f.ann.ID || p["role"] != "lead" {
						t.Errorf("the key's project = %v, want ann as lead", p)
					}
				}
			})
		}
	}
	// The typed clients agree, on every protocol.
	for name := range servertest.Protocols() {
		lst, err := keyedTeamClient(f.s, projects, name).ListTeams(context.Background(), &switchboardv1.ListTeamsRequest{})
		if err != nil || len(lst.GetTeams()) != 1 {
			t.Errorf("%s ListTeams with the scope: %v %v", name, lst, err)
		}
		_, err = keyedTeamClient(f.s, projects, name).CreateTeam(context.Background(), &switchboardv1.CreateTeamRequest{Name: "Key team " + name})
		servertest.WantCode(t, err, connect.CodePermissionDenied)
		_, err = keyedProjectClient(f.s, queueOnly, name).ListProjects(context.Background(), &switchboardv1.ListProjectsRequest{})
		servertest.WantCode(t, err, connect.CodePermissionDenied)
	}
	// The key's user lists what the key made.
	if ps := jsonList(t, wantOK(t, f.ann.Session.Do(http.MethodGet, "/api/projects", nil), http.StatusOK), "projects"); len(ps) != 4 {
		t.Errorf("ann lists %d projects, want 4 (her two and the key's two)", len(ps))
	}
}
