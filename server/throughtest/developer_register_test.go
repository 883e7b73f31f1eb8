package throughtest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/connecttoken"
	"github.com/switchboard-hq/switchboard/ent/shipgaterun"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
)

// TestRegisterThroughTheShipGate: document 2, "Developer self-registration"
// (flow steps 1–5) and "Store agent status": a conforming and a
// non-conforming agent both register (201) as pending with their verdicts
// persisted as ship-gate runs; the probe goes in the real dispatch shape with
// the test flag; a developer with a live agent gets a conforming new agent
// auto-promoted.
func TestRegisterThroughTheShipGate(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	ctx := context.Background()
	good, bad := newFakeAgent(t, true), newFakeAgent(t, false)

	// Signup with issueAgentToken (no auth), then register with that token.
	res := f.s.Anonymous().Do(http.MethodPost, "/api/developer/signup", map[string]any{
		"contactEmail": "Maker@Example.com", "password": "long enough", "username": "maker", "issueAgentToken": true,
	})
	if res.Status != http.StatusCreated {
		t.Fatalf("signup: %d %s", res.Status, res.Body)
	}
	signup := res.JSON(t)
	tok := signup["agentToken"].(map[string]any)
	if signup["created"] != true || signup["account"].(map[string]any)["email"] != "maker@example.com" ||
		tok["purpose"] != "agent" || !strings.HasPrefix(tok["token"].(string), "fct_") ||
		!strings.HasSuffix(tok["registerUrl"].(string), "/api/developer/agents/register") {
		t.Fatalf("signup answer: %s", res.Body)
	}
	stored, err := f.s.DB.ConnectToken.Query().Only(ctx)
	if err != nil || stored.TokenHash == tok["token"] || strings.Contains(stored.TokenHash, "fct_") {
		t.Fatalf("token must be stored hashed: %+v %v", stored, err)
	}

	body := agentBody("good-agent", good.URL)
	body["healthCheckUrl"], body["skipHealthCheck"] = good.URL+"/health", false
	body["inputFormat"] = "json"
	out := f.register(t, tok["token"].(string), body, http.StatusCreated)
	probe := out["endpointProbe"].(map[string]any)
	agent := out["agent"].(map[string]any)
	if probe["conforms"] != true || probe["hint"] != nil || agent["status"] != "pending" ||
		out["healthCheck"].(map[string]any)["status"] != "checked" || out["shipGateRun"].(map[string]any)["passed"] != true ||
		!strings.HasPrefix(out["selfConfigToken"].(string), "sbc_") {
		t.Fatalf("conforming registration: %v", out)
	}
	if wa := out["widgetAnalysis"].(map[string]any); wa["complianceScore"] != float64(50) {
		t.Fatalf("writing agent declaring info_card only scores 50: %v", wa)
	}
	// The probe: real dispatch shape for inputFormat json, flagged as a test.
	seen := good.seen()
	if len(seen) != 1 {
		t.Fatalf("probes sent: %d", len(seen))
	}
	h, b := seen[0].header, seen[0].body
	if h.Get("X-Service-Test") == "" || h.Get("X-Service-Source") != "marketplace" || h.Get("X-Service-Execution-Id") == "" ||
		b["test"] != true || b["executionId"] != h.Get("X-Service-Execution-Id") || !strings.Contains(b["task"].(string), "conformance") {
		t.Fatalf("probe shape: %v %v", h, b)
	}
	// Persisted: the seeded run with the task; the token is spent.
	run, err := f.s.DB.ShipGateRun.Query().Where(shipgaterun.AgentID(agent["id"].(string))).Only(ctx)
	if err != nil || !run.Passed || run.Trigger != shipgaterun.TriggerRegistration || run.Task != b["task"] {
		t.Fatalf("seeded run: %+v %v", run, err)
	}
	if used, _ := f.s.DB.ConnectToken.Query().Where(connecttoken.UsedAtNotNil()).Count(ctx); used != 1 {
		t.Fatalf("the token must be consumed, %d used", used)
	}
	// Single use: the same token again is refused and writes nothing.
	before := f.counts(t)
	f.register(t, tok["token"].(string), agentBody("again", good.URL), http.StatusForbidden)
	if after := f.counts(t); after != before {
		t.Fatalf("a spent token wrote: %+v → %+v", before, after)
	}

	// A non-conforming agent registers too, pending, with a failing run.
	key := f.developerKey(t, f.dev)
	out = f.register(t, key, agentBody("bad-agent", bad.URL), http.StatusCreated)
	probe = out["endpointProbe"].(map[string]any)
	if probe["conforms"] != false || !strings.Contains(probe["hint"].(string), "500") ||
		out["agent"].(map[string]any)["status"] != "pending" || out["shipGateRun"].(map[string]any)["passed"] != false {
		t.Fatalf("non-conforming registration: %v", out)
	}
	if n, _ := f.s.DB.ShipGateRun.Query().Where(shipgaterun.Passed(false)).Count(ctx); n != 1 {
		t.Fatalf("failing runs persisted: %d", n)
	}

	// Auto-promotion: once the developer has a live agent, a conforming new
	// one is active at once; a non-conforming one stays pending.
	first := f.register(t, key, agentBody("first-live", good.URL), http.StatusCreated)["agent"].(map[string]any)
	if res := f.admin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+first["id"].(string)+"/approve", map[string]any{}); res.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
	if st := f.register(t, key, agentBody("second-live", good.URL), http.StatusCreated)["agent"].(map[string]any)["status"]; st != "active" {
		t.Fatalf("auto-promotion: %v", st)
	}
	if st := f.register(t, key, agentBody("second-bad", bad.URL), http.StatusCreated)["agent"].(map[string]any)["status"]; st != "pending" {
		t.Fatalf("a failing probe is never promoted: %v", st)
	}
}

