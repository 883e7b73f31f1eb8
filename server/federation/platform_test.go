package federation_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// platformNet is a hub (with its public URL known) holding one registered
// fake spoke, the spoke's platform token and the kinds of credentials that
// must not open a platform route.
type platformNet struct {
	hub      *servertest.Server
	admin    *servertest.Account
	fake     *fakeSpoke
	platform string
	wrong    map[string]string
}

func newPlatformNet(t *testing.T) *platformNet {
	t.Helper()
	p := &platformNet{hub: servertest.New(t, servertest.WithRole("hub"), servertest.WithPrivateEndpoints(), servertest.WithSelfPublicURL())}
	p.admin = p.hub.SignUp("owner")
	n := &network{hub: p.hub, hubAdmin: p.admin}
	p.fake = newFakeSpoke(t)
	p.fake.secret.Store(secret('a'))
	res := p.hub.WithKey(n.connectToken(t)).Do(http.MethodPost, "/api/v2/federation/register",
		map[string]any{"name": "Fake", "baseUrl": p.fake.URL, "apiKey": secret('a')})
	if res.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", res.Status, res.Body)
	}
	reg := res.JSON(t)
	p.platform = reg["platformToken"].(string)
	// The register answer lists the platform routes, these among them.
	listed := map[string]bool{}
	for _, e := range reg["endpoints"].([]any) {
		e := e.(map[string]any)
		listed[e["method"].(string)+" "+e["path"].(string)] = true
	}
	for _, want := range []string{"POST /api/v2/federation/validate-payment", "GET /api/v2/prompt-groups", "GET /api/v2/network/discover",
		"PUT /api/v2/federation/agents/{remoteId}", "DELETE /api/v2/federation/agents/{remoteId}",
		"POST /api/v2/federation/capabilities", "GET /api/v2/federation/browse"} {
		if !listed[want] {
			t.Errorf("register endpoints lack %s: %v", want, reg["endpoints"])
		}
	}
	p.wrong = map[string]string{
		"peer token":      auth.PeerTokenPrefix + strings.Repeat("x", 52),
		"instance secret": secret('a'),
		"connect token":   n.connectToken(t),
		"API key":         p.admin.NewKey("k"),
		"unknown sbp_":    auth.PlatformTokenPrefix + strings.Repeat("z", 52),
	}
	return p
}

