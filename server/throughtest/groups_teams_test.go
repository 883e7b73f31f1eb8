package throughtest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// issue 28, Teams: what a new team holds, its default handle, the creator as
// owner, the activity entry, on both transports.
func TestCreateTeamDefaults(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	team := f.createTeam(t, f.ann, map[string]any{"name": "  Core Team!! Rocks  "})
	for k, want := range map[string]any{
		"name": "Core Team!! Rocks", "handle": "core-team-rocks", "visibility": "public", "isSelfHosted": true,
		"ownerId": f.ann.ID, "role": "owner", "memberCount": float64(1), "description": nil, "avatarUrl": nil,
		"originInstanceUrl": nil,
	} {
		if team[k] != want {
			t.Errorf("%s = %v, want %v", k, team[k], want)
		}
	}
	if created := servertest.At(t, team["createdAt"]); !created.Equal(f.s.Clock.Now()) {
		t.Errorf("createdAt = %v, want the server's clock %v", created, f.s.Clock.Now())
	}
	if got := groupTeamActivity(t, f.s, f.ann.ID); !slices.Contains(got, "team_created") {
		t.Errorf("ann's teams activity = %v, want team_created", got)
	}
	// The handle is the kebab-cased name cut to 30 characters.
	long := f.createTeam(t, f.ann, map[string]any{"name": "The Quick Brown Fox Jumps Over The Lazy Dog"})
	if long["handle"] != "the-quick-brown-fox-jumps-over" {
		t.Errorf("handle of a long name = %v", long["handle"])
	}
	explicit := f.createTeam(t, f.bob, map[string]any{"name": "Bob's crew", "handle": "bobs.crew_2", "description": "We ship",
		"visibility": "private", "avatarUrl": "https://example.com/crew.png"})
	for k, want := range map[string]any{"handle": "bobs.crew_2", "description": "We ship", "visibility": "private",
		"avatarUrl": "https://example.com/crew.png", "role": "owner"} {
		if explicit[k] != want {
			t.Errorf("explicit %s = %v, want %v", k, explicit[k], want)
		}
	}
	for name := range servertest.Protocols() {
		res, err := teamClient(f.s, f.cat, name).CreateTeam(context.Background(), &switchboardv1.CreateTeamRequest{Name: "Via " + name})
		if err != nil {
			t.Fatalf("%s CreateTeam: %v", name, err)
		}
		want := strings.NewReplacer("+", "-").Replace("via-" + name)
		if tm := res.GetTeam(); tm.GetHandle() != want || tm.GetRole() != "owner" || tm.GetOwnerId() != f.cat.ID || !tm.GetIsSelfHosted() || tm.GetMemberCount() != 1 {
			t.Errorf("%s team = %v, want handle %s", name, tm, want)
		}
	}
}

