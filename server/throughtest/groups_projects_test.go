package throughtest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Projects (issue 28, Projects, "Team ↔ project"): defaults, lists, the
// detail with its cards, reading widened by visibility, and the team's
// members synced in and out as contributors.

// issue 28, Projects: a new project's defaults, the creator as lead, the
// activity entry; color and visibility refusals.
func TestCreateProjectDefaults(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	p := f.createProject(t, f.ann, map[string]any{"name": "  Apollo  "})
	for k, want := range map[string]any{
		"name": "Apollo", "color": "#6366F1", "visibility": "private", "status": "active", "kind": "standard",
		"leadId": f.ann.ID, "role": "lead", "memberCount": float64(1), "teamId": nil, "description": nil,
	} {
		if p[k] != want {
			t.Errorf("%s = %v, want %v", k, p[k], want)
		}
	}
	if got := f.projectMembers(t, f.ann, idOf(p)); fmt.Sprint(got) != fmt.Sprint(map[string]string{f.ann.ID: "lead/direct"}) {
		t.Errorf("members = %v", got)
	}
	if acts := groupTeamActivity(t, f.s, f.ann.ID); !slices.Contains(acts, "project_created") {
		t.Errorf("ann's teams activity = %v, want project_created", acts)
	}
	res, err := projectClient(f.s, f.bob, "grpc").CreateProject(context.Background(), &switchboardv1.CreateProjectRequest{
		Name: "Gemini", Color: proto.String("#00aaFF"), Visibility: proto.String("public"), Description: proto.String("Two seats")})
	if err != nil {
		t.Fatal(err)
	}
	if g := res.GetProject(); g.GetColor() != "#00aaFF" || g.GetVisibility() != "public" || g.GetDescription() != "Two seats" || g.GetLeadId() != f.bob.ID || g.GetRole() != "lead" {
		t.Errorf("Connect project = %v", g)
	}

	before := f.groupRows(t)
	for name, body := range map[string]map[string]any{
		"no name":                  {"color": "#112233"},
		"blank name":               {"name": "   "},
		"color name":               {"name": "X", "color": "red"},
		"short color":              {"name": "X", "color": "#12345"},
		"color without #":          {"name": "X", "color": "1122334"},
		"color not hex":            {"name": "X", "color": "#GGGGGG"},
		"team visibility, no team": {"name": "X", "visibility": "team"},
		"unknown visibility":       {"name": "X", "visibility": "secret"},
		"unknown field":            {"name": "X", "lead": "bob"},
		"kind is no field":         {"name": "X", "kind": "engagement"},
	} {
		for _, tr := range groupTransports {
			t.Run(name+"/"+tr, func(t *testing.T) {
				bad400.check(t, tr, groupCall{"CreateProject", body}, f.ann.Session)
			})
		}
	}
	if after := f.groupRows(t); after != before {
		t.Errorf("refused creations wrote: %s → %s", before, after)
	}
}