// TestValidatePaymentRoute: RULINGS "Federation: instances and the
// platform" (validate-payment) and document 2 "Limits" (minimum fees 15
// percent store, 10 percent recruiting): at and around both floors, the
// enforced fee is the larger of proposed and floor and valid is false below
// the floor; bad input is 400, a token of another kind 401, a standalone 404.
func TestValidatePaymentRoute(t *testing.T) {
	t.Parallel()
	p := newPlatformNet(t)
	api := p.hub.WithKey(p.platform)
	cases := []struct {
		typ                       string
		gross, proposed           float64
		valid                     bool
		floor, enforced, fee, dev float64
	}{
		{"marketplace", 100, 14.99, false, 15, 15, 15, 85},
		{"marketplace", 100, 15, true, 15, 15, 15, 85},
		{"marketplace", 100, 15.01, true, 15, 15.01, 15.01, 84.99},
		{"marketplace", 100, 0, false, 15, 15, 15, 85},
		{"marketplace", 19.99, 20, true, 15, 20, 4, 15.99},
		{"recruiting", 100, 9.99, false, 10, 10, 10, 90},
		{"recruiting", 100, 10, true, 10, 10, 10, 90},
		{"recruiting", 100, 10.01, true, 10, 10.01, 10.01, 89.99},
		{"recruiting", 0, 12, true, 10, 12, 0, 0},
		{"recruiting", 250.5, 100, true, 10, 100, 250.5, 0},
	}
	for _, c := range cases {
		res := api.Do(http.MethodPost, "/api/v2/federation/validate-payment",
			map[string]any{"transactionType": c.typ, "grossAmount": c.gross, "proposedFeePercent": c.proposed, "agentId": "a1"})
		if res.Status != http.StatusOK {
			t.Fatalf("%s %v at %v%%: %d %s", c.typ, c.gross, c.proposed, res.Status, res.Body)
		}
		got := res.JSON(t)
		want := map[string]any{"valid": c.valid, "transactionType": c.typ, "grossAmount": c.gross,
			"proposedFeePercent": c.proposed, "floorPercent": c.floor, "enforcedFeePercent": c.enforced,
			"platformFee": c.fee, "developerPayout": c.dev}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s %v at %v%%: %s = %v, want %v (%s)", c.typ, c.gross, c.proposed, k, got[k], v, res.Body)
			}
		}
		if reason, _ := got["reason"].(string); !strings.Contains(reason, "floor") {
			t.Errorf("reason %q", reason)
		}
	}

	// Connect (binary protobuf), the same answer as REST.
	client := switchboardv1connect.NewFederationPlatformServiceClient(p.hub.HTTP, p.hub.URL,
		connect.WithInterceptors(servertest.BearerInterceptor(p.platform)))
	out, err := client.ValidatePayment(context.Background(), &switchboardv1.ValidatePaymentRequest{
		TransactionType: "marketplace", GrossAmount: proto.Float64(100), ProposedFeePercent: proto.Float64(14.99)})
	if err != nil {
		t.Fatal(err)
	}
	if m := out; m.Valid || m.EnforcedFeePercent != 15 || m.PlatformFee != 15 || m.DeveloperPayout != 85 {
		t.Fatalf("connect: %v", m)
	}
	bad := switchboardv1connect.NewFederationPlatformServiceClient(p.hub.HTTP, p.hub.URL,
		connect.WithInterceptors(servertest.BearerInterceptor(p.wrong["peer token"])))
	_, err = bad.ValidatePayment(context.Background(), &switchboardv1.ValidatePaymentRequest{
		TransactionType: "marketplace", GrossAmount: proto.Float64(1), ProposedFeePercent: proto.Float64(20)})
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("connect with a peer token: %v", err)
	}

	// Refusals: 400 naming the field.
	for _, c := range []struct {
		body  string
		field string
	}{
		{`{"grossAmount": 1, "proposedFeePercent": 20}`, "transactionType"},
		{`{"transactionType": "marketplace", "proposedFeePercent": 20}`, "grossAmount"},
		{`{"transactionType": "marketplace", "grossAmount": 1}`, "proposedFeePercent"},
		{`{"transactionType": "rent", "grossAmount": 1, "proposedFeePercent": 20}`, "transactionType"},
		{`{"transactionType": "marketplace", "grossAmount": -1, "proposedFeePercent": 20}`, "grossAmount"},
		{`{"transactionType": "marketplace", "grossAmount": 1.001, "proposedFeePercent": 20}`, "grossAmount"},
		{fmt.Sprintf(`{"transactionType": "marketplace", "grossAmount": %d, "proposedFeePercent": 20}`, int64(money.MaxUnits)+1), "grossAmount"},
		{`{"transactionType": "marketplace", "grossAmount": 1, "proposedFeePercent": 100.5}`, "proposedFeePercent"},
		{`{"transactionType": "marketplace", "grossAmount": 1, "proposedFeePercent": -1}`, "proposedFeePercent"},
		{`{"transactionType": "market\u0000place", "grossAmount": 1, "proposedFeePercent": 20}`, "transaction"},
		{"{\"transactionType\": \"marketplace\", \"grossAmount\": 1, \"proposedFeePercent\": 20, \"agentId\": \"a\xff\"}", ""},
		{`{"transactionType": "marketplace", "grossAmount": 1, "proposedFeePercent": 20, "agentId": "a\u0000"}`, "agent"},
		{`{"transactionType": "marketplace", "grossAmount": 1, "proposedFeePercent": 20, "agentId": "` + strings.Repeat("a", 65) + `"}`, "agent"},
		{`{"transactionType": "` + strings.Repeat("m", 101) + `", "grossAmount": 1, "proposedFeePercent": 20}`, "transaction"},
	} {
		res := api.Do(http.MethodPost, "/api/v2/federation/validate-payment", c.body)
		if res.Status != http.StatusBadRequest || !strings.Contains(strings.ToLower(string(res.Body)), strings.ToLower(c.field)) {
			t.Errorf("%s: %d %s", c.body, res.Status, res.Body)
		}
	}

	// One credential kind: another kind, an unknown platform token or none
	// is 401.
	body := map[string]any{"transactionType": "marketplace", "grossAmount": 1, "proposedFeePercent": 20}
	for name, tok := range p.wrong {
		if res := p.hub.WithKey(tok).Do(http.MethodPost, "/api/v2/federation/validate-payment", body); res.Status != http.StatusUnauthorized {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	if res := p.hub.Anonymous().Do(http.MethodPost, "/api/v2/federation/validate-payment", body); res.Status != http.StatusUnauthorized {
		t.Errorf("no token: %d %s", res.Status, res.Body)
	}

	// A standalone instance serves no platform route.
	standalone := servertest.New(t)
	for _, r := range []struct{ method, path string }{
		{http.MethodPost, "/api/v2/federation/validate-payment"},
		{http.MethodGet, "/api/v2/prompt-groups"},
		{http.MethodGet, "/api/v2/network/discover"},
	} {
		var b any
		if r.method == http.MethodPost {
			b = body
		}
		if res := standalone.WithKey(p.platform).Do(r.method, r.path, b); res.Status != http.StatusNotFound {
			t.Errorf("standalone %s: %d %s", r.path, res.Status, res.Body)
		}
	}
	if res := standalone.Anonymous().Do(http.MethodGet, "/api/v2/network/discover", nil); res.Status != http.StatusNotFound {
		t.Errorf("standalone discover: %d %s", res.Status, res.Body)
	}
}

// TestPromptGroupsRoute: RULINGS "Federation: instances and the platform"
// (prompt-groups): the 17 static groups, core and identity always loaded,
// pinned by a golden file; platform token only.
func TestPromptGroupsRoute(t *testing.T) {
	t.Parallel()
	p := newPlatformNet(t)
	res := p.hub.WithKey(p.platform).Do(http.MethodGet, "/api/v2/prompt-groups", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("prompt-groups: %d %s", res.Status, res.Body)
	}
	got := res.JSON(t)
	groups := got["groups"].([]any)
	if got["totalGroups"] != float64(17) || len(groups) != 17 {
		t.Fatalf("groups: %v of %d", got["totalGroups"], len(groups))
	}
	for i, g := range groups {
		g := g.(map[string]any)
		always := g["name"] == "core" || g["name"] == "identity"
		if g["index"] != float64(i) || g["alwaysLoaded"] != always || len(g["signalPatterns"].([]any)) == 0 {
			t.Errorf("group %d: %v", i, g)
		}
		if _, ok := g["prompt"]; ok {
			t.Errorf("group %v answers its prompt", g["name"])
		}
	}
	if dm, ok := got["dynamicModules"].([]any); !ok || len(dm) != 0 {
		t.Errorf("dynamicModules: %v", got["dynamicModules"])
	}
	golden(t, "prompt-groups.json", res.Body, nil)

	for name, tok := range p.wrong {
		if res := p.hub.WithKey(tok).Do(http.MethodGet, "/api/v2/prompt-groups", nil); res.Status != http.StatusUnauthorized {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	if res := p.hub.Anonymous().Do(http.MethodGet, "/api/v2/prompt-groups", nil); res.Status != http.StatusUnauthorized {
		t.Errorf("no token: %d %s", res.Status, res.Body)
	}
}

// TestDiscoverRoute: RULINGS "Federation: instances and the platform"
// (discover: public, richer with a platform token, 50/200) and document 2
// "Limits" (discovery page default 50, max 200).
func TestDiscoverRoute(t *testing.T) {
	t.Parallel()
	p := newPlatformNet(t)
	ann, bob := p.hub.SignUp("ann"), p.hub.SignUp("bob")
	hubURL := p.hub.URL
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ctx := context.Background()
	mk := func(id, owner, name, slug string, status storeagent.Status, age int, edit func(*ent.StoreAgentCreate)) {
		c := p.hub.DB.StoreAgent.Create().SetID(id).SetUserID(owner).SetName(name).SetSlug(slug).
			SetEndpointURL("https://agents.example/secret-endpoint").SetStatus(status).
			SetCreatedAt(base.Add(time.Duration(age) * time.Hour)).SetUpdatedAt(base).
			SetDescription(name + " does things").SetDeveloperName("Dev " + name).
			SetTaskTypes([]string{"summarize"}).SetPricingModel("per_task").SetPricePerTask(money.Cents(250)).
			SetInstallCount(3).SetSubscriberCount(2).SetExecutionCount(7)
		if edit != nil {
			edit(c)
		}
		if err := c.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	mk("agent-local-1", ann.ID, "Summarizer", "summarizer", storeagent.StatusActive, 1, nil)
	mk("agent-local-2", bob.ID, "Translator", "translator", storeagent.StatusActive, 2, nil)
	mk("agent-pending", bob.ID, "Pending One", "pending-one", storeagent.StatusPendingReview, 3, nil)
	mk("agent-synced", ann.ID, "Remote Researcher", "remote-researcher", storeagent.StatusActive, 4, func(c *ent.StoreAgentCreate) {
		c.SetSourceInstanceID("instance-x").SetSourceInstanceURL("https://spoke.example").SetRemoteID("r1")
	})

	// Public: profiles and active listings, nothing rich, no secrets.
	res := p.hub.Anonymous().Do(http.MethodGet, "/api/v2/network/discover", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("discover: %d %s", res.Status, res.Body)
	}
	pub := res.JSON(t)
	if pub["authenticated"] != false || pub["limit"] != float64(50) || pub["offset"] != float64(0) || pub["type"] != "all" {
		t.Fatalf("public: %s", res.Body)
	}
	if tot := pub["totals"].(map[string]any); tot["profiles"] != float64(3) || tot["agents"] != float64(3) || tot["teams"] != float64(0) {
		t.Fatalf("totals: %v", tot)
	}
	for _, leak := range []string{"secret-endpoint", "@example.com", `"instanceUrl":"`, `"counts":{`, `"network":{`, "pending-one"} {
		if bytes.Contains(res.Body, []byte(leak)) {
			t.Errorf("public answer holds %q: %s", leak, res.Body)
		}
	}
	replace := map[string]string{ann.ID: "{ann}", bob.ID: "{bob}", p.admin.ID: "{owner}", hubURL: "{hubUrl}"}
	golden(t, "discover-public.json", res.Body, replace)

	// A platform token: the instance URL, per-entry counts, the network.
	res = p.hub.WithKey(p.platform).Do(http.MethodGet, "/api/v2/network/discover", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("rich discover: %d %s", res.Status, res.Body)
	}
	rich := res.JSON(t)
	if rich["authenticated"] != true || rich["instanceUrl"] != hubURL || rich["network"] == nil {
		t.Fatalf("rich: %s", res.Body)
	}
	agents := rich["agents"].([]any)
	if first := agents[0].(map[string]any); first["instanceUrl"] != "https://spoke.example" || first["origin"] != "synced" ||
		first["counts"].(map[string]any)["executions"] != float64(7) {
		t.Fatalf("synced agent: %v", first)
	}
	if bytes.Contains(res.Body, []byte("secret-endpoint")) || bytes.Contains(res.Body, []byte("@example.com")) {
		t.Errorf("rich answer leaks: %s", res.Body)
	}
	golden(t, "discover-platform.json", res.Body, replace)

	// type, q, paging.
	get := func(query string) map[string]any {
		t.Helper()
		res := p.hub.Anonymous().Do(http.MethodGet, "/api/v2/network/discover?"+query, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", query, res.Status, res.Body)
		}
		return res.JSON(t)
	}
	if got := get("type=agents&q=TRANS"); len(got["agents"].([]any)) != 1 || len(got["profiles"].([]any)) != 0 ||
		got["agents"].([]any)[0].(map[string]any)["slug"] != "translator" {
		t.Errorf("q on agents: %v", got)
	}
	if got := get("type=profiles&q=bo"); len(got["profiles"].([]any)) != 1 || got["agents"].([]any) == nil || len(got["agents"].([]any)) != 0 {
		t.Errorf("q on profiles: %v", got)
	}
	// No team here (TestDiscoverTeams in server/throughtest lists them), and
	// no note: teams exist.
	if got := get("type=teams"); len(got["teams"].([]any)) != 0 || got["note"] != nil {
		t.Errorf("teams: %v", got)
	}
	if got := get("type=agents&limit=1&offset=1"); len(got["agents"].([]any)) != 1 || got["limit"] != float64(1) ||
		got["agents"].([]any)[0].(map[string]any)["slug"] != "translator" {
		t.Errorf("page: %v", got)
	}
	if got := get("limit=200&offset=10"); got["limit"] != float64(200) || len(got["agents"].([]any)) != 0 || got["totals"].(map[string]any)["agents"] != float64(3) {
		t.Errorf("past the end: %v", got)
	}
	// 60 more profiles: the default page is 50.
	for i := range 60 {
		if err := p.hub.DB.User.Create().SetUsername(fmt.Sprintf("user%02d", i)).SetEmail(fmt.Sprintf("u%d@example.com", i)).
			SetName("User").SetPasswordHash("x").Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := get("type=profiles"); len(got["profiles"].([]any)) != 50 || got["totals"].(map[string]any)["profiles"] != float64(63) {
		t.Errorf("default page: %d of %v", len(got["profiles"].([]any)), got["totals"])
	}

	// Refusals: 400, whatever the caller.
	for _, q := range []string{"limit=201", "limit=-1", "offset=-1", "type=people", "q=" + strings.Repeat("q", 501),
		"q=a%00b", "q=a%FFb", "type=agents%00"} {
		if res := p.hub.Anonymous().Do(http.MethodGet, "/api/v2/network/discover?"+q, nil); res.Status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", q, res.Status, res.Body)
		}
	}
	// A presented token of another kind is 401, not a quiet public answer.
	for name, tok := range p.wrong {
		if res := p.hub.WithKey(tok).Do(http.MethodGet, "/api/v2/network/discover", nil); res.Status != http.StatusUnauthorized {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	// Connect: the same answer.
	client := switchboardv1connect.NewFederationPlatformServiceClient(p.hub.HTTP, p.hub.URL, connect.WithProtoJSON())
	out, err := client.DiscoverNetwork(ctx, &switchboardv1.DiscoverNetworkRequest{Type: "agents", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Agents) != 2 || out.Totals.Agents != 3 || out.Authenticated {
		t.Fatalf("connect discover: %v", out)
	}
	_, err = client.DiscoverNetwork(ctx, &switchboardv1.DiscoverNetworkRequest{Limit: 201})
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("connect limit 201: %v", err)
	}
	var ce *connect.Error
	if !errors.As(err, &ce) {
		t.Fatal(err)
	}
}

// TestDiscoverRateLimit: discover is limited per client address by the
// federation class (docs/decisions.md "Federation platform routes").
func TestDiscoverRateLimit(t *testing.T) {
	t.Parallel()
	hub := servertest.New(t, servertest.WithRole("hub"), servertest.WithLimits(gate.Limits{PerKey: 100000, Auth: 100000, Heavy: 100000, Federation: 3}))
	for i := range 3 {
		if res := hub.Anonymous().Do(http.MethodGet, "/api/v2/network/discover", nil); res.Status != http.StatusOK {
			t.Fatalf("call %d: %d %s", i, res.Status, res.Body)
		}
	}
	if res := hub.Anonymous().Do(http.MethodGet, "/api/v2/network/discover", nil); res.Status != http.StatusTooManyRequests {
		t.Fatalf("over the limit: %d %s", res.Status, res.Body)
	}
}

// golden compares body, indented, with ids replaced, to testdata/name.
func golden(t *testing.T, name string, body []byte, replace map[string]string) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for from, to := range replace {
		s = strings.ReplaceAll(s, from, to)
	}
	s += "\n"
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != s {
		t.Errorf("%s differs from the answer (run with -update to accept):\n%s", path, s)
	}
}
