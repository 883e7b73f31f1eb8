package federation_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/storesubscription"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store"
)

// linkedNet is a hub under the review policy with two registered fake spokes
// (a and b), both linked to the store, and their platform callers.
type linkedNet struct {
	hub   *servertest.Server
	admin *servertest.Account
	a, b  *servertest.Caller
	aID   string
}

func newLinkedNet(t *testing.T) *linkedNet {
	t.Helper()
	l := &linkedNet{hub: servertest.New(t, servertest.WithRole("hub"), servertest.WithPrivateEndpoints(),
		servertest.WithReviewPolicy(store.Review))}
	l.admin = l.hub.SignUp("owner")
	n := &network{hub: l.hub, hubAdmin: l.admin}
	register := func(name string, c byte) (*servertest.Caller, string) {
		fake := newFakeSpoke(t)
		fake.secret.Store(secret(c))
		res := l.hub.WithKey(n.connectToken(t)).Do(http.MethodPost, "/api/v2/federation/register",
			map[string]any{"name": name, "baseUrl": fake.URL, "apiKey": secret(c)})
		if res.Status != http.StatusCreated {
			t.Fatalf("register %s: %d %s", name, res.Status, res.Body)
		}
		platform := l.hub.WithKey(res.JSON(t)["platformToken"].(string))
		if res := platform.Do(http.MethodPost, "/api/v2/federation/marketplace-link", map[string]any{"action": "enable"}); res.Status != http.StatusOK {
			t.Fatalf("link %s: %d %s", name, res.Status, res.Body)
		}
		return platform, res.JSON(t)["instanceId"].(string)
	}
	l.a, l.aID = register("Spoke A", 'a')
	l.b, _ = register("Spoke B", 'b')
	return l
}