// issue 28, Projects: ListProjects is the caller's projects, most recently
// updated first, filtered by teamId and status, paginated.
func TestListProjects(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	teamID := idOf(f.createTeam(t, f.ann, nil))
	var made []string
	for i := 0; i < 3; i++ {
		made = append(made, idOf(f.createProject(t, f.ann, nil)))
		f.s.Clock.Advance(time.Second)
	}
	f.createProject(t, f.bob, nil) // not ann's
	// The newest becomes the team's; the oldest, closed, the most recently updated.
	wantOK(t, f.ann.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/projects", map[string]any{"projectId": made[2]}), http.StatusOK)
	f.s.Clock.Advance(time.Second)
	wantOK(t, f.ann.Session.Do(http.MethodPut, "/api/projects/"+made[0], map[string]any{"status": "closed"}), http.StatusOK)
	ids := func(q string) []string {
		t.Helper()
		var out []string
		for _, p := range jsonList(t, wantOK(t, f.ann.Session.Do(http.MethodGet, "/api/projects"+q, nil), http.StatusOK), "projects") {
			out = append(out, idOf(p.(map[string]any)))
		}
		return out
	}
	if got, want := ids(""), []string{made[0], made[2], made[1]}; !slices.Equal(got, want) {
		t.Errorf("projects = %v, want most recently updated first %v", got, want)
	}
	if got := ids("?status=closed"); !slices.Equal(got, []string{made[0]}) {
		t.Errorf("closed = %v", got)
	}
	if got := ids("?status=active"); !slices.Equal(got, []string{made[2], made[1]}) {
		t.Errorf("active = %v", got)
	}
	if got := ids("?teamId=" + teamID); !slices.Equal(got, []string{made[2]}) {
		t.Errorf("the team's = %v", got)
	}
	page := wantOK(t, f.ann.Session.Do(http.MethodGet, "/api/projects?limit=1&offset=1", nil), http.StatusOK)
	if pg := jsonObj(t, page, "pagination"); pg["total"] != float64(3) || pg["hasMore"] != true || len(jsonList(t, page, "projects")) != 1 {
		t.Errorf("page = %v", page)
	}
	servertest.WantError(t, f.ann.Session.Do(http.MethodGet, "/api/projects?status=open", nil), http.StatusBadRequest)
	if got := jsonList(t, wantOK(t, f.cat.Session.Do(http.MethodGet, "/api/projects", nil), http.StatusOK), "projects"); len(got) != 0 {
		t.Errorf("cat lists %v", got)
	}
}

// issue 28, Projects: GetProject's cards are every board card filed under
// the project, whoever owns it, most recently updated first; a reader through
// visibility (public: anyone signed in; team: the team's members) has no role
// and sees no invites; unassigning makes a team project private.
func TestGetProjectCardsAndVisibility(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	pid := idOf(f.createProject(t, f.ann, map[string]any{"name": "Board"}))
	f.addProjectMember(t, f.ann, pid, f.bob, "contributor")
	card := func(a *servertest.Account, title string, project bool) string {
		body := map[string]any{"title": title}
		if project {
			body["projectId"] = pid
		}
		return idOf(jsonObj(t, wantOK(t, a.Session.Do(http.MethodPost, "/api/v2/kanban", body), http.StatusCreated), "card"))
	}
	annCard := card(f.ann, "Ann's", true)
	f.s.Clock.Advance(time.Second)
	bobCard := card(f.bob, "Bob's", true)
	f.s.Clock.Advance(time.Second)
	card(f.ann, "Elsewhere", false)
	wantOK(t, f.ann.Session.Do(http.MethodPut, "/api/v2/kanban/"+annCard, map[string]any{"title": "Ann's, edited"}), http.StatusOK)
	f.projectInvite(t, f.ann, pid, map[string]any{"userId": f.gus.ID})

	detail := f.getProject(t, f.bob, pid)
	var cards []string
	for _, c := range jsonList(t, detail, "cards") {
		cards = append(cards, idOf(c.(map[string]any)))
	}
	if want := []string{annCard, bobCard}; !slices.Equal(cards, want) {
		t.Errorf("cards = %v, want %v", cards, want)
	}
	if len(jsonList(t, detail, "invites")) != 1 || jsonObj(t, detail, "project")["role"] != "contributor" {
		t.Errorf("bob's detail: role %v, invites %v", jsonObj(t, detail, "project")["role"], detail["invites"])
	}
	got, err := projectClient(f.s, f.ann, "connect+proto").GetProject(context.Background(), &switchboardv1.GetProjectRequest{Id: pid})
	if err != nil || len(got.GetCards()) != 2 || got.GetCards()[0].GetId() != annCard || len(got.GetInvites()) != 1 || len(got.GetMembers()) != 2 {
		t.Errorf("Connect GetProject: %v %v", got, err)
	}

	// Private: eve is 404. Public: eve reads, without a role or invites.
	servertest.WantError(t, f.eve.Session.Do(http.MethodGet, "/api/projects/"+pid, nil), http.StatusNotFound)
	wantOK(t, f.ann.Session.Do(http.MethodPut, "/api/projects/"+pid, map[string]any{"visibility": "public"}), http.StatusOK)
	pub := f.getProject(t, f.eve, pid)
	if role, has := jsonObj(t, pub, "project")["role"]; has && role != nil {
		t.Errorf("eve reads with role %v", role)
	}
	if inv := jsonList(t, pub, "invites"); len(inv) != 0 {
		t.Errorf("a reader through visibility sees invites %v", inv)
	}
	// Reading is all visibility widens.
	servertest.WantError(t, f.eve.Session.Do(http.MethodPut, "/api/projects/"+pid, map[string]any{"name": "Mine"}), http.StatusNotFound)
	servertest.WantError(t, f.eve.Session.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "x", "projectId": pid}), http.StatusNotFound)
	if ps := jsonList(t, wantOK(t, f.eve.Session.Do(http.MethodGet, "/api/projects", nil), http.StatusOK), "projects"); len(ps) != 0 {
		t.Errorf("eve lists a public project she is not in: %v", ps)
	}

	// Team: the team's members read it; cat, in the team, left the project.
	teamID := idOf(f.createTeam(t, f.ann, nil))
	f.addTeamMember(t, f.ann, teamID, f.cat, "")
	wantOK(t, f.ann.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/projects", map[string]any{"projectId": pid}), http.StatusOK)
	wantOK(t, f.ann.Session.Do(http.MethodPut, "/api/projects/"+pid, map[string]any{"visibility": "team"}), http.StatusOK)
	wantOK(t, f.cat.Session.Do(http.MethodDelete, "/api/projects/"+pid+"/members?memberId="+f.cat.ID, nil), http.StatusOK)
	tv := f.getProject(t, f.cat, pid)
	if role, has := jsonObj(t, tv, "project")["role"]; (has && role != nil) || len(jsonList(t, tv, "invites")) != 0 {
		t.Errorf("cat reads through the team with role %v, invites %v", role, tv["invites"])
	}
	servertest.WantError(t, f.eve.Session.Do(http.MethodGet, "/api/projects/"+pid, nil), http.StatusNotFound)
	// Unassigned, a team project becomes private: cat can no longer read it.
	un := wantOK(t, f.ann.Session.Do(http.MethodDelete, "/api/teams/"+teamID+"/projects?projectId="+pid, nil), http.StatusOK)
	if v := jsonObj(t, un, "project")["visibility"]; v != "private" {
		t.Errorf("visibility after unassigning = %v, want private", v)
	}
	servertest.WantError(t, f.cat.Session.Do(http.MethodGet, "/api/projects/"+pid, nil), http.StatusNotFound)
}

