package federation_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/federation/spoke"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store"
)

// eventually polls cond for up to 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestApprovalReachesTheSpoke: RULINGS "Federation: instances and the
// platform" (synced listings wait in pending_review; the admin's decision
// reaches the spoke through the outbox, which records it on its listing and
// tells the owner in the comms).
func TestApprovalReachesTheSpoke(t *testing.T) {
	t.Parallel()
	n := &network{
		hub:   servertest.New(t, servertest.WithRole("hub"), servertest.WithPrivateEndpoints(), servertest.WithReviewPolicy(store.Review)),
		spoke: servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints()),
	}
	n.hubAdmin, n.spokeAdmin = n.hub.SignUp("owner"), n.spoke.SignUp("owner")
	writer := listing(t, n.spoke, n.spokeAdmin, map[string]any{"name": "Writer"})
	n.join(t)
	got := results(t, n.spokeAdmin.Session.Do(http.MethodPost, "/api/marketplace/sync", map[string]any{}))
	mid := got[writer]["marketplaceId"].(string)

	res := n.hubAdmin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+mid+"/approve", map[string]any{})
	if res.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
	key := n.spokeAdmin.NewKey("read", "store")
	eventually(t, "the decision on the spoke", func() bool {
		a := n.spoke.WithKey(key).Do(http.MethodGet, "/api/marketplace/"+writer, nil).JSON(t)["agent"].(map[string]any)
		return a["hubStatus"] == "active" && a["marketplaceId"] == mid
	})
	told, err := n.spoke.DB.ChatMessage.Query().Where(chatmessage.UserID(n.spokeAdmin.ID),
		chatmessage.MetadataType(spoke.TypeHubDecision)).All(context.Background())
	if err != nil || len(told) != 1 || !strings.Contains(told[0].Content, "approved") {
		t.Fatalf("comms: %v %v", told, err)
	}
}

// hookSpoke is a fake spoke whose verification passes and whose webhook
// fails the first failures times.
type hookSpoke struct {
	*fakeSpoke
	mu       sync.Mutex
	failures int
	got      []*http.Request
	bodies   []string
}

