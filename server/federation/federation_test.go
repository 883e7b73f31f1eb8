package federation_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/federation/spoke"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// network is a hub and a standalone instance on loopback, each with its
// own database, and their admins.
type network struct {
	hub, spoke           *servertest.Server
	hubAdmin, spokeAdmin *servertest.Account
}

func newNetwork(t *testing.T) *network {
	t.Helper()
	n := &network{
		hub:   servertest.New(t, servertest.WithRole("hub"), servertest.WithPrivateEndpoints()),
		spoke: servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints()),
	}
	n.hubAdmin, n.spokeAdmin = n.hub.SignUp("owner"), n.spoke.SignUp("owner")
	return n
}

// connectToken is a connect token of purpose instance minted by the hub's admin.
func (n *network) connectToken(t *testing.T) string {
	t.Helper()
	res := n.hubAdmin.Session.Do(http.MethodPost, "/api/developer/connect-tokens", map[string]any{"purpose": "instance"})
	if res.Status != http.StatusCreated {
		t.Fatalf("instance token: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)["token"].(map[string]any)["token"].(string)
}

func (n *network) join(t *testing.T) map[string]any {
	t.Helper()
	res := n.spokeAdmin.Session.Do(http.MethodPost, "/api/federation/join",
		map[string]any{"hubUrl": n.hub.URL, "connectToken": n.connectToken(t), "storeParticipation": true, "name": "Spoke A"})
	if res.Status != http.StatusOK {
		t.Fatalf("join: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)["status"].(map[string]any)
}

// instances is the hub admin's list.
func (n *network) instances(t *testing.T) []any {
	t.Helper()
	res := n.hubAdmin.Session.Do(http.MethodGet, "/api/admin/federation/instances", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("instances: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)["instances"].([]any)
}

func (n *network) instance(t *testing.T) map[string]any {
	t.Helper()
	list := n.instances(t)
	if len(list) != 1 {
		t.Fatalf("instances: %v", list)
	}
	return list[0].(map[string]any)
}

// TestJoinHeartbeatLeave: RULINGS "Federation: instances and the platform"
// (joining, verification, heartbeat, stale, deactivation, rotate, leave),
// over two real servers with their own databases.
func TestJoinHeartbeatLeave(t *testing.T) {
	t.Parallel()
	n := newNetwork(t)

	status := n.join(t)
	if status["joined"] != true || status["hubUrl"] != n.hub.URL || status["storeParticipation"] != true {
		t.Fatalf("joined status: %v", status)
	}
	// The first heartbeat went at join and the hub answered its network.
	hb := status["lastHeartbeat"].(map[string]any)
	if hb["ok"] != true || hb["network"].(map[string]any)["instances"] != float64(1) {
		t.Fatalf("first heartbeat: %v", hb)
	}
	inst := n.instance(t)
	if inst["baseUrl"] != n.spoke.URL || inst["name"] != "Spoke A" || inst["status"] != "active" ||
		inst["health"] != "healthy" || inst["lastHeartbeatAt"] == nil || inst["id"] != status["instanceId"] {
		t.Fatalf("hub's view: %v", inst)
	}
	// The pending secret is gone once joined: verification answers nothing.
	if res := n.spoke.Anonymous().Do(http.MethodGet, federation.WellKnownPath+"?nonce=abc", nil); res.Status != http.StatusNotFound {
		t.Fatalf("verification after join: %d %s", res.Status, res.Body)
	}
	// Joining again is a conflict.
	res := n.spokeAdmin.Session.Do(http.MethodPost, "/api/federation/join",
		map[string]any{"hubUrl": n.hub.URL, "connectToken": n.connectToken(t)})
	if res.Status != http.StatusConflict {
		t.Fatalf("second join: %d %s", res.Status, res.Body)
	}

	// The loop sends heartbeats on the spoke's clock; the hub stamps them
	// with its own.
	n.hub.Clock.Advance(10 * time.Minute)
	want := n.hub.Clock.Now().UTC().Format(time.RFC3339)
	deadline := time.Now().Add(10 * time.Second)
	for n.instance(t)["lastHeartbeatAt"].(string)[:len(want)-1] != want[:len(want)-1] {
		if time.Now().After(deadline) {
			t.Fatalf("no heartbeat at %s: %v", want, n.instance(t))
		}
		n.spoke.Clock.Advance(spoke.DefaultHeartbeatInterval)
		time.Sleep(20 * time.Millisecond)
	}

	// Stale after 24 hours without one. A heartbeat the last spoke step
	// started may land after the hub's clock moved and restart the 24 hours:
	// then the hub moves again.
	for attempt := 1; ; attempt++ {
		n.hub.Clock.Advance(25 * time.Hour)
		got := n.instance(t)
		if got["status"] == "stale" {
			break
		}
		last := servertest.At(t, got["lastHeartbeatAt"])
		if attempt == 3 || n.hub.Clock.Now().Sub(last) > 24*time.Hour {
			t.Fatalf("after 25 h without a heartbeat: %v", got)
		}
	}

	// Deactivation: heartbeats still land, rotation is refused.
	id := inst["id"].(string)
	res = n.hubAdmin.Session.Do(http.MethodPost, "/api/admin/federation/instances/"+id+"/deactivate", map[string]any{})
	if res.Status != http.StatusOK || res.JSON(t)["instance"].(map[string]any)["status"] != "deactivated" {
		t.Fatalf("deactivate: %d %s", res.Status, res.Body)
	}
	res = n.spokeAdmin.Session.Do(http.MethodPost, "/api/federation/rotate", map[string]any{})
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "deactivated") {
		t.Fatalf("rotate while deactivated: %d %s", res.Status, res.Body)
	}
	res = n.hubAdmin.Session.Do(http.MethodPost, "/api/admin/federation/instances/"+id+"/reactivate", map[string]any{})
	if res.Status != http.StatusOK || res.JSON(t)["instance"].(map[string]any)["status"] == "deactivated" {
		t.Fatalf("reactivate: %d %s", res.Status, res.Body)
	}

	// Rotation: a new token on the hub, and the spoke keeps working with it.
	before := n.instance(t)["tokenPrefix"]
	res = n.spokeAdmin.Session.Do(http.MethodPost, "/api/federation/rotate", map[string]any{})
	if res.Status != http.StatusOK {
		t.Fatalf("rotate: %d %s", res.Status, res.Body)
	}
	if after := n.instance(t)["tokenPrefix"]; after == before || !strings.HasPrefix(after.(string), auth.PlatformTokenPrefix) {
		t.Fatalf("token prefix %v → %v", before, after)
	}

	// Leaving tells the hub; joining again works with a fresh token.
	res = n.spokeAdmin.Session.Do(http.MethodPost, "/api/federation/leave", map[string]any{})
	if res.Status != http.StatusOK || res.JSON(t)["hubTold"] != true || res.JSON(t)["status"].(map[string]any)["joined"] == true {
		t.Fatalf("leave: %d %s", res.Status, res.Body)
	}
	if got := n.instance(t)["status"]; got != "left" {
		t.Fatalf("after leave: %v", got)
	}
	if st := n.join(t); st["instanceId"] != id {
		t.Fatalf("rejoin made a new instance: %v, had %s", st["instanceId"], id)
	}
	if got := n.instance(t)["status"]; got != "active" {
		t.Fatalf("after rejoin: %v", got)
	}
}

// fakeSpoke answers verification with whatever secret it is told.
type fakeSpoke struct {
	*httptest.Server
	secret atomic.Value
	echo   atomic.Bool
}

func newFakeSpoke(t *testing.T) *fakeSpoke {
	f := &fakeSpoke{}
	f.echo.Store(true)
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nonce := r.URL.Query().Get("nonce")
		if r.URL.Path != federation.WellKnownPath {
			http.NotFound(w, r)
			return
		}
		echoed := nonce
		if !f.echo.Load() {
			echoed = "something-else"
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"nonce": echoed, "signature": federation.Sign(f.secret.Load().(string), nonce)})
	}))
	t.Cleanup(f.Close)
	return f
}

func secret(c byte) string { return auth.InstanceKeyPrefix + strings.Repeat(string(c), 40) }

// TestRegisterRefusals: RULINGS "Federation: instances and the platform":
// registration is refused when verification fails and nothing is recorded
// (the connect token stays unused); another apiKey for a registered baseUrl
// is 403; each route takes one kind of credential (401 otherwise).
func TestRegisterRefusals(t *testing.T) {
	t.Parallel()
	n := newNetwork(t)
	fake := newFakeSpoke(t)
	register := func(token, key string) *servertest.Response {
		return n.hub.WithKey(token).Do(http.MethodPost, "/api/v2/federation/register",
			map[string]any{"name": "Fake", "baseUrl": fake.URL, "apiKey": key})
	}
	token := n.connectToken(t)

	// Signed with another secret, then not echoing the nonce: refused.
	fake.secret.Store(secret('b'))
	if res := register(token, secret('a')); res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "signature") {
		t.Fatalf("wrong signature: %d %s", res.Status, res.Body)
	}
	fake.secret.Store(secret('a'))
	fake.echo.Store(false)
	if res := register(token, secret('a')); res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "nonce") {
		t.Fatalf("no echo: %d %s", res.Status, res.Body)
	}
	if len(n.instances(t)) != 0 {
		t.Fatal("a refused registration recorded an instance")
	}

	// The same token still registers once verification passes.
	fake.echo.Store(true)
	res := register(token, secret('a'))
	if res.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", res.Status, res.Body)
	}
	platform := res.JSON(t)["platformToken"].(string)
	if !strings.HasPrefix(platform, auth.PlatformTokenPrefix) {
		t.Fatalf("platform token %q", platform)
	}
	// Spent now.
	if res := register(token, secret('a')); res.Status != http.StatusForbidden || !strings.Contains(string(res.Body), "used") {
		t.Fatalf("spent token: %d %s", res.Status, res.Body)
	}
	// Another apiKey for the same verified address: 403, even when that
	// key verifies.
	fake.secret.Store(secret('c'))
	if res := register(n.connectToken(t), secret('c')); res.Status != http.StatusForbidden || !strings.Contains(string(res.Body), "another apiKey") {
		t.Fatalf("other key: %d %s", res.Status, res.Body)
	}

	// One credential kind per route.
	heartbeat := func(bearer string) *servertest.Response {
		return n.hub.WithKey(bearer).Do(http.MethodPost, "/api/v2/federation/heartbeat", map[string]any{"status": "degraded"})
	}
	for _, wrong := range []string{
		auth.PeerTokenPrefix + strings.Repeat("x", 52), // a peer token on a platform route
		secret('a'),            // the spoke's own secret
		n.connectToken(t),      // a connect token
		n.hubAdmin.NewKey("k"), // an API key
		"",
	} {
		if res := heartbeat(wrong); res.Status != http.StatusUnauthorized {
			t.Fatalf("heartbeat with %.8q: %d %s", wrong, res.Status, res.Body)
		}
	}
	if res := register(platform, secret('a')); res.Status != http.StatusUnauthorized {
		t.Fatalf("register with a platform token: %d %s", res.Status, res.Body)
	}
	res = heartbeat(platform)
	if res.Status != http.StatusOK || res.JSON(t)["ok"] != true {
		t.Fatalf("heartbeat: %d %s", res.Status, res.Body)
	}
	if got := n.instance(t)["health"]; got != "degraded" {
		t.Fatalf("health: %v", got)
	}
}

