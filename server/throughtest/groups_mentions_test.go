package throughtest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Teams wherever the spec names them (issue 28, point 7): the chat's
// mentions, the public resolve, the hub's discovery and the MCP door's
// entity_resolve.

// RULINGS "Teams, projects, invites, profiles": mentions type=teams list the
// teams the caller sees: its own (even private) and those every signed-in
// user here sees (public, network), matched and ranked as people are, each
// with its member count; another's private team never.
func TestMentionsTeams(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dave := f.s.SignUp("dave")
	alpha := newTeam(t, f.ann, map[string]any{"name": "Alpha Ops", "avatarUrl": "https://cdn.example.com/alpha.png"})
	newTeam(t, f.ann, map[string]any{"name": "Alpine Club", "visibility": "private"})
	newTeam(t, f.bob, map[string]any{"name": "Alps Lodge", "visibility": "private"})
	newTeam(t, f.bob, map[string]any{"name": "Altitude", "visibility": "network"})
	newTeam(t, dave, map[string]any{"name": "Big Al"})
	joinTeam(t, f.ann, alpha, f.bob)

	got := both(t, f, f.annKey, "teams", "al")
	wantNames(t, got, "Alpha Ops", "Alpine Club", "Altitude", "Big Al")
	first := got[0]
	if first.ID != alpha || first.Type != "team" || first.Subtitle == nil || *first.Subtitle != "@alpha-ops" ||
		first.Avatar == nil || *first.Avatar != "https://cdn.example.com/alpha.png" || first.MemberCount == nil || *first.MemberCount != 2 {
		t.Fatalf("Alpha Ops: %v", first)
	}
	if n := got[1].MemberCount; n == nil || *n != 1 {
		t.Fatalf("Alpine Club's members: %v", got[1])
	}
	// Bob sees his private team and not ann's; the handle matches too.
	wantNames(t, both(t, f, f.bobKey, "teams", "al"), "Alpha Ops", "Alps Lodge", "Altitude", "Big Al")
	wantNames(t, both(t, f, f.bobKey, "teams", "ALPS-"), "Alps Lodge")
	// An empty q answers the first by name.
	wantNames(t, both(t, f, f.annKey, "teams", ""), "Alpha Ops", "Alpine Club", "Altitude", "Big Al")
}

// resolved is /api/users/resolve's bare map, as handle → type.
func resolved(t *testing.T, c *servertest.Caller, handles string) map[string]map[string]any {
	t.Helper()
	res := c.Do(http.MethodGet, "/api/users/resolve?usernames="+handles, nil)
	servertest.WantStatus(t, res, http.StatusOK)
	var out map[string]map[string]any
	if err := json.Unmarshal(res.Body, &out); err != nil {
		t.Fatalf("resolve: %s", res.Body)
	}
	return out
}