// issue 28, Teams: ListTeams is the caller's teams, newest first, paginated;
// GetTeam orders its members owner, admins, members by joinedAt, shows no
// email, and has subscription null.
func TestListAndGetTeam(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	var made []string
	for i := 0; i < 3; i++ {
		made = append(made, idOf(f.createTeam(t, f.ann, nil)))
		f.s.Clock.Advance(time.Second)
	}
	f.createTeam(t, f.bob, nil) // not ann's
	all := wantOK(t, f.ann.Session.Do(http.MethodGet, "/api/teams", nil), http.StatusOK)
	var got []string
	for _, tm := range jsonList(t, all, "teams") {
		got = append(got, idOf(tm.(map[string]any)))
	}
	if want := []string{made[2], made[1], made[0]}; !slices.Equal(got, want) {
		t.Fatalf("ann's teams = %v, want newest first %v", got, want)
	}
	page := wantOK(t, f.ann.Session.Do(http.MethodGet, "/api/teams?limit=2&offset=1", nil), http.StatusOK)
	if ts := jsonList(t, page, "teams"); len(ts) != 2 || idOf(ts[0].(map[string]any)) != made[1] {
		t.Errorf("page = %v", ts)
	}
	if pg := jsonObj(t, page, "pagination"); pg["total"] != float64(3) || pg["limit"] != float64(2) || pg["offset"] != float64(1) || pg["hasMore"] != false {
		t.Errorf("pagination = %v", pg)
	}

	// Members join in the order eve, bob (admin), cat, dan (admin).
	teamID := made[0]
	for _, m := range []struct {
		who  *servertest.Account
		role string
	}{{f.eve, "member"}, {f.bob, "admin"}, {f.cat, "member"}, {f.dan, "admin"}} {
		f.s.Clock.Advance(time.Minute)
		f.addTeamMember(t, f.ann, teamID, m.who, m.role)
	}
	res := f.cat.Session.Do(http.MethodGet, "/api/teams/"+teamID, nil)
	body := wantOK(t, res, http.StatusOK)
	var order []string
	for _, m := range jsonList(t, body, "members") {
		m := m.(map[string]any)
		order = append(order, m["username"].(string)+":"+m["role"].(string))
		if m["memberId"] != m["userId"] || m["name"] == "" || m["joinedAt"] == nil {
			t.Errorf("member = %v", m)
		}
		if _, has := m["email"]; has {
			t.Errorf("member shows an email key: %v", m)
		}
	}
	if want := []string{"ann:owner", "bob:admin", "dan:admin", "eve:member", "cat:member"}; !slices.Equal(order, want) {
		t.Errorf("members = %v, want %v", order, want)
	}
	if strings.Contains(string(res.Body), "@example.com") {
		t.Errorf("GetTeam shows an email: %s", res.Body)
	}
	if sub, has := body["subscription"]; !has || sub != nil {
		t.Errorf("subscription = %v (present %v), want null", sub, has)
	}
	if ps := jsonList(t, body, "projects"); len(ps) != 0 {
		t.Errorf("projects = %v", ps)
	}
	if tm := jsonObj(t, body, "team"); tm["role"] != "member" || tm["memberCount"] != float64(5) {
		t.Errorf("cat's view of the team = %v", tm)
	}
	// Connect answers the same members in the same order.
	got2, err := teamClient(f.s, f.cat, "connect+proto").GetTeam(context.Background(), &switchboardv1.GetTeamRequest{Id: teamID})
	if err != nil {
		t.Fatal(err)
	}
	var order2 []string
	for _, m := range got2.GetMembers() {
		order2 = append(order2, m.GetUsername()+":"+m.GetRole())
	}
	if !slices.Equal(order, order2) || got2.GetSubscription() != nil {
		t.Errorf("Connect members = %v, subscription %v", order2, got2.GetSubscription())
	}
}