// TestHealthCheck: flow step 1 — GET healthCheckUrl must answer 200; a
// failure refuses the registration and writes nothing (the token stays
// unused); skipHealthCheck skips it.
func TestHealthCheck(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	a := newFakeAgent(t, true)
	a.healthy.Store(false)
	tok := f.connectToken(t, f.dev, "agent")
	body := agentBody("healthy", a.URL)
	body["healthCheckUrl"], body["skipHealthCheck"] = a.URL+"/health", false
	before := f.counts(t)
	res := f.s.WithKey(tok).Do(http.MethodPost, "/api/developer/agents/register", body)
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "health check failed") || !strings.Contains(string(res.Body), "503") {
		t.Fatalf("failing health check: %d %s", res.Status, res.Body)
	}
	if after := f.counts(t); after != before {
		t.Fatalf("a failed health check wrote: %+v → %+v", before, after)
	}
	if len(a.seen()) != 0 {
		t.Fatal("no probe after a failed health check")
	}
	body["skipHealthCheck"] = true
	out := f.register(t, tok, body, http.StatusCreated)
	if out["healthCheck"].(map[string]any)["status"] != "skipped" {
		t.Fatalf("skipped: %v", out["healthCheck"])
	}
}

// TestConnectTokenRules: document 2, "Developer self-registration" and
// "Limits": tokens expire after 24 hours (injected clock), at most 10 are
// active per account, instance-purpose tokens are refused for agents, and a
// refusal writes nothing. RULINGS "Federation: instances and the platform":
// only an admin mints a token of purpose instance.
func TestConnectTokenRules(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	a := newFakeAgent(t, true)

	res := f.dev.Session.Do(http.MethodPost, "/api/developer/connect-tokens", map[string]any{"purpose": "instance"})
	if res.Status != http.StatusForbidden || !strings.Contains(string(res.Body), "admin") {
		t.Fatalf("non-admin instance token: %d %s", res.Status, res.Body)
	}
	instance := f.connectToken(t, f.admin, "instance")
	before := f.counts(t)
	res = f.s.WithKey(instance).Do(http.MethodPost, "/api/developer/agents/register", agentBody("inst", a.URL))
	if res.Status != http.StatusForbidden || !strings.Contains(string(res.Body), "instances") {
		t.Fatalf("instance token: %d %s", res.Status, res.Body)
	}
	if after := f.counts(t); after != before {
		t.Fatalf("refused registration wrote: %+v → %+v", before, after)
	}

	expiring := f.connectToken(t, f.dev, "any")
	f.s.Clock.Advance(24*60*60*1e9 + 1e9) // 24 h and a second
	res = f.s.WithKey(expiring).Do(http.MethodPost, "/api/developer/agents/register", agentBody("late", a.URL))
	if res.Status != http.StatusForbidden || !strings.Contains(string(res.Body), "expired") {
		t.Fatalf("expired token: %d %s", res.Status, res.Body)
	}

	// Both earlier tokens have expired now, so ten fresh ones fit and the
	// eleventh is refused (409) without a row.
	for range 10 {
		f.connectToken(t, f.dev, "agent")
	}
	before = f.counts(t)
	res = f.dev.Session.Do(http.MethodPost, "/api/developer/connect-tokens", map[string]any{"purpose": "agent"})
	if res.Status != http.StatusConflict || !strings.Contains(string(res.Body), "10") {
		t.Fatalf("eleventh token: %d %s", res.Status, res.Body)
	}
	if after := f.counts(t); after != before {
		t.Fatalf("refused token wrote: %+v → %+v", before, after)
	}
	// The cap is per account: the admin's one instance token is untouched.
	if n, _ := f.s.DB.ConnectToken.Query().Where(connecttoken.UserID(f.admin.ID)).Count(context.Background()); n != 1 {
		t.Fatalf("admin tokens: %d", n)
	}
}

