package throughtest

import (
	"context"
	"crypto/rand"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/federationauditlog"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/network/networktest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Teams, projects, invites, profiles": Profiles (issue 28, point 8).

// profileWorld is an instance (a) with the operator network on, its
// accounts, and a connected peer instance whose token a presents to a.
type profileWorld struct {
	a               *servertest.Server
	ann, bob, dave  *servertest.Account
	bobKey, bareKey string // bob's keys: with the scope projects, and with another scope
	peerToken       string // what the peer presents to a
}

func newProfileWorld(t *testing.T) *profileWorld {
	t.Helper()
	// Every caller here shares one address: the profile pages' per-IP
	// class is not what these tests count.
	limits := servertest.WithLimits(gate.Limits{Federation: 10_000})
	a := servertest.New(t, append(networktest.Options(), limits)...)
	key := make([]byte, secrets.KeySize)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	b := servertest.New(t, append(networktest.Options(), servertest.WithSecretKey(key))...)
	w := &profileWorld{a: a, ann: a.SignUp("ann"), bob: a.SignUp("bob"), dave: a.SignUp("dave")}
	w.bobKey, w.bareKey = w.bob.NewKey("agent", "projects"), w.bob.NewKey("other", "queue")
	carl := b.SignUp("carl")
	fromB, _ := networktest.Connect(t, b, carl, a, w.ann)
	row, err := b.DB.NetworkConnection.Get(context.Background(), fromB)
	if err != nil {
		t.Fatal(err)
	}
	if w.peerToken, err = box.OpenText(*row.PeerTokenSealed, network.PeerAAD(row.ID)); err != nil {
		t.Fatal(err)
	}
	return w
}

// caller is one kind of viewer of a profile.
type caller struct {
	name string
	do   func(path string) *servertest.Response
}

func (w *profileWorld) callers() []caller {
	get := func(c *servertest.Caller, hdr ...string) func(string) *servertest.Response {
		return func(path string) *servertest.Response { return c.Do(http.MethodGet, path, nil, hdr...) }
	}
	return []caller{
		{"anonymous", get(w.a.Anonymous())},
		{"a key without projects (served as anyone)", get(w.a.WithKey(w.bareKey))},
		{"a local user's session", get(w.bob.Session)},
		{"a local user's key", get(w.a.WithKey(w.bobKey))},
		{"a connected peer", get(w.a.Anonymous(), "X-Federation-Token", w.peerToken)},
		{"the user", get(w.ann.Session)},
		{"a team member", get(w.dave.Session)},
	}
}

// Each visibility against each caller: visible (200) or 404, the answer of
// an id that names nothing.
func TestProfileVisibilityByCaller(t *testing.T) {
	t.Parallel()
	w := newProfileWorld(t)
	teamID := newTeam(t, w.ann, map[string]any{"name": "Night Ops"})
	joinTeam(t, w.ann, teamID, w.dave)
	seen := map[string]map[string]bool{
		// visibility → caller → visible, for ann's profile and for her team
		// (dave is a member of the team, and another user to ann).
		"public":  {"anonymous": true, "a key without projects (served as anyone)": true, "a local user's session": true, "a local user's key": true, "a connected peer": true, "the user": true, "a team member": true},
		"network": {"anonymous": false, "a key without projects (served as anyone)": false, "a local user's session": true, "a local user's key": true, "a connected peer": true, "the user": true, "a team member": true},
		"private": {"anonymous": false, "a key without projects (served as anyone)": false, "a local user's session": false, "a local user's key": false, "a connected peer": false, "the user": true, "a team member": false},
	}
	teamSeen := map[string]map[string]bool{
		"public":  seen["public"],
		"network": seen["network"],
		"private": {"anonymous": false, "a key without projects (served as anyone)": false, "a local user's session": false, "a local user's key": false, "a connected peer": false, "the user": true, "a team member": true},
	}
	for _, vis := range []string{"public", "network", "private"} {
		setProfile(t, w.ann, map[string]any{"profileVisibility": vis})
		servertest.WantStatus(t, w.ann.Session.Do(http.MethodPut, "/api/teams/"+teamID, map[string]any{"visibility": vis}), http.StatusOK)
		for _, c := range w.callers() {
			res := c.do("/api/profiles/" + w.ann.ID)
			if want := seen[vis][c.name]; want {
				servertest.WantStatus(t, res, http.StatusOK)
				if got := res.JSON(t); got["id"] != w.ann.ID || got["username"] != "ann" || got["name"] != "Ann" {
					t.Errorf("%s profile to %s: %s", vis, c.name, res.Body)
				}
			} else {
				servertest.WantError(t, res, http.StatusNotFound)
			}
			res = c.do("/api/teams/" + teamID + "/profile")
			if want := teamSeen[vis][c.name]; want {
				servertest.WantStatus(t, res, http.StatusOK)
				if got := res.JSON(t); got["team"].(map[string]any)["visibility"] != vis || got["memberCount"] != 2.0 {
					t.Errorf("%s team to %s: %s", vis, c.name, res.Body)
				}
			} else {
				servertest.WantError(t, res, http.StatusNotFound)
			}
		}
	}
	// An id that names nothing is the same 404 to everyone.
	for _, c := range w.callers() {
		servertest.WantError(t, c.do("/api/profiles/nobody"), http.StatusNotFound)
		servertest.WantError(t, c.do("/api/teams/nothing/profile"), http.StatusNotFound)
	}
}

// A presented federation token is checked before anything: one no
// connection holds is 401, even for a public profile.
func TestProfilePeerTokenChecked(t *testing.T) {
	t.Parallel()
	w := newProfileWorld(t)
	teamID := newTeam(t, w.ann, map[string]any{"name": "Night Ops"})
	for _, path := range []string{"/api/profiles/" + w.ann.ID, "/api/teams/" + teamID + "/profile", "/api/profiles/nobody"} {
		servertest.WantError(t, w.a.Anonymous().Do(http.MethodGet, path, nil, "X-Federation-Token", "sbf_not-a-connection"),
			http.StatusUnauthorized)
		servertest.WantStatus(t, w.a.Anonymous().Do(http.MethodGet, strings.Replace(path, "nobody", w.bob.ID, 1), nil,
			"X-Federation-Token", w.peerToken), http.StatusOK)
	}
	// A peer's reads are federation calls, guarded and audited; anyone
	// else's are not.
	audited := func() int {
		n, err := w.a.DB.FederationAuditLog.Query().Where(federationauditlog.DirectionEQ(federationauditlog.DirectionInbound),
			federationauditlog.EndpointHasPrefix("/api/")).Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := audited()
	servertest.WantStatus(t, w.a.Anonymous().Do(http.MethodGet, "/api/teams/"+teamID+"/profile", nil), http.StatusOK)
	servertest.WantStatus(t, w.bob.Session.Do(http.MethodGet, "/api/profiles/"+w.ann.ID, nil), http.StatusOK)
	if n := audited(); n != before {
		t.Fatalf("reads without a federation token audited: %d → %d", before, n)
	}
	servertest.WantStatus(t, w.a.Anonymous().Do(http.MethodGet, "/api/teams/"+teamID+"/profile", nil, "X-Federation-Token", w.peerToken), http.StatusOK)
	if n := audited(); n != before+1 {
		t.Fatalf("a peer's read audited %d times", n-before)
	}
	// The Connect form reads the same credential.
	res := w.a.Anonymous().Do(http.MethodPost, "/switchboard.v1.ProfileService/GetProfile", map[string]any{"userId": w.ann.ID},
		"Connect-Protocol-Version", "1", "X-Federation-Token", "sbf_not-a-connection")
	servertest.WantStatus(t, res, http.StatusUnauthorized)
}

// The profile's contents: the settings' bio, the capabilities, the
// reputation (null before any review), and only public teams and projects;
// a team's profile counts its members and shows its public projects.
func TestProfileContents(t *testing.T) {
	t.Parallel()
	w := newProfileWorld(t)
	anon := w.a.Anonymous()
	res := anon.Do(http.MethodGet, "/api/profiles/"+w.ann.ID, nil)
	servertest.WantStatus(t, res, http.StatusOK)
	if got := string(res.Body); !strings.Contains(got, `"bio":""`) || !strings.Contains(got, `"reputation":null`) ||
		!strings.Contains(got, `"capabilities":[]`) || !strings.Contains(got, `"teams":[]`) || !strings.Contains(got, `"projects":[]`) ||
		strings.Contains(got, "ann@example.com") {
		t.Fatalf("a new profile: %s", got)
	}

	// The bio through the PUT path, a capability, a reputation.
	servertest.WantStatus(t, w.ann.Session.Do(http.MethodPut, "/api/settings", map[string]any{"bio": "Runs the night shift"}), http.StatusOK)
	netKey := w.ann.NewKey("economy", "network")
	servertest.WantStatus(t, w.a.WithKey(netKey).Do(http.MethodPost, "/api/economy/capabilities",
		map[string]any{"taskType": "technical", "skills": []string{"Go"}, "description": "Backend reviews"}), http.StatusCreated)
	now := time.Now().UTC()
	w.a.DB.UserReputation.Create().SetUserID(w.ann.ID).SetTaskEconomyRole("provider").SetReputationScore(72.5).
		SetAvgRating(4.5).SetReviewsReceived(2).SetCreatedAt(now).SetUpdatedAt(now).ExecX(context.Background())

	public := newTeam(t, w.ann, map[string]any{"name": "Open Crew", "description": "Anyone may look"})
	hidden := newTeam(t, w.ann, map[string]any{"name": "Back Room", "visibility": "private"})
	network := newTeam(t, w.bob, map[string]any{"name": "Bob Net", "visibility": "network"})
	joinTeam(t, w.bob, network, w.ann)
	shown := newProject(t, w.ann, map[string]any{"name": "Launch", "visibility": "public", "teamId": public})
	newProject(t, w.ann, map[string]any{"name": "Secret plan", "teamId": public})
	newProject(t, w.ann, map[string]any{"name": "Team plan", "visibility": "team", "teamId": hidden})

	res = anon.Do(http.MethodGet, "/api/profiles/"+w.ann.ID, nil)
	servertest.WantStatus(t, res, http.StatusOK)
	p := res.JSON(t)
	if p["bio"] != "Runs the night shift" {
		t.Errorf("bio: %v", p["bio"])
	}
	caps := p["capabilities"].([]any)
	if len(caps) != 1 || caps[0].(map[string]any)["taskType"] != "technical" || caps[0].(map[string]any)["description"] != "Backend reviews" {
		t.Errorf("capabilities: %v", caps)
	}
	rep, _ := p["reputation"].(map[string]any)
	if rep["taskEconomyRole"] != "provider" || rep["reputationScore"] != 72.5 || rep["avgRating"] != 4.5 || rep["reviewsReceived"] != 2.0 {
		t.Errorf("reputation: %v", p["reputation"])
	}
	if teams := nameList(p["teams"]); teams != "Open Crew" {
		t.Errorf("teams: %s (want the public team only)", teams)
	}
	if projects := nameList(p["projects"]); projects != "Launch" {
		t.Errorf("projects: %s (want the public project only)", projects)
	}

	res = anon.Do(http.MethodGet, "/api/teams/"+public+"/profile", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	tp := res.JSON(t)
	team := tp["team"].(map[string]any)
	if team["name"] != "Open Crew" || team["handle"] != "open-crew" || team["description"] != "Anyone may look" ||
		team["visibility"] != "public" || tp["memberCount"] != 1.0 {
		t.Errorf("team profile: %s", res.Body)
	}
	if got := tp["projects"].([]any); len(got) != 1 || got[0].(map[string]any)["id"] != shown {
		t.Errorf("team projects: %v", got)
	}
	// The Connect form answers the same, and hides the same.
	res = w.a.Anonymous().Do(http.MethodPost, "/switchboard.v1.ProfileService/GetTeamProfile", map[string]any{"id": public},
		"Connect-Protocol-Version", "1")
	servertest.WantStatus(t, res, http.StatusOK)
	if got := res.JSON(t); got["memberCount"] != 1.0 || got["team"].(map[string]any)["handle"] != "open-crew" {
		t.Errorf("Connect team profile: %s", res.Body)
	}
	res = w.a.Anonymous().Do(http.MethodPost, "/switchboard.v1.ProfileService/GetTeamProfile", map[string]any{"id": hidden},
		"Connect-Protocol-Version", "1")
	if res.Status != http.StatusNotFound || res.JSON(t)["code"] != "not_found" {
		t.Errorf("Connect private team: %d %s", res.Status, res.Body)
	}
	// A private profile hides everything from the others, and the owner
	// still reads it whole.
	setProfile(t, w.ann, map[string]any{"profileVisibility": "private"})
	servertest.WantError(t, anon.Do(http.MethodGet, "/api/profiles/"+w.ann.ID, nil), http.StatusNotFound)
	res = w.ann.Session.Do(http.MethodGet, "/api/profiles/"+w.ann.ID, nil)
	servertest.WantStatus(t, res, http.StatusOK)
	if nameList(res.JSON(t)["teams"]) != "Open Crew" {
		t.Errorf("the owner's view: %s", res.Body)
	}
}

// nameList joins the name of each object of a JSON list with "|".
func nameList(v any) string {
	var out []string
	for _, o := range v.([]any) {
		out = append(out, o.(map[string]any)["name"].(string))
	}
	return strings.Join(out, "|")
}

// The settings hold profileVisibility (default public) and bio on both
// update paths; values outside the vocabulary and an over-long bio are 400
// and change nothing.
func TestProfileSettings(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	res := ann.Session.Do(http.MethodGet, "/api/v2/settings", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	if got := res.JSON(t); got["profileVisibility"] != "public" || got["bio"] != "" {
		t.Fatalf("defaults: %s", res.Body)
	}
	res = ann.Session.Do(http.MethodPatch, "/api/v2/settings", map[string]any{"profileVisibility": "network", "bio": "Hello"})
	servertest.WantStatus(t, res, http.StatusOK)
	if string(res.Body) != "{\"profileVisibility\":\"network\",\"bio\":\"Hello\"}\n" {
		t.Fatalf("PATCH answered %s", res.Body)
	}
	// The feed names the visibility, never the bio's words.
	if feed := string(ann.Session.Do(http.MethodGet, "/api/activity?category=settings", nil).Body); !strings.Contains(feed, "profileVisibility=network") ||
		!strings.Contains(feed, "bio updated") || strings.Contains(feed, "Hello") {
		t.Fatalf("activity: %s", feed)
	}
	res = ann.Session.Do(http.MethodPut, "/api/settings", map[string]any{"profileVisibility": "private"})
	servertest.WantStatus(t, res, http.StatusOK)
	for _, bad := range []map[string]any{
		{"profileVisibility": "hidden"},
		{"profileVisibility": ""},
		{"bio": strings.Repeat("é", 2001)},
	} {
		servertest.WantError(t, ann.Session.Do(http.MethodPatch, "/api/v2/settings", bad), http.StatusBadRequest)
	}
	servertest.WantStatus(t, ann.Session.Do(http.MethodPatch, "/api/v2/settings", map[string]any{"bio": strings.Repeat("é", 2000)}), http.StatusOK)
	res = ann.Session.Do(http.MethodGet, "/api/v2/settings", nil)
	if got := res.JSON(t); got["profileVisibility"] != "private" || got["bio"] != strings.Repeat("é", 2000) {
		t.Fatalf("after the refusals: %s", res.Body)
	}
}