// issue 28, Teams: a handle follows the username rules (400) and shares their
// namespace (409 both ways); /api/username/check says a team's handle is taken.
func TestTeamHandleRules(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	f.createTeam(t, f.ann, map[string]any{"name": "Taken", "handle": "team-taken"})
	cases := []struct {
		name string
		body map[string]any
		want int
	}{
		{"one character", map[string]any{"name": "X", "handle": "x"}, 400},
		{"uppercase", map[string]any{"name": "X", "handle": "Crew"}, 400},
		{"space", map[string]any{"name": "X", "handle": "my crew"}, 400},
		{"other character", map[string]any{"name": "X", "handle": "crew!"}, 400},
		{"31 characters", map[string]any{"name": "X", "handle": strings.Repeat("c", 31)}, 400},
		{"reserved", map[string]any{"name": "X", "handle": "admin"}, 400},
		{"a user's username", map[string]any{"name": "X", "handle": "bob"}, 409},
		{"another team's handle", map[string]any{"name": "X", "handle": "team-taken"}, 409},
		{"a default handle that is a username", map[string]any{"name": "Bob"}, 409},
		{"a default handle that is a team's", map[string]any{"name": "Team Taken"}, 409},
		{"a default handle too short", map[string]any{"name": "!"}, 400},
	}
	before := f.groupRows(t)
	for _, tc := range cases {
		for _, tr := range groupTransports {
			t.Run(tc.name+"/"+tr, func(t *testing.T) {
				groupOutcomes[tc.want].check(t, tr, groupCall{"CreateTeam", tc.body}, f.cat.Session)
			})
		}
	}
	if after := f.groupRows(t); after != before {
		t.Errorf("refused creations wrote: %s → %s", before, after)
	}
	// The same rules on update.
	mine := idOf(f.createTeam(t, f.cat, map[string]any{"name": "Cat crew"}))
	for _, u := range []struct {
		handle string
		want   int
	}{{"Cat", 400}, {"a", 400}, {"support", 400}, {"ann", 409}, {"team-taken", 409}, {"cat-crew", 200}, {"cats.2", 200}} {
		groupOutcomes[u.want].check(t, "REST", groupCall{"UpdateTeam", map[string]any{"id": mine, "handle": u.handle}}, f.cat.Session)
	}
	if got := f.getTeam(t, f.cat, mine)["team"].(map[string]any)["handle"]; got != "cats.2" {
		t.Errorf("handle after updates = %v", got)
	}
	// Conversely, a team's handle is no longer a free username.
	res := f.s.Anonymous().Do(http.MethodGet, "/api/username/check?username=team-taken", nil)
	if res.Status != http.StatusOK || res.JSON(t)["available"] != false {
		t.Errorf("username check of a team handle: %d %s", res.Status, res.Body)
	}
	users := f.s.DB.User.Query().CountX(context.Background())
	res = f.s.Anonymous().Do(http.MethodPost, "/api/signup", map[string]any{
		"username": "team-taken", "email": "squatter@example.com", "password": servertest.Password, "name": "Squatter"})
	servertest.WantError(t, res, http.StatusConflict)
	if n := f.s.DB.User.Query().CountX(context.Background()); n != users {
		t.Errorf("the refused signup made a user: %d → %d", users, n)
	}
	// A handle freed by an update is free again.
	res = f.s.Anonymous().Do(http.MethodGet, "/api/username/check?username=cat-crew", nil)
	if res.Status != http.StatusOK || res.JSON(t)["available"] != true {
		t.Errorf("username check of a freed handle: %d %s", res.Status, res.Body)
	}
}

// RULINGS "Details": the owner transfers ownership to an admin only; the
// former owner becomes an admin and loses the owner's rights.
func TestTeamOwnershipTransfer(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	teamID := f.newTeamRig(t) // ann owner, bob admin, cat and eve members
	for _, c := range []struct {
		name  string
		owner string
	}{{"a member", f.cat.ID}, {"no member", f.dan.ID}, {"an unknown user", "nosuchuser"}} {
		for _, tr := range groupTransports {
			t.Run(c.name+"/"+tr, func(t *testing.T) {
				bad400.check(t, tr, groupCall{"UpdateTeam", map[string]any{"id": teamID, "ownerId": c.owner}}, f.ann.Session)
			})
		}
	}
	c := teamClient(f.s, f.ann, "connect+json")
	res, err := c.UpdateTeam(context.Background(), &switchboardv1.UpdateTeamRequest{Id: teamID, OwnerId: proto.String(f.bob.ID)})
	if err != nil {
		t.Fatalf("transfer: %v", err)
	}
	if res.GetTeam().GetOwnerId() != f.bob.ID || res.GetTeam().GetRole() != "admin" {
		t.Errorf("after the transfer, ann sees %v", res.GetTeam())
	}
	got := memberRoles(t, jsonList(t, f.getTeam(t, f.cat, teamID), "members"))
	if got[f.bob.ID] != "owner" || got[f.ann.ID] != "admin" || got[f.cat.ID] != "member" {
		t.Errorf("roles after the transfer = %v", got)
	}
	// ann is an admin now: she may not delete, nor transfer, nor remove bob.
	_, err = c.DeleteTeam(context.Background(), &switchboardv1.DeleteTeamRequest{Id: teamID})
	servertest.WantCode(t, err, connect.CodePermissionDenied)
	forbidden403.check(t, "REST", groupCall{"UpdateTeam", map[string]any{"id": teamID, "ownerId": f.ann.ID}}, f.ann.Session)
	forbidden403.check(t, "REST", groupCall{"RemoveTeamMember", map[string]any{"id": teamID, "memberId": f.bob.ID}}, f.ann.Session)
	// She still updates as an admin; bob deletes as the owner.
	ok200.check(t, "REST", groupCall{"UpdateTeam", map[string]any{"id": teamID, "description": "Still here"}}, f.ann.Session)
	ok200.check(t, "REST", groupCall{"DeleteTeam", map[string]any{"id": teamID}}, f.bob.Session)
}

