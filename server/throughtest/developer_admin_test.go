package throughtest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/shipgaterun"
)

// TestApprovalNeedsAPassingRun: document 2, "Store agent status" — an admin
// cannot approve a pending agent without a persisted passing ship-gate run;
// a test-run that passes (with the agent's self-config token) makes approval
// possible, and approval, rejection and disabling each fire the approval
// webhook to the source instance ("Events"). Admin routes are role-gated
// ("Authentication").
func TestApprovalNeedsAPassingRun(t *testing.T) {
	t.Parallel()
	f := newHubFixture(t)
	ctx := context.Background()
	a := newFakeAgent(t, false)
	rc := joinedReceiver(t, f)
	key := f.developerKey(t, f.dev)
	body := agentBody("gated", a.URL)
	body["instanceUrl"] = rc.URL
	out := f.register(t, key, body, http.StatusCreated)
	id := out["agent"].(map[string]any)["id"].(string)
	selfToken := out["selfConfigToken"].(string)
	approve := "/api/admin/marketplace/" + id + "/approve"

	// A member is refused (403); an unknown id is 404.
	if res := f.dev.Session.Do(http.MethodPost, approve, map[string]any{}); res.Status != http.StatusForbidden {
		t.Fatalf("member approve: %d %s", res.Status, res.Body)
	}
	if res := f.admin.Session.Do(http.MethodPost, "/api/admin/marketplace/nope/approve", map[string]any{}); res.Status != http.StatusNotFound {
		t.Fatalf("unknown id: %d %s", res.Status, res.Body)
	}
	// Only a failing run: refused, even for the admin; nothing changes.
	res := f.admin.Session.Do(http.MethodPost, approve, map[string]any{})
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "did not pass") {
		t.Fatalf("approve without a passing run: %d %s", res.Status, res.Body)
	}
	if row, _ := f.s.DB.StoreAgent.Get(ctx, id); row.Status != "pending" {
		t.Fatalf("status moved: %s", row.Status)
	}

	// The agent is fixed; its own self-config token runs the test.
	a.conforming.Store(true)
	f.s.Clock.Advance(time.Second)
	res = f.s.WithKey(selfToken).Do(http.MethodPost, "/api/developer/agents/"+id+"/test-run", map[string]any{})
	tr := res.JSON(t)
	if res.Status != http.StatusOK || tr["endpointProbe"].(map[string]any)["conforms"] != true ||
		tr["shipGateRun"].(map[string]any)["trigger"] != "test_run" || tr["shipGateRun"].(map[string]any)["passed"] != true {
		t.Fatalf("test-run: %d %s", res.Status, res.Body)
	}
	if n, _ := f.s.DB.ShipGateRun.Query().Where(shipgaterun.AgentID(id)).Count(ctx); n != 2 {
		t.Fatalf("runs persisted: %d", n)
	}
	res = f.admin.Session.Do(http.MethodPost, approve, map[string]any{})
	if res.Status != http.StatusOK || res.JSON(t)["agent"].(map[string]any)["status"] != "active" {
		t.Fatalf("approve after a passing run: %d %s", res.Status, res.Body)
	}
	hook := rc.next(t)
	if hook.path != "/api/marketplace/webhook" || hook.header.Get("X-Service-Event") != "agent_approval" ||
		hook.body["event"] != "agent_approval" || hook.body["marketplaceId"] != id || hook.body["slug"] != "gated" ||
		hook.body["status"] != "active" || hook.body["reason"] != nil || hook.body["timestamp"] == "" ||
		hook.header.Get("X-Federation-Token") != rc.key {
		t.Fatalf("approval webhook: %+v", hook)
	}

	// Disable and a second decision's webhook; then a rejected one.
	res = f.admin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+id+"/disable", map[string]any{"reason": "abuse report"})
	if res.Status != http.StatusOK || res.JSON(t)["agent"].(map[string]any)["status"] != "disabled" {
		t.Fatalf("disable: %d %s", res.Status, res.Body)
	}
	if hook := rc.next(t); hook.body["status"] != "disabled" || hook.body["reason"] != "abuse report" {
		t.Fatalf("disable webhook: %+v", hook.body)
	}
	other := f.register(t, key, map[string]any{
		"name": "Other", "slug": "other", "description": "x", "endpointUrl": a.URL, "category": "code",
		"pricingModel": "free", "declaredWidgetTypes": []string{"action_list"}, "skipHealthCheck": true, "instanceUrl": rc.URL,
	}, http.StatusCreated)["agent"].(map[string]any)["id"].(string)
	res = f.admin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+other+"/reject", map[string]any{"reason": "not useful"})
	if res.Status != http.StatusOK || res.JSON(t)["agent"].(map[string]any)["status"] != "rejected" {
		t.Fatalf("reject: %d %s", res.Status, res.Body)
	}
	if hook := rc.next(t); hook.body["status"] != "rejected" || hook.body["slug"] != "other" {
		t.Fatalf("reject webhook: %+v", hook.body)
	}
	// Rejecting twice is an illegal move (400) and fires nothing.
	if res := f.admin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+other+"/reject", map[string]any{}); res.Status != http.StatusBadRequest {
		t.Fatalf("reject a rejected agent: %d %s", res.Status, res.Body)
	}
	select {
	case h := <-rc.got:
		t.Fatalf("a refused decision fired a webhook: %+v", h)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestTestRunAccess: test-run takes the developer's key or the agent's own
// self-config token; a self-config token reaches no other agent and an
// account's agents are 404 to others (RULINGS "Accounts, keys, sessions").
func TestTestRunAccess(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	a := newFakeAgent(t, true)
	key := f.developerKey(t, f.dev)
	one := f.register(t, key, agentBody("one", a.URL), http.StatusCreated)
	two := f.register(t, key, agentBody("two", a.URL), http.StatusCreated)
	oneID, twoID := one["agent"].(map[string]any)["id"].(string), two["agent"].(map[string]any)["id"].(string)
	if res := f.s.WithKey(key).Do(http.MethodPost, "/api/developer/agents/"+twoID+"/test-run", map[string]any{}); res.Status != http.StatusOK {
		t.Fatalf("developer key test-run: %d %s", res.Status, res.Body)
	}
	before := f.counts(t)
	for _, c := range []struct {
		bearer, id string
		want       int
	}{
		{one["selfConfigToken"].(string), twoID, http.StatusNotFound},
		{f.developerKey(t, f.s.SignUp("stranger")), oneID, http.StatusNotFound},
		{"sbc_unknown", oneID, http.StatusUnauthorized},
		{"", oneID, http.StatusUnauthorized},
	} {
		caller := f.s.Anonymous()
		if c.bearer != "" {
			caller = f.s.WithKey(c.bearer)
		}
		r := caller.Do(http.MethodPost, "/api/developer/agents/"+c.id+"/test-run", map[string]any{})
		if r.Status != c.want {
			t.Errorf("test-run %q on %s: %d, want %d: %s", c.bearer, c.id, r.Status, c.want, r.Body)
		}
	}
	after := f.counts(t)
	after.keys, after.users = before.keys, before.users // the stranger's account and key
	if after != before {
		t.Fatalf("refused test-runs wrote: %+v → %+v", before, after)
	}
}

// TestProbeCarriesTheCredential: the probe is the real dispatch (document 2,
// "Execution contract": auth headers by authMethod) at registration, and the
// test-run opens the sealed credential to send it again (RULINGS: agent
// credentials are stored encrypted).
func TestProbeCarriesTheCredential(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	a := newFakeAgent(t, true)
	key := f.developerKey(t, f.dev)
	body := agentBody("with-auth", a.URL)
	body["authMethod"], body["authCredential"] = "api_key", "agent-secret-0123456789"
	body["inputFormat"] = "a2a"
	id := f.register(t, key, body, http.StatusCreated)["agent"].(map[string]any)["id"].(string)
	if res := f.s.WithKey(key).Do(http.MethodPost, "/api/developer/agents/"+id+"/test-run", map[string]any{}); res.Status != http.StatusOK {
		t.Fatalf("test-run: %d %s", res.Status, res.Body)
	}
	seen := a.seen()
	if len(seen) != 2 {
		t.Fatalf("probes: %d", len(seen))
	}
	for i, p := range seen {
		if p.header.Get("X-API-Key") != "agent-secret-0123456789" || p.body["method"] != "tasks/send" || p.body["test"] != true {
			t.Errorf("probe %d: %v %v", i, p.header, p.body)
		}
	}
	row, err := f.s.DB.StoreAgent.Get(context.Background(), id)
	if err != nil || row.AuthCredentialEncrypted == nil || strings.Contains(string(*row.AuthCredentialEncrypted), "agent-secret") {
		t.Fatalf("credential must be sealed: %v", err)
	}
}