func handles(m map[string]map[string]any) string {
	out := make([]string, 0, len(m))
	for h, v := range m {
		out = append(out, h+":"+v["type"].(string))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// The resolve answers type team for a team's handle. Anonymous callers get
// only public users and teams (Reconciliation 19); a session or any key of
// this instance also network ones, its own account and its own teams.
func TestResolveTeamsAndVisibility(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann, bob, carl, dave := s.SignUp("ann"), s.SignUp("bob"), s.SignUp("carl"), s.SignUp("dave")
	setProfile(t, bob, map[string]any{"profileVisibility": "network"})
	setProfile(t, carl, map[string]any{"profileVisibility": "private"})
	open := newTeam(t, ann, map[string]any{"name": "Alpha Ops", "avatarUrl": "https://cdn.example.com/alpha.png"})
	newTeam(t, ann, map[string]any{"name": "Back Room", "visibility": "private"})
	newTeam(t, ann, map[string]any{"name": "Net Crew", "visibility": "network"})
	all := "ann,@bob,carl,dave,alpha-ops,back-room,net-crew,nobody"

	got := resolved(t, s.Anonymous(), all)
	if h := handles(got); h != "alpha-ops:team ann:user dave:user" {
		t.Fatalf("anonymous: %s", h)
	}
	team := got["alpha-ops"]
	if team["id"] != open || team["name"] != "Alpha Ops" || team["username"] != "alpha-ops" || team["avatar"] != "https://cdn.example.com/alpha.png" {
		t.Fatalf("the team: %v", team)
	}
	for who, c := range map[string]*servertest.Caller{"a session": dave.Session, "a key": s.WithKey(dave.NewKey("any", "queue"))} {
		if h := handles(resolved(t, c, all)); h != "alpha-ops:team ann:user bob:user dave:user net-crew:team" {
			t.Errorf("%s: %s", who, h)
		}
	}
	if h := handles(resolved(t, carl.Session, all)); h != "alpha-ops:team ann:user bob:user carl:user dave:user net-crew:team" {
		t.Errorf("carl herself: %s", h)
	}
	if h := handles(resolved(t, ann.Session, all)); h != "alpha-ops:team ann:user back-room:team bob:user dave:user net-crew:team" {
		t.Errorf("the private team's member: %s", h)
	}
	// The Connect form answers the same.
	res := s.Anonymous().Do(http.MethodPost, "/switchboard.v1.AccountService/ResolveUsers", map[string]any{"usernames": "back-room,alpha-ops"},
		"Connect-Protocol-Version", "1")
	servertest.WantStatus(t, res, http.StatusOK)
	if body := string(res.Body); !strings.Contains(body, `"alpha-ops":{`) || strings.Contains(body, "back-room") || !strings.Contains(body, `"type":"team"`) {
		t.Fatalf("Connect: %s", body)
	}
}

// Document 2 /network/discover on a hub: type teams (and all) lists the
// public teams, paged as the other lists; profiles list only public ones.
func TestDiscoverTeams(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithRole("hub"))
	ann, bob, carl := s.SignUp("ann"), s.SignUp("bob"), s.SignUp("carl")
	setProfile(t, bob, map[string]any{"profileVisibility": "network"})
	setProfile(t, carl, map[string]any{"profileVisibility": "private"})
	newTeam(t, ann, map[string]any{"name": "Beta Crew", "description": "Second", "avatarUrl": "https://cdn.example.com/b.png"})
	alpha := newTeam(t, ann, map[string]any{"name": "Alpha Ops"})
	newTeam(t, ann, map[string]any{"name": "Back Room", "visibility": "private"})
	newTeam(t, ann, map[string]any{"name": "Net Crew", "visibility": "network"})

	discover := func(query string) map[string]any {
		t.Helper()
		res := s.Anonymous().Do(http.MethodGet, "/api/v2/network/discover?"+query, nil)
		servertest.WantStatus(t, res, http.StatusOK)
		return res.JSON(t)
	}
	list := func(v any, field string) string {
		var out []string
		for _, o := range v.([]any) {
			out = append(out, o.(map[string]any)[field].(string))
		}
		return strings.Join(out, " ")
	}
	got := discover("type=teams")
	if list(got["teams"], "handle") != "alpha-ops beta-crew" || got["totals"].(map[string]any)["teams"] != 2.0 ||
		len(got["profiles"].([]any)) != 0 || len(got["agents"].([]any)) != 0 || got["note"] != nil {
		t.Fatalf("type=teams: %v", got)
	}
	first := got["teams"].([]any)[0].(map[string]any)
	if first["id"] != alpha || first["name"] != "Alpha Ops" || first["instanceUrl"] != nil {
		t.Fatalf("a team: %v", first)
	}
	paged := discover("type=teams&limit=1&offset=1")
	beta := paged["teams"].([]any)
	if len(beta) != 1 || beta[0].(map[string]any)["handle"] != "beta-crew" || beta[0].(map[string]any)["description"] != "Second" ||
		beta[0].(map[string]any)["avatarUrl"] != "https://cdn.example.com/b.png" || paged["totals"].(map[string]any)["teams"] != 2.0 {
		t.Fatalf("page 2: %v", paged)
	}
	if got := discover("q=BETA"); list(got["teams"], "handle") != "beta-crew" || got["type"] != "all" {
		t.Fatalf("type all, q=BETA: %v", got)
	}
	if got := discover("type=teams&offset=5"); len(got["teams"].([]any)) != 0 || got["totals"].(map[string]any)["teams"] != 2.0 {
		t.Fatalf("past the end: %v", got)
	}
	if got := discover("type=profiles"); list(got["profiles"], "username") != "ann" {
		t.Fatalf("profiles: %v", got["profiles"])
	}
}

// entity_resolve's team_members: the members of the caller's teams by name
// or username, each once, as GetTeam answers them; a key without the
// projects scope, or a team the caller is not in, finds none.
func TestEntityResolveTeamMembers(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann, bob, carl, erin := s.SignUp("ann"), s.SignUp("bob"), s.SignUp("carl"), s.SignUp("erin")
	night := newTeam(t, ann, map[string]any{"name": "Night Ops"})
	day := newTeam(t, ann, map[string]any{"name": "Day Ops", "visibility": "private"})
	joinTeam(t, ann, night, bob)
	joinTeam(t, ann, day, bob)
	other := newTeam(t, carl, map[string]any{"name": "Elsewhere"})
	joinTeam(t, carl, other, erin)

	resolve := func(key, query string) []map[string]any {
		t.Helper()
		res := s.WithKey(key).Do(http.MethodPost, "/api/mcp", map[string]any{"method": "tools/call",
			"params": map[string]any{"name": "entity_resolve", "arguments": map[string]any{"query": query, "surfaces": []string{"team_members"}}}})
		servertest.WantStatus(t, res, http.StatusOK)
		var body struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Results map[string][]map[string]any `json:"results"`
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(res.Body, &body); err != nil || body.IsError {
			t.Fatalf("entity_resolve: %s", res.Body)
		}
		return body.StructuredContent.Results["team_members"]
	}
	annKey := ann.NewKey("scout", "mcp", "projects")
	found := resolve(annKey, "bob")
	if len(found) != 1 {
		t.Fatalf("bob in two of ann's teams: %v", found)
	}
	row := found[0]["row"].(map[string]any)
	if found[0]["id"] != bob.ID || found[0]["label"] != "Bob" || found[0]["score"] != 1.0 ||
		row["userId"] != bob.ID || row["username"] != "bob" || row["role"] != "member" || row["email"] != nil {
		t.Fatalf("bob: %v", found[0])
	}
	if got := resolve(annKey, "erin"); len(got) != 0 {
		t.Fatalf("erin is in no team of ann's: %v", got)
	}
	if got := resolve(carl.NewKey("scout", "mcp", "projects"), "ERIN"); len(got) != 1 || got[0]["id"] != erin.ID {
		t.Fatalf("carl's team: %v", got)
	}
	if got := resolve(ann.NewKey("bare", "mcp"), "bob"); len(got) != 0 {
		t.Fatalf("a key without projects: %v", got)
	}
}
