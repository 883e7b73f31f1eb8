package throughtest

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent/execution"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/servertest"
	storeadmin "github.com/switchboard-hq/switchboard/server/store/admin"
)

// seedRun is one execution written straight into the history, daysAgo UTC
// days before the server's today.
type seedRun struct {
	agent      string
	daysAgo    int
	status     execution.Status
	run        execution.RunOrigin
	task       execution.TaskOrigin
	durationMs int // 0: none
	grossCents int64
	hold       execution.PaymentHoldStatus
}

// activityFixture is an instance with a seeded history of store runs: the
// owner (the instance admin) lists Alpha and Gamma, ann lists Beta.
type activityFixture struct {
	srv                *servertest.Server
	owner, ann         *servertest.Account
	alpha, beta, gamma string
}

func newActivityFixture(t *testing.T) activityFixture {
	t.Helper()
	srv := servertest.New(t)
	f := activityFixture{srv: srv, owner: srv.SignUp("owner"), ann: srv.SignUp("ann")}
	listing := func(a *servertest.Account, name string) string {
		res := a.Session.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": name,
			"endpointUrl": "https://agents.example.com/" + name, "pricingModel": "free"})
		servertest.WantStatus(t, res, http.StatusCreated)
		return res.JSON(t)["agent"].(map[string]any)["id"].(string)
	}
	f.alpha, f.beta, f.gamma = listing(f.owner, "Alpha"), listing(f.ann, "Beta"), listing(f.owner, "Gamma")
	today := storeadmin.Since(srv.Clock.Now(), 1)
	const (
		local, fed, a2a, mcp, assistant = execution.RunOriginLocal, execution.RunOriginFederated, execution.RunOriginA2a,
			execution.RunOriginMcp, execution.RunOriginAssistant
		owner, market, federation      = execution.TaskOriginOwner, execution.TaskOriginMarketplace, execution.TaskOriginFederation
		done, failed, timeout, running = execution.StatusCompleted, execution.StatusFailed, execution.StatusTimeout,
			execution.StatusRunning
		captured, held = execution.PaymentHoldStatusCaptured, execution.PaymentHoldStatusHeld
	)
	ctx := context.Background()
	for _, r := range []seedRun{
		{f.alpha, 0, done, local, owner, 100, 300, captured},
		{f.beta, 1, done, local, market, 50, 500, held}, // held: not revenue yet
		{f.alpha, 3, failed, mcp, market, 300, 0, ""},
		{f.alpha, 6, timeout, assistant, owner, 0, 0, ""},
		{f.alpha, 20, done, fed, federation, 500, 300, captured},
		{f.beta, 29, running, local, market, 0, 0, ""},
		{f.beta, 45, failed, local, market, 0, 0, ""},
		{f.alpha, 60, done, a2a, market, 900, 0, ""},
		{f.gamma, 100, done, local, owner, 10, 0, ""}, // before any period
		{"", 2, done, local, market, 10, 0, ""},       // a removed listing's run
	} {
		c := srv.DB.Execution.Create().SetUserID(f.ann.ID).SetInput("seeded").SetStatus(r.status).
			SetRunOrigin(r.run).SetTaskOrigin(r.task).SetCreatedAt(today.AddDate(0, 0, -r.daysAgo).Add(time.Second))
		if r.agent != "" {
			c.SetAgentID(r.agent)
		} else {
			c.SetAgentName("Removed")
		}
		if r.durationMs > 0 {
			c.SetResponseTimeMs(r.durationMs)
		}
		if r.grossCents > 0 {
			c.SetGross(money.Cents(r.grossCents)).SetPaymentHoldStatus(r.hold).SetCurrency("USD")
		}
		if _, err := c.Save(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// activity reads the admin's view over REST.
func (f activityFixture) activity(t *testing.T, query string) *switchboardv1.GetAgentActivityResponse {
	t.Helper()
	res := f.owner.Session.Do(http.MethodGet, "/api/admin/agent-activity"+query, nil)
	servertest.WantStatus(t, res, http.StatusOK)
	out := &switchboardv1.GetAgentActivityResponse{}
	restMessage(t, res, out)
	return out
}

// asJSON is v as a JSON answer decodes it.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// restMessage reads a REST answer into its message (the REST mirror writes
// the proto JSON names; unknown fields would be a drift).
func restMessage(t *testing.T, res *servertest.Response, m proto.Message) {
	t.Helper()
	if err := protojson.Unmarshal(res.Body, m); err != nil {
		t.Fatalf("%T: %v\n%s", m, err, res.Body)
	}
}

type agentRow struct {
	name                                        string
	executions, completed, failed, timeout, avg int32
	revenue                                     int32
}

func agentRows(res *switchboardv1.GetAgentActivityResponse) []agentRow {
	var out []agentRow
	for _, a := range res.GetAgents() {
		out = append(out, agentRow{a.GetName(), a.GetExecutions(), a.GetCompleted(), a.GetFailed(), a.GetTimeout(),
			a.GetAvgDurationMs(), a.GetRevenueCents()})
	}
	return out
}

func originsOf(res *switchboardv1.GetAgentActivityResponse) [5]int32 {
	o := res.GetOrigins()
	return [5]int32{o.GetLocal(), o.GetFederated(), o.GetA2A(), o.GetMcp(), o.GetAssistant()}
}

// RULINGS "Onboarding, sprite, admin views", Agent activity: per agent
// {executions, completed, failed, timeout, avgDurationMs, revenueCents}
// over 7, 30 and 90 days of a seeded history, agents without runs in the
// period left out, origins counted, every day of the period by outcome; the
// period moves with the injected clock.
func TestAgentActivityPeriods(t *testing.T) {
	t.Parallel()
	f := newActivityFixture(t)
	for _, c := range []struct {
		query   string
		days    int32
		agents  []agentRow
		origins [5]int32 // local, federated, a2a, mcp, assistant
		runs    int32
	}{
		{"?days=7", 7, []agentRow{{"Alpha", 3, 1, 1, 1, 200, 300}, {"Beta", 1, 1, 0, 0, 50, 0}}, [5]int32{2, 0, 0, 1, 1}, 4},
		{"", 30, []agentRow{{"Alpha", 4, 2, 1, 1, 300, 600}, {"Beta", 2, 1, 0, 0, 50, 0}}, [5]int32{3, 1, 0, 1, 1}, 6},
		{"?days=30", 30, []agentRow{{"Alpha", 4, 2, 1, 1, 300, 600}, {"Beta", 2, 1, 0, 0, 50, 0}}, [5]int32{3, 1, 0, 1, 1}, 6},
		{"?days=90", 90, []agentRow{{"Alpha", 5, 3, 1, 1, 450, 600}, {"Beta", 3, 1, 1, 0, 50, 0}}, [5]int32{4, 1, 1, 1, 1}, 8},
	} {
		res := f.activity(t, c.query)
		if d := cmp.Diff(c.agents, agentRows(res), cmp.AllowUnexported(agentRow{})); d != "" {
			t.Errorf("%s agents (-want +got):\n%s", c.query, d)
		}
		if got := originsOf(res); got != c.origins || res.GetDays() != c.days || res.GetPagination().GetTotal() != c.runs {
			t.Errorf("%s: days %d, origins %v, total %d; want %d, %v, %d", c.query, res.GetDays(), got,
				res.GetPagination().GetTotal(), c.days, c.origins, c.runs)
		}
		daily := res.GetDaily()
		if int32(len(daily)) != c.days {
			t.Fatalf("%s: %d days", c.query, len(daily))
		}
		var sum int32
		for _, d := range daily {
			sum += d.GetCompleted() + d.GetFailed() + d.GetTimeout() + d.GetPending()
		}
		today := daily[len(daily)-1]
		if sum != c.runs || today.GetDate() != f.srv.Clock.Now().UTC().Format(time.DateOnly) || today.GetCompleted() != 1 {
			t.Errorf("%s: the days hold %d runs, today %v", c.query, sum, today)
		}
	}
	// Two days later the run six days old has left the week.
	f.srv.Clock.Advance(48 * time.Hour)
	res := f.activity(t, "?days=7")
	if d := cmp.Diff([]agentRow{{"Alpha", 2, 1, 1, 0, 200, 300}, {"Beta", 1, 1, 0, 0, 50, 0}}, agentRows(res),
		cmp.AllowUnexported(agentRow{})); d != "" {
		t.Errorf("two days later (-want +got):\n%s", d)
	}
	if got := originsOf(res); got != [5]int32{2, 0, 0, 1, 0} {
		t.Errorf("two days later, origins %v", got)
	}
}

// The execution log pages newest first with limit and offset, each run
// with its agent, origin and outcome; the answer is the same over Connect.
func TestAgentActivityLog(t *testing.T) {
	t.Parallel()
	f := newActivityFixture(t)
	first := f.activity(t, "?days=90&limit=3")
	type entry struct{ agent, status, origin string }
	entries := func(res *switchboardv1.GetAgentActivityResponse) []entry {
		var out []entry
		for _, e := range res.GetExecutions() {
			out = append(out, entry{e.GetAgentName(), e.GetStatus(), e.GetOrigin()})
		}
		return out
	}
	want := []entry{{"Alpha", "completed", "local"}, {"Beta", "completed", "local"}, {"Alpha", "failed", "mcp"}}
	if d := cmp.Diff(want, entries(first), cmp.AllowUnexported(entry{})); d != "" {
		t.Errorf("the first page (-want +got):\n%s", d)
	}
	p := first.GetPagination()
	if p.GetTotal() != 8 || p.GetLimit() != 3 || !p.GetHasMore() {
		t.Errorf("the first page's pagination: %v", p)
	}
	if e := first.GetExecutions()[0]; e.GetDurationMs() != 100 || e.GetRevenueCents() != 300 || e.GetUserId() != f.ann.ID {
		t.Errorf("the newest run: %v", e)
	}
	if e := first.GetExecutions()[1]; e.DurationMs == nil || e.RevenueCents != nil {
		t.Errorf("a run whose payment is held has no revenue: %v", e)
	}
	last := f.activity(t, "?days=90&limit=3&offset=6")
	want = []entry{{"Beta", "failed", "local"}, {"Alpha", "completed", "a2a"}}
	if d := cmp.Diff(want, entries(last), cmp.AllowUnexported(entry{})); d != "" || last.GetPagination().GetHasMore() {
		t.Errorf("the last page (-want +got):\n%s\npagination %v", d, last.GetPagination())
	}

	client := switchboardv1connect.NewStoreAdminServiceClient(&http.Client{Jar: f.owner.Jar}, f.srv.URL)
	rpc, err := client.GetAgentActivity(context.Background(), &switchboardv1.GetAgentActivityRequest{
		Days: proto.Int32(90), Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(rpc, first) {
		t.Errorf("Connect answers\n%v\nREST\n%v", rpc, first)
	}
}

// days other than 7, 30 and 90 are 400 on both transports; the view is the
// instance admin's (another account 403, no credential 401, a key 403).
func TestAgentActivityRefusals(t *testing.T) {
	t.Parallel()
	f := newActivityFixture(t)
	for _, q := range []string{"?days=8", "?days=0", "?days=365", "?days=seven", "?offset=-1"} {
		servertest.WantError(t, f.owner.Session.Do(http.MethodGet, "/api/admin/agent-activity"+q, nil), http.StatusBadRequest)
	}
	servertest.WantErrorContaining(t, f.owner.Session.Do(http.MethodGet, "/api/admin/agent-activity?days=8", nil),
		http.StatusBadRequest, "days")
	_, err := switchboardv1connect.NewStoreAdminServiceClient(&http.Client{Jar: f.owner.Jar}, f.srv.URL).
		GetAgentActivity(context.Background(), &switchboardv1.GetAgentActivityRequest{Days: proto.Int32(8)})
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Errorf("days 8 over Connect: %v", err)
	}
	servertest.WantError(t, f.ann.Session.Do(http.MethodGet, "/api/admin/agent-activity?days=7", nil), http.StatusForbidden)
	servertest.WantError(t, f.srv.Anonymous().Do(http.MethodGet, "/api/admin/agent-activity?days=8", nil), http.StatusUnauthorized)
	servertest.WantError(t, f.srv.WithKey(f.owner.NewKey("all")).Do(http.MethodGet, "/api/admin/agent-activity", nil), http.StatusForbidden)
	_, err = switchboardv1connect.NewStoreAdminServiceClient(&http.Client{Jar: f.ann.Jar}, f.srv.URL).
		GetAgentActivity(context.Background(), &switchboardv1.GetAgentActivityRequest{})
	if connect.CodeOf(err) != connect.CodePermissionDenied {
		t.Errorf("ann over Connect: %v", err)
	}
}

// RULINGS "Onboarding, sprite, admin views", My agents: the admin creates an
// instance agent with its kit (no endpoint needed), updates it by id and by
// slug (a kit given is the whole kit; each change is in the changelog); the
// store lists it as the instance's (instanceOwned) and shows its kit to
// admins only.
func TestMyAgents(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	owner, ann := srv.SignUp("owner"), srv.SignUp("ann")
	save := func(body map[string]any) map[string]any {
		t.Helper()
		res := owner.Session.Do(http.MethodPost, "/api/admin/my-agents", body)
		servertest.WantStatus(t, res, http.StatusOK)
		return res.JSON(t)
	}
	kit := map[string]any{"systemPrompt": "You write the morning briefing.", "tools": []string{"calendar_read", "queue_list"},
		"samplePrompts": []string{"Brief me for today"}, "contextInstructions": "Read the calendar first."}
	made := save(map[string]any{"name": "Briefing writer", "slug": "briefing", "description": "Writes the briefing",
		"category": "writing", "pricingModel": "free", "kit": kit})
	agent := made["agent"].(map[string]any)
	id := agent["id"].(string)
	if made["created"] != true || agent["instanceOwned"] != true || agent["status"] != "active" || agent["slug"] != "briefing" ||
		agent["endpointUrl"] != nil || agent["contextInstructions"] != "Read the calendar first." {
		t.Fatalf("created: %v", made)
	}
	if d := cmp.Diff(asJSON(t, kit), agent["kit"]); d != "" {
		t.Errorf("the created kit (-want +got):\n%s", d)
	}

	// By id: a field and the kit's prompt.
	kit["systemPrompt"] = "You write the evening briefing."
	byID := save(map[string]any{"id": id, "description": "Writes the evening briefing", "kit": kit})
	change := byID["change"].(map[string]any)
	if byID["created"] == true || byID["agent"].(map[string]any)["version"] != "1.0.1" ||
		!cmp.Equal(change["fields"], []any{"description", "kit.systemPrompt"}) {
		t.Fatalf("updated by id: %v", byID)
	}
	// By slug: the kit alone, its tools changed and the rest kept as given.
	kit["tools"] = []string{"calendar_read"}
	bySlug := save(map[string]any{"slug": "briefing", "kit": kit})
	if a := bySlug["agent"].(map[string]any); a["id"] != id || !cmp.Equal(bySlug["change"].(map[string]any)["fields"], []any{"kit.tools"}) ||
		!cmp.Equal(a["kit"].(map[string]any)["tools"], []any{"calendar_read"}) || a["description"] != "Writes the evening briefing" {
		t.Fatalf("updated by slug: %v", bySlug)
	}
	// The same save again changes nothing.
	if again := save(map[string]any{"slug": "briefing", "kit": kit}); again["change"] != nil {
		t.Fatalf("a save that changes nothing: %v", again)
	}
	if n, _ := srv.DB.StoreAgent.Query().Count(context.Background()); n != 1 {
		t.Fatalf("%d listings: an update made another", n)
	}

	// The store lists it as the instance's; its kit is for admins.
	list := ann.Session.Do(http.MethodGet, "/api/marketplace?search=briefing", nil)
	servertest.WantStatus(t, list, http.StatusOK)
	listed := list.JSON(t)["agents"].([]any)
	if len(listed) != 1 || listed[0].(map[string]any)["instanceOwned"] != true || listed[0].(map[string]any)["kit"] != nil {
		t.Fatalf("ann's browse: %s", list.Body)
	}
	detail := func(a *servertest.Account) map[string]any {
		res := a.Session.Do(http.MethodGet, "/api/marketplace/"+id, nil)
		servertest.WantStatus(t, res, http.StatusOK)
		return res.JSON(t)["agent"].(map[string]any)
	}
	if a := detail(ann); a["kit"] != nil || a["instanceOwned"] != true {
		t.Errorf("ann reads the detail with %v", a["kit"])
	}
	if k, _ := detail(owner)["kit"].(map[string]any); k["systemPrompt"] != "You write the evening briefing." {
		t.Errorf("the admin's detail: kit %v", k)
	}
	rpc, err := switchboardv1connect.NewStoreServiceClient(&http.Client{Jar: ann.Jar}, srv.URL).
		GetStoreAgent(context.Background(), &switchboardv1.GetStoreAgentRequest{Id: id})
	if err != nil || rpc.GetAgent().Kit != nil || !rpc.GetAgent().GetInstanceOwned() {
		t.Errorf("ann's detail over Connect: %v %v", rpc, err)
	}

	// Over Connect: a second agent, created by the admin's session.
	saved, err := switchboardv1connect.NewStoreAdminServiceClient(&http.Client{Jar: owner.Jar}, srv.URL).
		SaveMyAgent(context.Background(), &switchboardv1.SaveMyAgentRequest{Name: proto.String("Triage"),
			Kit: &switchboardv1.StoreAgentKit{Tools: []string{"queue_list"}}})
	if err != nil || !saved.GetCreated() || saved.GetAgent().GetSlug() != "triage" ||
		saved.GetAgent().GetKit().GetTools()[0] != "queue_list" {
		t.Fatalf("SaveMyAgent over Connect: %v %v", saved, err)
	}
}

// Only the admin saves instance agents; another account's listing is not
// one (404 by id, its slug taken 409); a create needs a name; bad input is
// 400 and writes nothing.
func TestMyAgentsRefusals(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	owner, ann := srv.SignUp("owner"), srv.SignUp("ann")
	res := ann.Session.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Scout",
		"endpointUrl": "https://agents.example.com/scout", "pricingModel": "free"})
	servertest.WantStatus(t, res, http.StatusCreated)
	scout := res.JSON(t)["agent"].(map[string]any)
	do := func(a *servertest.Account, body map[string]any) *servertest.Response {
		return a.Session.Do(http.MethodPost, "/api/admin/my-agents", body)
	}
	servertest.WantError(t, do(ann, map[string]any{"name": "Mine"}), http.StatusForbidden)
	servertest.WantError(t, srv.Anonymous().Do(http.MethodPost, "/api/admin/my-agents", map[string]any{"name": "Mine"}), http.StatusUnauthorized)
	servertest.WantError(t, do(owner, map[string]any{"id": scout["id"], "description": "Taken over"}), http.StatusNotFound)
	servertest.WantError(t, do(owner, map[string]any{"slug": scout["slug"], "description": "Taken over"}), http.StatusConflict)
	servertest.WantErrorContaining(t, do(owner, map[string]any{"description": "No name"}), http.StatusBadRequest, "name")
	servertest.WantError(t, do(owner, map[string]any{"name": "Bad", "category": "astrology"}), http.StatusBadRequest)
	servertest.WantError(t, do(owner, map[string]any{"name": "Bad", "pricingModel": "per_task"}), http.StatusBadRequest)
	servertest.WantError(t, do(owner, map[string]any{"name": "Bad", "endpointUrl": "http://127.0.0.1/agent"}), http.StatusBadRequest)
	servertest.WantErrorContaining(t, do(owner, map[string]any{"name": "Bad", "kit": map[string]any{"tools": []string{"a", " "}}}),
		http.StatusBadRequest, "kit.tools[1]")
	servertest.WantError(t, do(owner, map[string]any{"name": "Bad", "kit": map[string]any{"tools": []string{"a", "a"}}}), http.StatusBadRequest)
	if n, _ := srv.DB.StoreAgent.Query().Count(context.Background()); n != 1 {
		t.Fatalf("%d listings after the refusals, want ann's alone", n)
	}
	if a, _ := srv.DB.StoreAgent.Get(context.Background(), scout["id"].(string)); a.Description != nil || a.InstanceOwned {
		t.Fatalf("ann's listing changed: %+v", a)
	}
	// A paid instance agent names its price in cents.
	paid := do(owner, map[string]any{"name": "Paid", "pricingModel": "per_task", "pricePerTaskCents": 250})
	servertest.WantStatus(t, paid, http.StatusOK)
	if p := paid.JSON(t)["agent"].(map[string]any)["pricePerTask"]; p != 2.5 {
		t.Fatalf("the paid agent's price: %v", p)
	}
}