// issue 28, Team ↔ project: assigning adds every team member not yet in the
// project as a contributor through the team, and members joining later too
// (added or by invite); a member leaving the team leaves what they had only
// through it; unassigning removes exactly those who came through the team.
func TestTeamProjectSync(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	teamID := idOf(f.createTeam(t, f.ann, nil))
	f.addTeamMember(t, f.ann, teamID, f.bob, "")
	f.addTeamMember(t, f.ann, teamID, f.cat, "admin")
	pid := idOf(f.createProject(t, f.ann, map[string]any{"name": "Synced"}))
	f.addProjectMember(t, f.ann, pid, f.cat, "reviewer")    // in the team and directly
	f.addProjectMember(t, f.ann, pid, f.dan, "contributor") // directly only

	res, err := teamClient(f.s, f.ann, "connect+json").AssignTeamProject(context.Background(), &switchboardv1.AssignTeamProjectRequest{Id: teamID, ProjectId: pid})
	if err != nil {
		t.Fatalf("assign: %v", err)
	}
	if res.GetAdded() != 1 || res.GetProject().GetTeamId() != teamID {
		t.Errorf("assign answered added %d, teamId %q; want 1 (bob), %s", res.GetAdded(), res.GetProject().GetTeamId(), teamID)
	}
	want := map[string]string{f.ann.ID: "lead/direct", f.bob.ID: "contributor/team", f.cat.ID: "reviewer/direct", f.dan.ID: "contributor/direct"}
	if got := f.projectMembers(t, f.ann, pid); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after assigning: %v, want %v", got, want)
	}
	// The team lists it; GetTeam too.
	if ps := jsonList(t, wantOK(t, f.bob.Session.Do(http.MethodGet, "/api/teams/"+teamID+"/projects", nil), http.StatusOK), "projects"); len(ps) != 1 || idOf(ps[0].(map[string]any)) != pid {
		t.Errorf("team projects = %v", ps)
	}
	if ps := jsonList(t, f.getTeam(t, f.bob, teamID), "projects"); len(ps) != 1 {
		t.Errorf("GetTeam projects = %v", ps)
	}
	// Later members join too: eve added, fay by invite; gus added then removed.
	f.addTeamMember(t, f.cat, teamID, f.eve, "")
	tok := f.invite(t, f.ann, teamID, map[string]any{"userId": f.fay.ID})["token"].(string)
	wantOK(t, answer(f.fay, tok, "accept"), http.StatusOK)
	f.addTeamMember(t, f.ann, teamID, f.gus, "")
	got := f.projectMembers(t, f.ann, pid)
	for _, a := range []*servertest.Account{f.eve, f.fay, f.gus} {
		if got[a.ID] != "contributor/team" {
			t.Errorf("%s, who joined the team later, = %q in the project", a.Username, got[a.ID])
		}
	}
	wantOK(t, f.ann.Session.Do(http.MethodDelete, "/api/teams/"+teamID+"/members?memberId="+f.gus.ID, nil), http.StatusOK)
	if _, in := f.projectMembers(t, f.ann, pid)[f.gus.ID]; in {
		t.Errorf("gus left the team but stays in its project")
	}
	// cat leaving the team keeps her direct seat.
	wantOK(t, f.cat.Session.Do(http.MethodDelete, "/api/teams/"+teamID+"/members?memberId="+f.cat.ID, nil), http.StatusOK)
	if got := f.projectMembers(t, f.ann, pid)[f.cat.ID]; got != "reviewer/direct" {
		t.Errorf("cat after leaving the team = %q, want reviewer/direct", got)
	}

	un := wantOK(t, f.ann.Session.Do(http.MethodDelete, "/api/teams/"+teamID+"/projects?projectId="+pid, nil), http.StatusOK)
	if un["removed"] != float64(3) { // bob, eve, fay
		t.Errorf("unassign removed %v, want 3", un["removed"])
	}
	if tid, has := jsonObj(t, un, "project")["teamId"]; has && tid != nil {
		t.Errorf("teamId after unassigning = %v", tid)
	}
	want = map[string]string{f.ann.ID: "lead/direct", f.cat.ID: "reviewer/direct", f.dan.ID: "contributor/direct"}
	if got := f.projectMembers(t, f.ann, pid); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after unassigning: %v, want %v", got, want)
	}
	servertest.WantError(t, f.bob.Session.Do(http.MethodGet, "/api/projects/"+pid, nil), http.StatusNotFound)
	if ps := jsonList(t, wantOK(t, f.bob.Session.Do(http.MethodGet, "/api/teams/"+teamID+"/projects", nil), http.StatusOK), "projects"); len(ps) != 0 {
		t.Errorf("team projects after unassigning = %v", ps)
	}
	// Unassigned twice: 404. A member added to the team now stays out.
	servertest.WantError(t, f.ann.Session.Do(http.MethodDelete, "/api/teams/"+teamID+"/projects?projectId="+pid, nil), http.StatusNotFound)
	f.addTeamMember(t, f.ann, teamID, f.gus, "")
	if _, in := f.projectMembers(t, f.ann, pid)[f.gus.ID]; in {
		t.Errorf("a member added after unassigning joined the project")
	}

	// CreateProject with teamId assigns as the route does.
	made := f.createProject(t, f.ann, map[string]any{"name": "Born in the team", "teamId": teamID, "visibility": "team"})
	if made["teamId"] != teamID || made["visibility"] != "team" {
		t.Errorf("created with teamId: %v", made)
	}
	got = f.projectMembers(t, f.ann, idOf(made))
	for _, a := range []*servertest.Account{f.bob, f.eve, f.fay, f.gus} {
		if got[a.ID] != "contributor/team" {
			t.Errorf("%s in the project created for the team = %q", a.Username, got[a.ID])
		}
	}
}