// TestPatchReReviewsBreakingChanges: RULINGS "Store, federation, MCP, A2A"
// (breaking changes re-review on PATCH too) and document 2's PATCH answer
// with widgetRecommendations; another developer's slug is 404.
func TestPatchReReviewsBreakingChanges(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	a := newFakeAgent(t, true)
	key := f.developerKey(t, f.dev)
	id := f.register(t, key, agentBody("patched", a.URL), http.StatusCreated)["agent"].(map[string]any)["id"].(string)
	if res := f.admin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+id+"/approve", map[string]any{}); res.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
	api := f.s.WithKey(key)
	res := api.Do(http.MethodPatch, "/api/developer/agents/register", map[string]any{"slug": "patched", "description": "Better.", "declaredWidgetTypes": []string{"info_card", "action_list"}})
	out := res.JSON(t)
	if res.Status != http.StatusOK || out["agent"].(map[string]any)["status"] != "active" || out["reviewRequired"] != false {
		t.Fatalf("non-breaking patch: %d %s", res.Status, res.Body)
	}
	wr := out["widgetRecommendations"].(map[string]any)
	if wr["summary"] == "" || len(wr["currentGaps"].([]any)) != 0 || len(wr["declaredTypes"].([]any)) != 2 || wr["suggestedFlow"] != "info_card -> action_list" {
		t.Fatalf("widget recommendations: %v", wr)
	}
	res = api.Do(http.MethodPatch, "/api/developer/agents/register", map[string]any{"slug": "patched", "pricingModel": "per_task", "pricePerTask": 2})
	out = res.JSON(t)
	if res.Status != http.StatusOK || out["agent"].(map[string]any)["status"] != "pending" || out["reviewRequired"] != true {
		t.Fatalf("breaking patch: %d %s", res.Status, res.Body)
	}
	opps := out["widgetRecommendations"].(map[string]any)["widgetOpportunities"].([]any)
	if len(opps) != 1 || opps[0].(map[string]any)["type"] != "payment_prompt" || opps[0].(map[string]any)["impact"] != "high" {
		t.Fatalf("a paid agent is told about payment_prompt: %v", opps)
	}
	// The older passing run predates the breaking change: approval needs a new one.
	res = f.admin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+id+"/approve", map[string]any{})
	if res.Status != http.StatusBadRequest {
		t.Fatalf("approve after a breaking change without a new run: %d %s", res.Status, res.Body)
	}
	// The store's own update path re-reviews a self-registered agent too,
	// under the default zero-gate policy (RULINGS: both update paths).
	a.conforming.Store(true)
	f.s.Clock.Advance(1e9)
	if res := api.Do(http.MethodPost, "/api/developer/agents/"+id+"/test-run", map[string]any{}); res.Status != http.StatusOK {
		t.Fatalf("test-run: %d %s", res.Status, res.Body)
	}
	if res := f.admin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+id+"/approve", map[string]any{}); res.Status != http.StatusOK {
		t.Fatalf("approve after a new passing run: %d %s", res.Status, res.Body)
	}
	store := f.s.WithKey(f.dev.NewKey("store", "store"))
	res = store.Do(http.MethodPut, "/api/marketplace/"+id, map[string]any{"endpointUrl": a.URL + "/v2"})
	if res.Status != http.StatusOK || res.JSON(t)["agent"].(map[string]any)["status"] != "pending" {
		t.Fatalf("breaking PUT on a self-registered agent: %d %s", res.Status, res.Body)
	}
	// Another developer cannot see the slug.
	other := f.s.SignUp("other")
	res = f.s.WithKey(f.developerKey(t, other)).Do(http.MethodPatch, "/api/developer/agents/register", map[string]any{"slug": "patched", "description": "Mine now."})
	if res.Status != http.StatusNotFound {
		t.Fatalf("another developer's slug: %d %s", res.Status, res.Body)
	}
	if row, _ := f.s.DB.StoreAgent.Query().Where(storeagent.Slug("patched")).Only(context.Background()); row == nil || *row.Description != "Better." {
		t.Fatalf("the other developer changed it: %+v", row)
	}
}