// issue 28, Teams: AddTeamMember takes exactly one target and an admin or
// member role; unknown users 404, members 409; the member shows no email;
// team_member_added and team_member_removed are written.
func TestAddAndRemoveTeamMember(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	teamID := idOf(f.createTeam(t, f.ann, nil))
	f.addTeamMember(t, f.ann, teamID, f.cat, "")
	before := f.groupRows(t)
	for _, c := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"role owner", map[string]any{"userId": f.bob.ID, "role": "owner"}, 400},
		{"unknown role", map[string]any{"userId": f.bob.ID, "role": "boss"}, 400},
		{"no target", map[string]any{"role": "member"}, 400},
		{"two targets", map[string]any{"userId": f.bob.ID, "email": f.bob.Email}, 400},
		{"a connection not the caller's", map[string]any{"connectionId": "someconnection"}, 404},
		{"unknown userId", map[string]any{"userId": "nosuchuser"}, 404},
		{"unknown email", map[string]any{"email": "nobody@example.com"}, 404},
		{"already a member", map[string]any{"userId": f.cat.ID}, 409},
		{"already a member by email", map[string]any{"email": f.cat.Email}, 409},
		{"the owner", map[string]any{"userId": f.ann.ID, "role": "admin"}, 409},
	} {
		for _, tr := range groupTransports {
			t.Run(c.name+"/"+tr, func(t *testing.T) {
				msg := map[string]any{"id": teamID}
				for k, v := range c.body {
					msg[k] = v
				}
				groupOutcomes[c.want].check(t, tr, groupCall{"AddTeamMember", msg}, f.ann.Session)
			})
		}
	}
	if after := f.groupRows(t); after != before {
		t.Errorf("refused adds wrote: %s → %s", before, after)
	}
	res := f.ann.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/members", map[string]any{"email": f.bob.Email, "role": "admin"})
	m := jsonObj(t, wantOK(t, res, http.StatusCreated), "member")
	for k, want := range map[string]any{"memberId": f.bob.ID, "userId": f.bob.ID, "name": "Bob", "username": "bob", "role": "admin"} {
		if m[k] != want {
			t.Errorf("member %s = %v, want %v", k, m[k], want)
		}
	}
	if strings.Contains(string(res.Body), f.bob.Email) {
		t.Errorf("the member shows its email: %s", res.Body)
	}
	if joined := servertest.At(t, m["joinedAt"]); !joined.Equal(f.s.Clock.Now()) {
		t.Errorf("joinedAt = %v, want %v", joined, f.s.Clock.Now())
	}
	if got := jsonObj(t, f.getTeam(t, f.bob, teamID), "team"); got["role"] != "admin" || got["memberCount"] != float64(3) {
		t.Errorf("bob's view = %v", got)
	}
	// Removing: a member not in the team is 404; removing cat writes
	// team_member_removed and cat no longer sees the team.
	notFound404.check(t, "REST", groupCall{"RemoveTeamMember", map[string]any{"id": teamID, "memberId": f.dan.ID}}, f.ann.Session)
	_, err := teamClient(f.s, f.bob, "grpc").RemoveTeamMember(context.Background(), &switchboardv1.RemoveTeamMemberRequest{Id: teamID, MemberId: f.cat.ID})
	if err != nil {
		t.Fatalf("remove cat: %v", err)
	}
	servertest.WantError(t, f.cat.Session.Do(http.MethodGet, "/api/teams/"+teamID, nil), http.StatusNotFound)
	acts := groupTeamActivity(t, f.s, f.ann.ID)
	if !slices.Contains(acts, "team_member_added") {
		t.Errorf("ann's teams activity = %v, want team_member_added", acts)
	}
	if !slices.Contains(append(acts, groupTeamActivity(t, f.s, f.bob.ID)...), "team_member_removed") {
		t.Errorf("no team_member_removed in ann's or bob's activity: %v", acts)
	}
}