// issue 28, Projects: AddProjectMember's refusals and UpdateProject's fields.
func TestProjectMembersAndUpdate(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	pid := idOf(f.createProject(t, f.ann, map[string]any{"name": "Edits"}))
	f.addProjectMember(t, f.ann, pid, f.bob, "")
	before := f.groupRows(t)
	for _, c := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"role lead", map[string]any{"userId": f.cat.ID, "role": "lead"}, 400},
		{"unknown role", map[string]any{"userId": f.cat.ID, "role": "boss"}, 400},
		{"no target", map[string]any{"role": "observer"}, 400},
		{"two targets", map[string]any{"userId": f.cat.ID, "email": f.cat.Email}, 400},
		{"a connection not the caller's", map[string]any{"connectionId": "someconnection"}, 404},
		{"unknown userId", map[string]any{"userId": "nosuchuser"}, 404},
		{"unknown email", map[string]any{"email": "nobody@example.com"}, 404},
		{"already a member", map[string]any{"userId": f.bob.ID}, 409},
		{"the lead by email", map[string]any{"email": f.ann.Email}, 409},
	} {
		for _, tr := range groupTransports {
			t.Run(c.name+"/"+tr, func(t *testing.T) {
				msg := map[string]any{"id": pid}
				for k, v := range c.body {
					msg[k] = v
				}
				groupOutcomes[c.want].check(t, tr, groupCall{"AddProjectMember", msg}, f.ann.Session)
			})
		}
	}
	for _, body := range []map[string]any{{"color": "blue"}, {"status": "archived"}, {"name": ""}, {"visibility": "everyone"}} {
		servertest.WantError(t, f.ann.Session.Do(http.MethodPut, "/api/projects/"+pid, body), http.StatusBadRequest)
	}
	if after := f.groupRows(t); after != before {
		t.Errorf("refusals wrote: %s → %s", before, after)
	}
	m := f.addProjectMember(t, f.bob, pid, f.cat, "observer") // a contributor adds
	if m["memberId"] != f.cat.ID || m["role"] != "observer" || m["via"] != "direct" || m["name"] != "Cat" {
		t.Errorf("member = %v", m)
	}
	if acts := groupTeamActivity(t, f.s, f.bob.ID); !slices.Contains(acts, "project_member_added") {
		t.Errorf("bob's teams activity = %v, want project_member_added", acts)
	}
	up := jsonObj(t, wantOK(t, f.ann.Session.Do(http.MethodPut, "/api/projects/"+pid, map[string]any{
		"name": "Edited", "description": "Now with words", "color": "#ABCDEF", "visibility": "public", "status": "closed",
	}), http.StatusOK), "project")
	for k, want := range map[string]any{"name": "Edited", "description": "Now with words", "color": "#ABCDEF", "visibility": "public", "status": "closed", "memberCount": float64(3)} {
		if up[k] != want {
			t.Errorf("updated %s = %v, want %v", k, up[k], want)
		}
	}
}