// counts is how many listings, capability packs, executions and
// subscriptions the hub holds.
func (l *linkedNet) counts(t *testing.T) [4]int {
	t.Helper()
	ctx := context.Background()
	var out [4]int
	var err error
	for i, f := range []func() (int, error){
		func() (int, error) { return l.hub.DB.StoreAgent.Query().Count(ctx) },
		func() (int, error) { return l.hub.DB.CapabilityPack.Query().Count(ctx) },
		func() (int, error) { return l.hub.DB.Execution.Query().Count(ctx) },
		func() (int, error) { return l.hub.DB.StoreSubscription.Query().Count(ctx) },
	} {
		if out[i], err = f(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// execution records an execution of agent on the hub in status, with its
// payment hold in hold ("" for none).
func (l *linkedNet) execution(t *testing.T, agent string, status execution.Status, hold execution.PaymentHoldStatus) string {
	t.Helper()
	c := l.hub.DB.Execution.Create().SetUserID(l.admin.ID).SetStoreAgentID(agent).SetStatus(status).SetInput("task")
	if hold != "" {
		c.SetPaymentHoldStatus(hold)
	}
	row, err := c.Save(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return row.ID
}

// TestSyncedAgentByRemoteID: RULINGS "Federation: instances and the
// platform": PUT creates (201) or updates (200) one agent by its remote id
// with the sync rules (409 on a taken slug, 400 on a refused field); GET
// answers it with its counts and revenue; another instance's remote id is
// 404; DELETE is 409 while an execution runs, queues or holds money, and
// otherwise removes the listing and its subscriptions and unlinks its
// finished executions (agent id cleared, its name kept).
func TestSyncedAgentByRemoteID(t *testing.T) {
	t.Parallel()
	l := newLinkedNet(t)
	listing(t, l.hub, l.admin, map[string]any{"name": "Hub Scout", "slug": "scout"})

	res := l.a.Do(http.MethodPut, "/api/v2/federation/agents/w1", map[string]any{"name": "Writer", "pricingModel": "per_task", "pricePerTask": 2.5})
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	got := res.JSON(t)
	agent := got["agent"].(map[string]any)
	if got["created"] != true || agent["remoteId"] != "w1" || agent["slug"] != "writer" || agent["status"] != "pending_review" {
		t.Fatalf("created: %v", got)
	}
	id := agent["marketplaceId"].(string)
	res = l.a.Do(http.MethodPut, "/api/v2/federation/agents/w1", map[string]any{"name": "Writer", "pricingModel": "per_task", "pricePerTask": 2.5})
	if res.Status != http.StatusOK || res.JSON(t)["created"] != false {
		t.Fatalf("unchanged: %d %s", res.Status, res.Body)
	}
	res = l.a.Do(http.MethodPut, "/api/v2/federation/agents/w1", map[string]any{"id": "w1", "name": "Writer Pro", "slug": "writer"})
	if res.Status != http.StatusOK || res.JSON(t)["agent"].(map[string]any)["name"] != "Writer Pro" {
		t.Fatalf("update: %d %s", res.Status, res.Body)
	}
	res = l.a.Do(http.MethodPut, "/api/v2/federation/agents/w2", map[string]any{"name": "Scout"})
	if res.Status != http.StatusConflict || !strings.Contains(string(res.Body), "scout") {
		t.Fatalf("slug conflict: %d %s", res.Status, res.Body)
	}
	res = l.a.Do(http.MethodPut, "/api/v2/federation/agents/w2", map[string]any{"id": "w3", "name": "Other"})
	if res.Status != http.StatusBadRequest {
		t.Fatalf("id mismatch: %d %s", res.Status, res.Body)
	}

	// GET: counts and revenue as the list answers them.
	res = l.a.Do(http.MethodGet, "/api/v2/federation/agents/w1", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("get: %d %s", res.Status, res.Body)
	}
	if a := res.JSON(t)["agent"].(map[string]any); a["marketplaceId"] != id || a["executionCount"] != float64(0) || a["name"] != "Writer Pro" {
		t.Fatalf("get: %v", a)
	}
	// B's remote ids are its own: A's w1 is 404 to B, and B's own w1 is a
	// separate listing (whose slug then conflicts).
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		if res := l.b.Do(m, "/api/v2/federation/agents/w1", nil); res.Status != http.StatusNotFound {
			t.Fatalf("%s another instance's id: %d %s", m, res.Status, res.Body)
		}
	}
	if res := l.a.Do(http.MethodGet, "/api/v2/federation/agents/nope", nil); res.Status != http.StatusNotFound {
		t.Fatalf("unknown id: %d %s", res.Status, res.Body)
	}

	// DELETE refused while work is in flight, each kind alone.
	for _, c := range []struct {
		status execution.Status
		hold   execution.PaymentHoldStatus
	}{
		{execution.StatusRunning, ""},
		{execution.StatusQueued, ""},
		{execution.StatusCompleted, execution.PaymentHoldStatusHeld},
	} {
		ex := l.execution(t, id, c.status, c.hold)
		before := l.counts(t)
		res := l.a.Do(http.MethodDelete, "/api/v2/federation/agents/w1", nil)
		if res.Status != http.StatusConflict {
			t.Fatalf("delete with %s/%s: %d %s", c.status, c.hold, res.Status, res.Body)
		}
		if after := l.counts(t); after != before {
			t.Fatalf("a refused delete wrote: %v → %v", before, after)
		}
		if err := l.hub.DB.Execution.DeleteOneID(ex).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}

	// Finished: a completed, captured execution and a failed one are
	// unlinked; the subscription and the listing go.
	done := l.execution(t, id, execution.StatusCompleted, execution.PaymentHoldStatusCaptured)
	l.execution(t, id, execution.StatusFailed, execution.PaymentHoldStatusReleased)
	if _, err := l.hub.DB.StoreSubscription.Create().SetUserID(l.admin.ID).SetAgentID(id).Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	res = l.a.Do(http.MethodDelete, "/api/v2/federation/agents/w1", nil)
	if res.Status != http.StatusOK || res.JSON(t)["keptExecutions"] != float64(2) ||
		res.JSON(t)["agent"].(map[string]any)["marketplaceId"] != id {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	ctx := context.Background()
	if n, _ := l.hub.DB.StoreSubscription.Query().Where(storesubscription.AgentID(id)).Count(ctx); n != 0 {
		t.Fatalf("subscriptions left: %d", n)
	}
	if ex, err := l.hub.DB.Execution.Get(ctx, done); err != nil || ex.AgentID != nil || ex.AgentName == nil ||
		*ex.AgentName != "Writer Pro" || ex.AgentOwnerID == nil || *ex.AgentOwnerID != l.admin.ID {
		t.Fatalf("finished execution: %v %v", ex, err)
	}
	if n, _ := l.hub.DB.Execution.Query().Where(execution.AgentIDIsNil()).Count(ctx); n != 2 {
		t.Fatalf("unlinked executions: %d", n)
	}
	if n, err := l.hub.DB.StoreAgent.Query().Where(storeagent.ID(id)).Count(ctx); err != nil || n != 0 {
		t.Fatalf("the listing's row is left: %d %v", n, err)
	}
	if res := l.a.Do(http.MethodGet, "/api/v2/federation/agents/w1", nil); res.Status != http.StatusNotFound {
		t.Fatalf("get after delete: %d %s", res.Status, res.Body)
	}
	if list := l.a.Do(http.MethodGet, "/api/v2/federation/agents", nil).JSON(t)["agents"].([]any); len(list) != 0 {
		t.Fatalf("list after delete: %v", list)
	}
	// The slug is free again: a new sync of w1 is a new listing, and the
	// unlinked executions are not its.
	res = l.a.Do(http.MethodPut, "/api/v2/federation/agents/w1", map[string]any{"name": "Writer Pro", "slug": "writer"})
	if res.Status != http.StatusCreated || res.JSON(t)["agent"].(map[string]any)["marketplaceId"] == id ||
		res.JSON(t)["agent"].(map[string]any)["executionCount"] != float64(0) {
		t.Fatalf("re-create: %d %s", res.Status, res.Body)
	}
	// Without executions the row itself goes.
	if res := l.a.Do(http.MethodDelete, "/api/v2/federation/agents/w1", nil); res.Status != http.StatusOK || res.JSON(t)["keptExecutions"] != float64(0) {
		t.Fatalf("delete unused: %d %s", res.Status, res.Body)
	}
	if n, _ := l.hub.DB.StoreAgent.Query().Where(storeagent.Slug("writer")).Count(ctx); n != 0 {
		t.Fatalf("unused listing kept: %d", n)
	}
}

// TestSyncedAgentBadInput: RULINGS "Input at the boundary": NUL, invalid
// UTF-8 and over-long fields on the new routes are 4xx and write nothing.
func TestSyncedAgentBadInput(t *testing.T) {
	t.Parallel()
	l := newLinkedNet(t)
	long := strings.Repeat("x", 65)
	cases := []struct {
		name, method, path string
		body               any
	}{
		{"NUL in name", http.MethodPut, "/api/v2/federation/agents/r1", `{"name": "a\u0000b"}`},
		{"invalid UTF-8 in name", http.MethodPut, "/api/v2/federation/agents/r1", []byte("{\"name\": \"a\xffb\"}")},
		{"over-long name", http.MethodPut, "/api/v2/federation/agents/r1", map[string]any{"name": strings.Repeat("n", 501)}},
		{"over-long description", http.MethodPut, "/api/v2/federation/agents/r1", map[string]any{"name": "A", "description": strings.Repeat("d", 100001)}},
		{"over-long remoteId", http.MethodPut, "/api/v2/federation/agents/" + long, map[string]any{"name": "A"}},
		{"NUL in remoteId", http.MethodPut, "/api/v2/federation/agents/a%00b", map[string]any{"name": "A"}},
		{"invalid UTF-8 in remoteId", http.MethodPut, "/api/v2/federation/agents/a%FFb", map[string]any{"name": "A"}},
		{"NUL in remoteId (delete)", http.MethodDelete, "/api/v2/federation/agents/a%00b", nil},
		{"over-long remoteId (get)", http.MethodGet, "/api/v2/federation/agents/" + long, nil},
		{"bad pricing", http.MethodPut, "/api/v2/federation/agents/r1", map[string]any{"name": "A", "pricePerTask": 3}},
		{"NUL in capability prompt", http.MethodPost, "/api/v2/federation/capabilities", `{"capabilities": [{"id": "c", "name": "C", "prompt": "a\u0000"}]}`},
		{"over-long capability name", http.MethodPost, "/api/v2/federation/capabilities", map[string]any{"capabilities": []any{map[string]any{"id": "c", "name": strings.Repeat("n", 501), "prompt": "p"}}}},
		{"too many patterns", http.MethodPost, "/api/v2/federation/capabilities", map[string]any{"capabilities": []any{map[string]any{"id": "c", "name": "C", "prompt": "p", "signalPatterns": make([]string, 21)}}}},
		{"NUL in browse q", http.MethodGet, "/api/v2/federation/browse?q=a%00", nil},
		{"over-long browse q", http.MethodGet, "/api/v2/federation/browse?q=" + strings.Repeat("q", 1001), nil},
	}
	before := l.counts(t)
	for _, c := range cases {
		res := l.a.Do(c.method, c.path, c.body)
		if res.Status < 400 || res.Status >= 500 {
			t.Errorf("%s: %d %s", c.name, res.Status, res.Body)
		}
	}
	if after := l.counts(t); after != before {
		t.Fatalf("bad input wrote: %v → %v", before, after)
	}
}

// TestCapabilitySync: RULINGS "Federation: instances and the platform":
// capability sync needs store participation (403 naming marketplace-link)
// and an active instance (401), takes at most 50 (400), answers per item,
// checks each signal pattern as a case-insensitive Go regexp and the
// promptGroup, and leaves synced capabilities in pending_review, out of the
// catalogue until approved.
func TestCapabilitySync(t *testing.T) {
	t.Parallel()
	l := newLinkedNet(t)
	ctx := context.Background()
	if res := l.a.Do(http.MethodPost, "/api/v2/federation/marketplace-link", map[string]any{"action": "disable"}); res.Status != http.StatusOK {
		t.Fatalf("unlink: %d %s", res.Status, res.Body)
	}
	one := map[string]any{"capabilities": []any{map[string]any{"id": "c1", "name": "CRM", "prompt": "p"}}}
	if res := l.a.Do(http.MethodPost, "/api/v2/federation/capabilities", one); res.Status != http.StatusForbidden ||
		!strings.Contains(string(res.Body), "marketplace-link") {
		t.Fatalf("before link: %d %s", res.Status, res.Body)
	}
	l.a.Do(http.MethodPost, "/api/v2/federation/marketplace-link", map[string]any{"action": "enable"})
	many := make([]any, 51)
	for i := range many {
		many[i] = map[string]any{"id": "m" + strings.Repeat("x", i), "name": "M", "prompt": "p"}
	}
	if res := l.a.Do(http.MethodPost, "/api/v2/federation/capabilities", map[string]any{"capabilities": many}); res.Status != http.StatusBadRequest {
		t.Fatalf("51: %d %s", res.Status, res.Body)
	}
	if n, _ := l.hub.DB.CapabilityPack.Query().Count(ctx); n != 0 {
		t.Fatalf("a refused sync stored %d", n)
	}
	caps := []any{
		map[string]any{"id": "crm", "name": "CRM notes", "prompt": "Keep CRM notes.", "promptGroup": "contacts",
			"signalPatterns": []string{`\bcrm\b`, "notes?"}, "tokenEstimate": 40},
		map[string]any{"id": "plain", "name": "Plain", "prompt": "Be plain."},
		map[string]any{"id": "always", "name": "Always", "prompt": "Always.", "promptGroup": "core", "alwaysLoad": true},
		map[string]any{"id": "badre", "name": "Bad", "prompt": "p", "signalPatterns": []string{"(unclosed"}},
		map[string]any{"id": "empty", "name": "Empty", "prompt": "p", "promptGroup": "contacts", "signalPatterns": []string{"a*"}},
		map[string]any{"id": "group", "name": "Group", "prompt": "p", "promptGroup": "nope", "signalPatterns": []string{"x"}},
		map[string]any{"id": "nogroup", "name": "No patterns", "prompt": "p", "promptGroup": "contacts"},
		map[string]any{"id": "noprompt", "name": "No prompt"},
	}
	got := results(t, l.a.Do(http.MethodPost, "/api/v2/federation/capabilities", map[string]any{"capabilities": caps}))
	want := map[string]string{"crm": "created", "plain": "created", "always": "created", "badre": "invalid",
		"empty": "invalid", "group": "invalid", "nogroup": "invalid", "noprompt": "invalid"}
	for id, st := range want {
		if got[id]["status"] != st {
			t.Errorf("%s: %v, want %s", id, got[id], st)
		}
	}
	if !strings.Contains(got["badre"]["error"].(string), "signalPatterns[0]") {
		t.Errorf("badre error: %v", got["badre"])
	}
	// B's capability with A's slug conflicts; A again is unchanged; a new
	// prompt is updated.
	got = results(t, l.b.Do(http.MethodPost, "/api/v2/federation/capabilities", map[string]any{"capabilities": []any{
		map[string]any{"id": "crm", "name": "CRM notes", "prompt": "other"}}}))
	if got["crm"]["status"] != "conflict" {
		t.Fatalf("B's conflict: %v", got)
	}
	got = results(t, l.a.Do(http.MethodPost, "/api/v2/federation/capabilities", map[string]any{"capabilities": caps[:2]}))
	if got["crm"]["status"] != "unchanged" || got["plain"]["status"] != "unchanged" {
		t.Fatalf("again: %v", got)
	}
	got = results(t, l.a.Do(http.MethodPost, "/api/v2/federation/capabilities", map[string]any{"capabilities": []any{
		map[string]any{"id": "plain", "name": "Plain", "prompt": "Be plainer."}}}))
	if got["plain"]["status"] != "updated" {
		t.Fatalf("update: %v", got)
	}
	list := l.a.Do(http.MethodGet, "/api/v2/federation/capabilities", nil).JSON(t)["capabilities"].([]any)
	if len(list) != 3 {
		t.Fatalf("list: %v", list)
	}
	crm := list[0].(map[string]any)
	if crm["remoteId"] != "crm" || crm["status"] != "pending_review" || crm["promptGroup"] != "contacts" ||
		crm["tokenEstimate"] != float64(40) || len(crm["signalPatterns"].([]any)) != 2 {
		t.Fatalf("crm: %v", crm)
	}
	// Not in the catalogue while pending, and not installable.
	res := l.admin.Session.Do(http.MethodGet, "/api/marketplace-capabilities", nil)
	if res.Status != http.StatusOK || strings.Contains(string(res.Body), "CRM notes") {
		t.Fatalf("catalogue shows a pending capability: %d %s", res.Status, res.Body)
	}
	res = l.admin.Session.Do(http.MethodPost, "/api/marketplace-capabilities", map[string]any{"capabilityId": crm["marketplaceId"]})
	if res.Status != http.StatusNotFound {
		t.Fatalf("install of a pending capability: %d %s", res.Status, res.Body)
	}
	// Approved, it is a dynamic module of prompt-groups.
	if err := l.hub.DB.CapabilityPack.UpdateOneID(crm["marketplaceId"].(string)).SetStatus(capabilitypack.StatusActive).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	mods := l.a.Do(http.MethodGet, "/api/v2/prompt-groups", nil).JSON(t)["dynamicModules"].([]any)
	if len(mods) != 1 || mods[0].(map[string]any)["name"] != "CRM notes" || mods[0].(map[string]any)["prompt"] != nil {
		t.Fatalf("dynamic modules: %v", mods)
	}
	l.admin.Session.Do(http.MethodPost, "/api/admin/federation/instances/"+l.aID+"/deactivate", map[string]any{})
	if res := l.a.Do(http.MethodPost, "/api/v2/federation/capabilities", one); res.Status != http.StatusUnauthorized {
		t.Fatalf("deactivated: %d %s", res.Status, res.Body)
	}
}

// TestDeactivationCascade: document 2 "Store agent status" and RULINGS:
// deactivating an instance suspends every agent and capability synced from
// it, reactivating puts each back to its own previous status; another
// instance's rows and the hub's own are untouched.
func TestDeactivationCascade(t *testing.T) {
	t.Parallel()
	l := newLinkedNet(t)
	ctx := context.Background()
	for _, id := range []string{"x1", "x2", "x3"} {
		if res := l.a.Do(http.MethodPut, "/api/v2/federation/agents/"+id, map[string]any{"name": "Agent " + id}); res.Status != http.StatusCreated {
			t.Fatalf("sync %s: %d %s", id, res.Status, res.Body)
		}
	}
	if res := l.b.Do(http.MethodPut, "/api/v2/federation/agents/x1", map[string]any{"name": "B agent"}); res.Status != http.StatusCreated {
		t.Fatalf("sync B: %d %s", res.Status, res.Body)
	}
	results(t, l.a.Do(http.MethodPost, "/api/v2/federation/capabilities", map[string]any{"capabilities": []any{
		map[string]any{"id": "c1", "name": "Cap one", "prompt": "p"}}}))
	set := func(slug string, st storeagent.Status) {
		if err := l.hub.DB.StoreAgent.Update().Where(storeagent.Slug(slug)).SetStatus(st).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	set("agent-x1", storeagent.StatusActive)
	set("agent-x2", storeagent.StatusRejected)
	local := listing(t, l.hub, l.admin, map[string]any{"name": "Local"})
	if err := l.hub.DB.StoreAgent.UpdateOneID(local).SetStatus(storeagent.StatusActive).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	statuses := func() map[string]string {
		out := map[string]string{}
		rows, err := l.hub.DB.StoreAgent.Query().All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			out[r.Slug] = string(r.Status)
		}
		caps, err := l.hub.DB.CapabilityPack.Query().All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range caps {
			out["cap:"+c.Name] = string(c.Status)
		}
		return out
	}
	before := statuses()
	if before["agent-x1"] != "active" || before["agent-x2"] != "rejected" || before["agent-x3"] != "pending_review" ||
		before["cap:Cap one"] != "pending_review" {
		t.Fatalf("before: %v", before)
	}
	res := l.admin.Session.Do(http.MethodPost, "/api/admin/federation/instances/"+l.aID+"/deactivate", map[string]any{})
	if res.Status != http.StatusOK {
		t.Fatalf("deactivate: %d %s", res.Status, res.Body)
	}
	during := statuses()
	for _, k := range []string{"agent-x1", "agent-x2", "agent-x3", "cap:Cap one"} {
		if during[k] != "suspended" {
			t.Errorf("%s while deactivated: %s", k, during[k])
		}
	}
	if during["b-agent"] != before["b-agent"] || during["local"] != before["local"] {
		t.Fatalf("others touched: %v", during)
	}
	if row, _ := l.hub.DB.StoreAgent.Get(ctx, local); row == nil || row.Status != storeagent.StatusActive {
		t.Fatalf("local listing: %+v", row)
	}
	// Browse hides them (suspended is not active).
	if strings.Contains(string(l.hub.Anonymous().Do(http.MethodGet, "/api/v2/federation/browse", nil).Body), "agent-x1") {
		t.Fatal("a suspended agent is browsable")
	}
	res = l.admin.Session.Do(http.MethodPost, "/api/admin/federation/instances/"+l.aID+"/reactivate", map[string]any{})
	if res.Status != http.StatusOK {
		t.Fatalf("reactivate: %d %s", res.Status, res.Body)
	}
	after := statuses()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s after reactivation: %s, was %s", k, after[k], v)
		}
	}
	rows, err := l.hub.DB.StoreAgent.Query().Where(storeagent.StatusBeforeSuspendNotNil()).Count(ctx)
	if err != nil || rows != 0 {
		t.Fatalf("remembered statuses left: %d %v", rows, err)
	}
}

// TestRemovedListingKeepsHistory: RULINGS "Federation: instances and the
// platform": removing a synced listing unlinks, never deletes, its finished
// executions and ledger entries. The requester still lists them under the
// listing's name, the owner's earnings still count the captured payment,
// and a review still open on a free one can be given (a deny queues no new
// run: there is no listing to run).
func TestRemovedListingKeepsHistory(t *testing.T) {
	t.Parallel()
	l := newLinkedNet(t)
	ctx := context.Background()
	res := l.a.Do(http.MethodPut, "/api/v2/federation/agents/w1", map[string]any{"name": "Writer", "pricingModel": "per_task", "pricePerTask": 2.5})
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["agent"].(map[string]any)["marketplaceId"].(string)
	buyer := l.hub.SignUp("buyer")
	paid, err := l.hub.DB.Execution.Create().SetUserID(buyer.ID).SetStoreAgentID(id).SetStatus(execution.StatusCompleted).
		SetInput("paid task").SetPaymentHoldStatus(execution.PaymentHoldStatusCaptured).SetReviewStatus(execution.ReviewStatusConfirmed).
		SetCurrency("USD").SetGross(250).SetDeveloperPayout(212).SetPlatformFee(38).SetFeePercent(15).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hold, err := l.hub.DB.PaymentHold.Create().SetExecutionID(paid.ID).SetPayerID(buyer.ID).SetPayeeID(l.admin.ID).
		SetPaymentMethodID("pm").SetAmount(250).SetCurrency("USD").SetDeveloperPayout(212).SetPlatformFee(38).
		SetFeePercent(15).SetStatus("captured").SetExpiresAt(time.Now().Add(time.Hour)).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		kind, account string
		amount        int64
	}{{"authorize", buyer.ID, -250}, {"capture_developer", l.admin.ID, 212}, {"capture_platform", "platform", 38}} {
		if err := l.hub.DB.LedgerEntry.Create().SetHoldID(hold.ID).SetExecutionID(paid.ID).SetKind(e.kind).SetAccount(e.account).
			SetAmount(money.Cents(e.amount)).SetCurrency("USD").Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	review := func(input string) string {
		ex, err := l.hub.DB.Execution.Create().SetUserID(buyer.ID).SetStoreAgentID(id).SetStatus(execution.StatusCompleted).
			SetInput(input).SetReviewStatus(execution.ReviewStatusPendingReview).SetReviewWidgetShownAt(time.Now()).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ex.ID
	}
	confirm, deny := review("free task"), review("free task, denied")

	res = l.a.Do(http.MethodDelete, "/api/v2/federation/agents/w1", nil)
	if res.Status != http.StatusOK || res.JSON(t)["keptExecutions"] != float64(3) {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	if res := l.a.Do(http.MethodGet, "/api/v2/federation/agents/w1", nil); res.Status != http.StatusNotFound {
		t.Fatalf("get after delete: %d %s", res.Status, res.Body)
	}
	if n, err := l.hub.DB.LedgerEntry.Query().Count(ctx); err != nil || n != 3 {
		t.Fatalf("ledger entries: %d %v", n, err)
	}
	if h, err := l.hub.DB.PaymentHold.Get(ctx, hold.ID); err != nil || h.ExecutionID != paid.ID {
		t.Fatalf("payment hold: %+v %v", h, err)
	}

	// The requester's list: all three, the listing's name kept, no agent id.
	list := buyer.Session.Do(http.MethodGet, "/api/marketplace/executions", nil)
	if list.Status != http.StatusOK {
		t.Fatalf("executions: %d %s", list.Status, list.Body)
	}
	rows := list.JSON(t)["executions"].([]any)
	if len(rows) != 3 {
		t.Fatalf("executions: %s", list.Body)
	}
	for _, r := range rows {
		row := r.(map[string]any)
		if ex := row["execution"].(map[string]any); row["agentName"] != "Writer" || ex["agentId"] != nil && ex["agentId"] != "" {
			t.Fatalf("unlinked execution listed as %v", row)
		}
	}
	// The owner's earnings: the captured payment under the listing's name.
	earn := l.admin.Session.Do(http.MethodGet, "/api/marketplace/earnings", nil)
	if earn.Status != http.StatusOK {
		t.Fatalf("earnings: %d %s", earn.Status, earn.Body)
	}
	got := earn.JSON(t)
	agents, totals := got["agents"].([]any), got["totals"].([]any)
	if len(agents) != 1 || len(totals) != 1 {
		t.Fatalf("earnings: %s", earn.Body)
	}
	if a := agents[0].(map[string]any); a["name"] != "Writer" || a["developerPayout"] != 2.12 || a["paidExecutionCount"] != float64(1) ||
		a["agentId"] != nil && a["agentId"] != "" || totals[0].(map[string]any)["gross"] != 2.5 {
		t.Fatalf("earnings: %s", earn.Body)
	}

	// An open review of an unlinked execution can still be given.
	res = buyer.Session.Do(http.MethodPost, "/api/marketplace/lifecycle", map[string]any{"action": "confirm", "executionId": confirm, "rating": 4})
	if res.Status != http.StatusOK || res.JSON(t)["execution"].(map[string]any)["reviewStatus"] != "confirmed" {
		t.Fatalf("confirm: %d %s", res.Status, res.Body)
	}
	res = buyer.Session.Do(http.MethodPost, "/api/marketplace/lifecycle", map[string]any{"action": "deny", "executionId": deny, "reason": "Off topic"})
	if res.Status != http.StatusOK || res.JSON(t)["execution"].(map[string]any)["reviewStatus"] != "denied" || res.JSON(t)["requeued"] != nil {
		t.Fatalf("deny: %d %s", res.Status, res.Body)
	}
	if n, _ := l.hub.DB.Execution.Query().Count(ctx); n != 3 {
		t.Fatalf("executions after the reviews: %d", n)
	}
}
