package throughtest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// fakeAgent is an agent server on loopback (outside the machine, so a fake):
// POST / answers the probe, GET /health the health check. conforming and
// healthy switch its answers; every probe it received is kept.
type fakeAgent struct {
	*httptest.Server
	conforming atomic.Bool
	healthy    atomic.Bool
	mu         sync.Mutex
	probes     []probeSeen
}

type probeSeen struct {
	header http.Header
	body   map[string]any
}

func newFakeAgent(t *testing.T, conforming bool) *fakeAgent {
	t.Helper()
	a := &fakeAgent{}
	a.conforming.Store(conforming)
	a.healthy.Store(true)
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/health" {
			if !a.healthy.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			_, _ = w.Write([]byte("ok"))
			return
		}
		var body map[string]any
		_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body)
		a.mu.Lock()
		a.probes = append(a.probes, probeSeen{header: r.Header.Clone(), body: body})
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if !a.conforming.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":"not ready"}`))
			return
		}
		_, _ = w.Write([]byte(`{"output":"received the test task"}`))
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *fakeAgent) seen() []probeSeen {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]probeSeen(nil), a.probes...)
}

// devReceiver is a source instance on loopback that records approval webhooks.
// Joined to a hub (joinedReceiver), it answers the hub's verification with
// its key, and down answers 503.
type devReceiver struct {
	*httptest.Server
	got  chan receivedHook
	key  string
	down atomic.Bool
}

type receivedHook struct {
	path   string
	header http.Header
	body   map[string]any
}

func newDevReceiver(t *testing.T) *devReceiver {
	t.Helper()
	rc := &devReceiver{got: make(chan receivedHook, 16), key: "sbi_" + strings.Repeat("k", 40)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/switchboard-instance" {
			mac := hmac.New(sha256.New, []byte(rc.key))
			mac.Write([]byte(r.URL.Query().Get("nonce")))
			_ = json.NewEncoder(w).Encode(map[string]string{"nonce": r.URL.Query().Get("nonce"), "signature": hex.EncodeToString(mac.Sum(nil))})
			return
		}
		if rc.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		rc.got <- receivedHook{path: r.URL.Path, header: r.Header.Clone(), body: body}
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *devReceiver) next(t *testing.T) receivedHook {
	t.Helper()
	select {
	case h := <-rc.got:
		return h
	case <-time.After(10 * time.Second):
		t.Fatal("no approval webhook arrived")
	}
	return receivedHook{}
}

// joinedReceiver is a receiver joined to f's hub as an instance: the hub
// verified its address and keeps its key (RULINGS "Federation").
func joinedReceiver(t *testing.T, f *devFixture) *devReceiver {
	t.Helper()
	rc := newDevReceiver(t)
	token := f.connectToken(t, f.admin, "instance")
	res := f.s.Anonymous().Do(http.MethodPost, "/api/v2/federation/register",
		map[string]any{"name": "Source", "baseUrl": rc.URL, "apiKey": rc.key}, "Authorization", "Bearer "+token)
	if res.Status != http.StatusCreated {
		t.Fatalf("join the receiver: %d %s", res.Status, res.Body)
	}
	return rc
}

// newHubFixture is newFixture on a hub, where instances join.
func newHubFixture(t *testing.T) *devFixture {
	t.Helper()
	s := servertest.New(t, servertest.WithPrivateEndpoints(), servertest.WithRole("hub"))
	return &devFixture{s: s, admin: s.SignUp("owner"), dev: s.SignUp("dev")}
}

// fixture: the instance owner (admin), a member developer with a session,
// and a loopback-allowed server.
type devFixture struct {
	s     *servertest.Server
	admin *servertest.Account
	dev   *servertest.Account
}

func newDevFixture(t *testing.T) *devFixture {
	t.Helper()
	s := servertest.New(t, servertest.WithPrivateEndpoints())
	return &devFixture{s: s, admin: s.SignUp("owner"), dev: s.SignUp("dev")}
}

// developerKey creates a developer key for the session's account.
func (f *devFixture) developerKey(t *testing.T, acct *servertest.Account) string {
	t.Helper()
	res := acct.Session.Do(http.MethodPost, "/api/developer/keys", map[string]any{"label": "ci"})
	if res.Status != http.StatusCreated {
		t.Fatalf("create developer key: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)["developerKey"].(string)
}

// connectToken issues a connect token of purpose for the session's account.
func (f *devFixture) connectToken(t *testing.T, acct *servertest.Account, purpose string) string {
	t.Helper()
	res := acct.Session.Do(http.MethodPost, "/api/developer/connect-tokens", map[string]any{"purpose": purpose})
	if res.Status != http.StatusCreated {
		t.Fatalf("create connect token: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)["token"].(map[string]any)["token"].(string)
}

// agentBody is a complete registration body for an agent at url.
func agentBody(slug, url string) map[string]any {
	return map[string]any{
		"name": "Agent " + slug, "slug": slug, "description": "Writes things.", "endpointUrl": url,
		"category": "writing", "pricingModel": "free", "declaredWidgetTypes": []string{"info_card"},
		"skipHealthCheck": true,
	}
}

// register posts a registration with bearer and answers the response.
func (f *devFixture) register(t *testing.T, bearer string, body map[string]any, want int) map[string]any {
	t.Helper()
	res := f.s.WithKey(bearer).Do(http.MethodPost, "/api/developer/agents/register", body)
	if res.Status != want {
		t.Fatalf("register %v: %d, want %d: %s", body["slug"], res.Status, want, res.Body)
	}
	return res.JSON(t)
}

// devCounts are the rows the developer service writes, to prove a refusal wrote nothing.
type devCounts struct{ users, agents, runs, tokens, usedTokens, keys int }

func (f *devFixture) counts(t *testing.T) devCounts {
	t.Helper()
	ctx := context.Background()
	c := devCounts{}
	var err error
	for _, q := range []struct {
		dst *int
		n   func() (int, error)
	}{
		{&c.users, func() (int, error) { return f.s.DB.User.Query().Count(ctx) }},
		{&c.agents, func() (int, error) { return f.s.DB.StoreAgent.Query().Count(ctx) }},
		{&c.runs, func() (int, error) { return f.s.DB.ShipGateRun.Query().Count(ctx) }},
		{&c.tokens, func() (int, error) { return f.s.DB.ConnectToken.Query().Count(ctx) }},
		{&c.keys, func() (int, error) { return f.s.DB.DeveloperKey.Query().Count(ctx) }},
	} {
		if *q.dst, err = q.n(); err != nil {
			t.Fatal(err)
		}
	}
	used, err := f.s.DB.ConnectToken.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range used {
		if u.UsedAt != nil {
			c.usedTokens++
		}
	}
	return c
}