// issue 28, Project scope: the queue→board bridge's step 3 links an item
// filed under a project to its owner's most recently updated card there,
// never to a card another member owns; with none of its own, a new card.
func TestQueueBridgeLinksOwnCardsOnly(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	pid := idOf(f.createProject(t, f.ann, nil))
	f.addProjectMember(t, f.ann, pid, f.bob, "")
	f.addProjectMember(t, f.ann, pid, f.cat, "")
	card := func(a *servertest.Account, title string) string {
		return idOf(jsonObj(t, wantOK(t, a.Session.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": title, "projectId": pid}), http.StatusCreated), "card"))
	}
	annOlder := card(f.ann, "Ann's older")
	f.s.Clock.Advance(time.Second)
	annLatest := card(f.ann, "Ann's latest")
	f.s.Clock.Advance(time.Second)
	bobs := card(f.bob, "Bob's, the project's latest")
	f.s.Clock.Advance(time.Second)
	item := func(a *servertest.Account, title string) string {
		it := jsonObj(t, wantOK(t, a.Session.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": title, "projectId": pid}), http.StatusCreated), "item")
		return it["cardId"].(string)
	}
	if got := item(f.ann, "Ann's task"); got != annLatest {
		t.Errorf("ann's item links %s, want her latest card %s (older %s, bob's %s)", got, annLatest, annOlder, bobs)
	}
	if got := item(f.bob, "Bob's task"); got != bobs {
		t.Errorf("bob's item links %s, want his card %s", got, bobs)
	}
	got := item(f.cat, "Cat's task")
	if got == annLatest || got == annOlder || got == bobs {
		t.Fatalf("cat's item links another member's card %s", got)
	}
	c := jsonObj(t, wantOK(t, f.cat.Session.Do(http.MethodGet, "/api/v2/kanban/"+got, nil), http.StatusOK), "card")
	if c["title"] != "Cat's task" {
		t.Errorf("cat's new card = %v", c)
	}
}
