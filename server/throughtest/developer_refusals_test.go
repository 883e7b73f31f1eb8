package throughtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// TestBadInputWritesNothing: RULINGS "Errors" — bad input on every endpoint
// is a documented 4xx ({success: false, error}) and writes nothing.
func TestBadInputWritesNothingDeveloper(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	a := newFakeAgent(t, true)
	key := f.developerKey(t, f.dev)
	tok := f.connectToken(t, f.dev, "agent")
	id := f.register(t, key, agentBody("exists", a.URL), http.StatusCreated)["agent"].(map[string]any)["id"].(string)
	api, anon, sess, adm := f.s.WithKey(key), f.s.Anonymous(), f.dev.Session, f.admin.Session

	with := func(k string, v any) map[string]any {
		b := agentBody("fresh", a.URL)
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
		return b
	}
	signup := func(k string, v any) map[string]any {
		b := map[string]any{"contactEmail": "new@example.com", "password": "long enough", "username": "newdev"}
		b[k] = v
		return b
	}
	const reg = "/api/developer/agents/register"
	type call struct {
		name string
		do   func() *servertest.Response
		want int
	}
	post := func(c *servertest.Caller, method, path string, body any) func() *servertest.Response {
		return func() *servertest.Response { return c.Do(method, path, body) }
	}
	calls := []call{
		{"signup short password", post(anon, "POST", "/api/developer/signup", signup("password", "short")), 400},
		{"signup bad email", post(anon, "POST", "/api/developer/signup", signup("contactEmail", "nope")), 400},
		{"signup reserved username", post(anon, "POST", "/api/developer/signup", signup("username", "admin")), 400},
		{"signup taken username", post(anon, "POST", "/api/developer/signup", signup("username", "dev")), 409},
		{"signup malformed", post(anon, "POST", "/api/developer/signup", `{"username":`), 400},
		{"key no label", post(sess, "POST", "/api/developer/keys", map[string]any{"label": " "}), 400},
		{"key anonymous", post(anon, "POST", "/api/developer/keys", map[string]any{"label": "x"}), 401},
		{"keys list anonymous", post(anon, "GET", "/api/developer/keys", nil), 401},
		{"token bad purpose", post(sess, "POST", "/api/developer/connect-tokens", map[string]any{"purpose": "root"}), 400},
		{"register no credential", post(anon, "POST", reg, with("slug", "fresh")), 401},
		{"register API key", post(f.s.WithKey(f.dev.NewKey("k")), "POST", reg, with("slug", "fresh")), 401},
		{"register no name", post(api, "POST", reg, with("name", nil)), 400},
		{"register no description", post(api, "POST", reg, with("description", nil)), 400},
		{"register no endpoint", post(api, "POST", reg, with("endpointUrl", nil)), 400},
		{"register no widgets", post(api, "POST", reg, with("declaredWidgetTypes", []string{})), 400},
		{"register unknown widget", post(api, "POST", reg, with("declaredWidgetTypes", []string{"carousel"})), 400},
		{"register sync-only category", post(api, "POST", reg, with("category", "research")), 400},
		{"register sync-only pricing", post(api, "POST", reg, with("pricingModel", "tiered")), 400},
		{"register per_task without price", post(api, "POST", reg, with("pricingModel", "per_task")), 400},
		{"register bad slug", post(api, "POST", reg, with("slug", "Bad Slug")), 400},
		{"register taken slug", post(api, "POST", reg, with("slug", "exists")), 409},
		{"register bad instanceUrl", post(api, "POST", reg, with("instanceUrl", "ftp://x")), 400},
		{"register bearer without credential", post(api, "POST", reg, with("authMethod", "bearer")), 400},
		{"register with token, bad input", post(f.s.WithKey(tok), "POST", reg, with("category", "music!")), 400},
		{"register unknown field", post(api, "POST", reg, with("colour", "red")), 400},
		{"patch no slug", post(api, "PATCH", reg, map[string]any{"description": "x"}), 400},
		{"patch unknown slug", post(api, "PATCH", reg, map[string]any{"slug": "nope", "description": "x"}), 404},
		{"patch bad category", post(api, "PATCH", reg, map[string]any{"slug": "exists", "category": "research"}), 400},
		{"patch skip flag", post(api, "PATCH", reg, map[string]any{"slug": "exists", "skipHealthCheck": true}), 400},
		{"patch clear name", post(api, "PATCH", reg, map[string]any{"slug": "exists", "name": ""}), 400},
		{"test-run unknown", post(api, "POST", "/api/developer/agents/nope/test-run", map[string]any{}), 404},
		{"approve member", post(sess, "POST", "/api/admin/marketplace/"+id+"/approve", map[string]any{}), 403},
		{"approve failing", post(adm, "POST", "/api/admin/marketplace/"+id+"/approve", map[string]any{}), 400},
		{"reject blank reason", post(adm, "POST", "/api/admin/marketplace/"+id+"/reject", map[string]any{"reason": " "}), 400},
		{"disable unknown", post(adm, "POST", "/api/admin/marketplace/nope/disable", map[string]any{}), 404},
		{"disable with key", post(api, "POST", "/api/admin/marketplace/"+id+"/disable", map[string]any{}), 401},
	}
	// The seeded run passed; a failing test-run makes the latest run fail,
	// so "approve failing" is refused.
	a.conforming.Store(false)
	f.s.Clock.Advance(1e9)
	if res := api.Do(http.MethodPost, "/api/developer/agents/"+id+"/test-run", map[string]any{}); res.Status != http.StatusOK {
		t.Fatalf("failing test-run: %d %s", res.Status, res.Body)
	}
	before := f.counts(t)
	for _, c := range calls {
		res := c.do()
		status, body := res.Status, res.Body
		if status != c.want {
			t.Errorf("%s: %d, want %d: %s", c.name, status, c.want, body)
			continue
		}
		if !strings.Contains(string(body), `"error"`) {
			t.Errorf("%s: no error body: %s", c.name, body)
		}
	}
	if after := f.counts(t); after != before {
		t.Fatalf("refusals wrote: %+v → %+v", before, after)
	}
}

// TestPrivateAddressesRefused: RULINGS "Store, federation, MCP, A2A" — on an
// instance that does not allow private addresses, a loopback endpointUrl,
// healthCheckUrl or instanceUrl is refused at registration (400), before any
// outbound call, and nothing is written.
func TestPrivateAddressesRefused(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	s.SignUp("owner")
	dev := s.SignUp("dev")
	a := newFakeAgent(t, true)
	res := dev.Session.Do(http.MethodPost, "/api/developer/keys", map[string]any{"label": "k"})
	key := res.JSON(t)["developerKey"].(string)
	public := "https://93.184.215.14/agent"
	for _, field := range []string{"endpointUrl", "healthCheckUrl", "instanceUrl"} {
		body := agentBody("private", public)
		body[field] = a.URL
		if field == "healthCheckUrl" {
			body["skipHealthCheck"] = false
		}
		res := s.WithKey(key).Do(http.MethodPost, "/api/developer/agents/register", body)
		// The refusal names the field and the flag that would admit it (issue 31).
		if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), field) ||
			!strings.Contains(string(res.Body), "--allow-private-endpoints") {
			t.Errorf("%s on loopback: %d %s", field, res.Status, res.Body)
		}
	}
	if n, _ := s.DB.StoreAgent.Query().Count(t.Context()); n != 0 || len(a.seen()) != 0 {
		t.Fatalf("refusals wrote %d agents or called the agent %d times", n, len(a.seen()))
	}
}