// TestApprovalWebhookRetries: document 2 "Outbound delivery retry" and
// RULINGS: a webhook to a spoke that is down is retried on the schedule and
// delivered once it answers, with the spoke's secret as X-Federation-Token.
func TestApprovalWebhookRetries(t *testing.T) {
	t.Parallel()
	n := &network{hub: servertest.New(t, servertest.WithRole("hub"), servertest.WithPrivateEndpoints(),
		servertest.WithReviewPolicy(store.Review))}
	n.hubAdmin = n.hub.SignUp("owner")
	h := &hookSpoke{failures: 1}
	h.fakeSpoke = &fakeSpoke{}
	h.echo.Store(true)
	h.secret.Store(secret('w'))
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == federation.WellKnownPath {
			nonce := r.URL.Query().Get("nonce")
			_ = json.NewEncoder(w).Encode(map[string]string{"nonce": nonce, "signature": federation.Sign(secret('w'), nonce)})
			return
		}
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.got, h.bodies = append(h.got, r), append(h.bodies, string(b))
		if h.failures > 0 {
			h.failures--
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{"success":true}`))
	}))
	t.Cleanup(h.Close)
	res := n.hub.WithKey(n.connectToken(t)).Do(http.MethodPost, "/api/v2/federation/register",
		map[string]any{"name": "Hooked", "baseUrl": h.URL, "apiKey": secret('w')})
	if res.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", res.Status, res.Body)
	}
	platform := n.hub.WithKey(res.JSON(t)["platformToken"].(string))
	platform.Do(http.MethodPost, "/api/v2/federation/marketplace-link", map[string]any{"action": "enable"})
	got := results(t, platform.Do(http.MethodPost, "/api/v2/federation/agents",
		map[string]any{"agents": []any{map[string]any{"id": "w1", "name": "Hooked Writer"}}}))
	mid := got["w1"]["marketplaceId"].(string)
	if res := n.hubAdmin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+mid+"/reject", map[string]any{"reason": "too vague"}); res.Status != http.StatusOK {
		t.Fatalf("reject: %d %s", res.Status, res.Body)
	}
	attempts := func() int { h.mu.Lock(); defer h.mu.Unlock(); return len(h.got) }
	eventually(t, "first attempt", func() bool { return attempts() == 1 })
	// Nothing more until the first retry is due (30 s on the hub's clock).
	time.Sleep(100 * time.Millisecond)
	if attempts() != 1 {
		t.Fatalf("retried before its time: %d attempts", attempts())
	}
	n.hub.Clock.Advance(31 * time.Second)
	eventually(t, "the retry", func() bool { return attempts() == 2 })
	eventually(t, "delivered", func() bool {
		row, err := n.hub.DB.WebhookDelivery.Query().Where(webhookdelivery.KindEQ(webhookdelivery.KindFederation)).Only(context.Background())
		return err == nil && row.Status == webhookdelivery.StatusDelivered && row.Attempts == 2
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	last := h.got[1]
	if last.URL.Path != federation.WebhookPath || last.Header.Get(federation.InstanceHeader) != secret('w') ||
		last.Header.Get("X-Service-Event") != federation.EventAgentApproval {
		t.Fatalf("webhook request: %s %v", last.URL.Path, last.Header)
	}
	var ev federation.Approval
	if err := json.Unmarshal([]byte(h.bodies[1]), &ev); err != nil || ev.AgentID != "w1" || ev.MarketplaceID != mid ||
		ev.Status != "rejected" || ev.Reason == nil || *ev.Reason != "too vague" || ev.Timestamp == "" {
		t.Fatalf("webhook body: %s %v", h.bodies[1], err)
	}
	// The secret is read at send time, never stored on the row.
	row, _ := n.hub.DB.WebhookDelivery.Query().Only(context.Background())
	if strings.Contains(row.Payload, secret('w')) || strings.Contains(strings.Join(mapValues(row.Headers), " "), secret('w')) {
		t.Fatal("the spoke's secret is stored on the outbox row")
	}
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestWebhookOnTheSpoke: document 2 "Instance federation" (the webhook
// row): 200 processed, 400 missing fields, 401 invalid token; RULINGS: a
// decision older than the last applied is ignored.
func TestWebhookOnTheSpoke(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	owner := s.SignUp("owner")
	id := listing(t, s, owner, map[string]any{"name": "Writer"})
	// A membership as a join leaves it, with a secret the test knows.
	joined := s.Clock.Now()
	s.DB.FederationMembership.Create().SetHubURL("https://hub.example").SetAPIKeyHash(auth.HashToken(secret('s'))).
		SetJoinedAt(joined).SetInstanceID("inst-1").ExecX(context.Background())
	post := func(token string, body any) *servertest.Response {
		c := s.Anonymous()
		if token != "" {
			c.Header().Set(federation.InstanceHeader, token)
		}
		return c.Do(http.MethodPost, federation.WebhookPath, body)
	}
	decision := func(status, at string) map[string]any {
		return map[string]any{"event": "agent_approval", "agentId": id, "marketplaceId": "m-1", "name": "Writer",
			"slug": "writer", "status": status, "reason": nil, "timestamp": at}
	}
	t1, t2 := "2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z"
	for _, c := range []struct {
		name   string
		token  string
		body   any
		status int
	}{
		{"no token", "", decision("active", t1), http.StatusUnauthorized},
		{"a platform token", auth.PlatformTokenPrefix + strings.Repeat("x", 40), decision("active", t1), http.StatusUnauthorized},
		{"another secret", secret('t'), decision("active", t1), http.StatusUnauthorized},
		{"missing fields", secret('s'), map[string]any{"event": "agent_approval"}, http.StatusBadRequest},
		{"unknown status", secret('s'), decision("paused", t1), http.StatusBadRequest},
		{"NUL", secret('s'), decision("active\u0000", t1), http.StatusBadRequest},
		{"unknown agent", secret('s'), func() any { d := decision("active", t1); d["agentId"] = "nope"; return d }(), http.StatusNotFound},
	} {
		if res := post(c.token, c.body); res.Status != c.status {
			t.Errorf("%s: %d %s", c.name, res.Status, res.Body)
		}
	}
	read := func() map[string]any {
		return s.WithKey(owner.NewKey("r", "store")).Do(http.MethodGet, "/api/marketplace/"+id, nil).JSON(t)["agent"].(map[string]any)
	}
	if a := read(); a["hubStatus"] != nil {
		t.Fatalf("a refused webhook wrote: %v", a["hubStatus"])
	}
	if res := post(secret('s'), decision("disabled", t2)); res.Status != http.StatusOK || res.JSON(t)["applied"] != true {
		t.Fatalf("newer decision: %d %s", res.Status, res.Body)
	}
	// The older one arrives late (a retry): acknowledged, not applied.
	if res := post(secret('s'), decision("active", t1)); res.Status != http.StatusOK || res.JSON(t)["applied"] != false {
		t.Fatalf("older decision: %d %s", res.Status, res.Body)
	}
	if a := read(); a["hubStatus"] != "disabled" || a["marketplaceId"] != "m-1" {
		t.Fatalf("listing after both: %v %v", a["hubStatus"], a["marketplaceId"])
	}
}