// issue 28, Teams: DeleteTeam answers the team as it was; members and
// invites go; the team's projects stay, unassigned, and those who were in them
// only through the team leave them.
func TestDeleteTeamKeepsProjects(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	teamID := f.newTeamRig(t) // ann owner, bob admin, cat and eve members
	pid := idOf(f.createProject(t, f.ann, nil))
	f.addProjectMember(t, f.ann, pid, f.cat, "reviewer") // cat is in the project directly too
	wantOK(t, f.ann.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/projects", map[string]any{"projectId": pid}), http.StatusOK)
	inv := wantOK(t, f.ann.Session.Do(http.MethodPost, "/api/teams/"+teamID+"/invites", map[string]any{"message": "Hi"}), http.StatusCreated)
	token := inv["token"].(string)
	asWas := f.getTeam(t, f.ann, teamID)["team"].(map[string]any)

	gone := jsonObj(t, wantOK(t, f.ann.Session.Do(http.MethodDelete, "/api/teams/"+teamID, nil), http.StatusOK), "team")
	if fmt.Sprint(gone) != fmt.Sprint(asWas) {
		t.Errorf("delete answered %v, want the team as it was %v", gone, asWas)
	}
	for _, a := range []*servertest.Account{f.ann, f.bob, f.cat} {
		servertest.WantError(t, a.Session.Do(http.MethodGet, "/api/teams/"+teamID, nil), http.StatusNotFound)
		if ts := jsonList(t, wantOK(t, a.Session.Do(http.MethodGet, "/api/teams", nil), http.StatusOK), "teams"); len(ts) != 0 {
			t.Errorf("%s still lists %v", a.Username, ts)
		}
	}
	servertest.WantError(t, f.s.Anonymous().Do(http.MethodGet, "/api/teams/invite/"+token, nil), http.StatusNotFound)
	p := f.getProject(t, f.ann, pid)
	if tid, has := jsonObj(t, p, "project")["teamId"]; has && tid != nil {
		t.Errorf("the project keeps teamId %v", tid)
	}
	got := memberRoles(t, jsonList(t, p, "members"))
	if want := map[string]string{f.ann.ID: "lead/direct", f.cat.ID: "reviewer/direct"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("project members after the delete = %v, want %v", got, want)
	}
	if n := f.s.DB.TeamMember.Query().CountX(context.Background()); n != 0 {
		t.Errorf("%d team members left", n)
	}
	if n := f.s.DB.TeamInvite.Query().CountX(context.Background()); n != 0 {
		t.Errorf("%d team invites left", n)
	}
}

// issue 28, Teams: only a hub is the managed platform: there a team made
// without originInstanceUrl is not self-hosted, one with it is.
func TestTeamSelfHostedOnAHub(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithRole("hub"))
	s.SignUp("boss")
	ann := s.SignUp("ann")
	for _, c := range []struct {
		body map[string]any
		want bool
	}{
		{map[string]any{"name": "Platform team"}, false},
		{map[string]any{"name": "Home team", "originInstanceUrl": "https://home.example.org"}, true},
	} {
		tm := jsonObj(t, wantOK(t, ann.Session.Do(http.MethodPost, "/api/teams", c.body), http.StatusCreated), "team")
		if tm["isSelfHosted"] != c.want || tm["originInstanceUrl"] != c.body["originInstanceUrl"] {
			t.Errorf("%v on a hub: isSelfHosted %v, originInstanceUrl %v", c.body, tm["isSelfHosted"], tm["originInstanceUrl"])
		}
	}
}