// TestRolesAndAdmins: a standalone instance serves no platform route (404);
// a hub does not join; only admins manage federation.
func TestRolesAndAdmins(t *testing.T) {
	t.Parallel()
	n := newNetwork(t)
	res := n.spoke.Anonymous().Do(http.MethodPost, "/api/v2/federation/register", map[string]any{"name": "x", "baseUrl": "http://127.0.0.1:1", "apiKey": secret('a')})
	if res.Status != http.StatusNotFound {
		t.Fatalf("register on a standalone: %d %s", res.Status, res.Body)
	}
	res = n.hubAdmin.Session.Do(http.MethodPost, "/api/federation/join", map[string]any{"hubUrl": n.spoke.URL, "connectToken": "fct_x"})
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "hub does not join") {
		t.Fatalf("hub joins: %d %s", res.Status, res.Body)
	}
	member := n.spoke.SignUp("member")
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{http.MethodPost, "/api/federation/join", map[string]any{"hubUrl": n.hub.URL, "connectToken": "fct_x"}},
		{http.MethodGet, "/api/federation/status", nil},
		{http.MethodPost, "/api/federation/leave", map[string]any{}},
		{http.MethodPost, "/api/federation/rotate", map[string]any{}},
	} {
		if res := member.Session.Do(c.method, c.path, c.body); res.Status != http.StatusForbidden {
			t.Fatalf("member %s %s: %d %s", c.method, c.path, res.Status, res.Body)
		}
	}
	hubMember := n.hub.SignUp("member")
	if res := hubMember.Session.Do(http.MethodGet, "/api/admin/federation/instances", nil); res.Status != http.StatusForbidden {
		t.Fatalf("hub member lists instances: %d %s", res.Status, res.Body)
	}
	// A bad connect token is the hub's refusal, told to the admin as a 400
	// (not a 401 that would read as the admin's session ending), and
	// leaves no membership behind.
	res = n.spokeAdmin.Session.Do(http.MethodPost, "/api/federation/join", map[string]any{"hubUrl": n.hub.URL, "connectToken": "fct_nothing"})
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "invalid connect token") {
		t.Fatalf("bad token join: %d %s", res.Status, res.Body)
	}
	res = n.spokeAdmin.Session.Do(http.MethodGet, "/api/federation/status", nil)
	if st := res.JSON(t)["status"].(map[string]any); st["joined"] == true || st["role"] != "standalone" {
		t.Fatalf("status after a refused join: %v", st)
	}
}
