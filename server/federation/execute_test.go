package federation_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store"
)

// spokeAgent is an agent on the spoke's side (something outside the
// machine, so a loopback HTTP server): it records each call and answers
// with answer.
type spokeAgent struct {
	*httptest.Server
	mu     sync.Mutex
	calls  []*http.Request
	bodies []map[string]any
	answer func(w http.ResponseWriter)
}

func newSpokeAgent(t *testing.T, answer func(w http.ResponseWriter)) *spokeAgent {
	a := &spokeAgent{answer: answer}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		a.mu.Lock()
		a.calls, a.bodies = append(a.calls, r), append(a.bodies, body)
		a.mu.Unlock()
		a.answer(w)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *spokeAgent) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.calls)
}

// execNet is a hub and a joined spoke whose listing of a loopback agent is
// synced to the hub and approved there; buyer is a hub user.
type execNet struct {
	*network
	agent      *spokeAgent
	listingID  string // on the spoke
	hubAgentID string // the synced listing on the hub
	buyer      *servertest.Caller
	buyerID    string
}

func shortExecutions() servertest.Option {
	return func(c *server.Config) {
		c.Executions.CallTimeout = 2 * time.Second
		c.Executions.BreakerOpenFor = time.Minute
	}
}

func newExecNet(t *testing.T, answer func(w http.ResponseWriter), listing map[string]any, extra ...servertest.Option) *execNet {
	t.Helper()
	n := &network{
		hub: servertest.New(t, append([]servertest.Option{servertest.WithRole("hub"), servertest.WithSelfPublicURL(),
			servertest.WithPrivateEndpoints(), servertest.WithReviewPolicy(store.Review), shortExecutions()}, extra...)...),
		spoke: servertest.New(t, append([]servertest.Option{servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints(),
			shortExecutions()}, extra...)...),
	}
	n.hubAdmin, n.spokeAdmin = n.hub.SignUp("owner"), n.spoke.SignUp("owner")
	x := &execNet{network: n, agent: newSpokeAgent(t, answer)}
	body := map[string]any{"name": "Writer", "endpointUrl": x.agent.URL, "authMethod": "bearer", "authCredential": "agent-secret-1234"}
	for k, v := range listing {
		body[k] = v
	}
	res := n.spoke.WithKey(n.spokeAdmin.NewKey("store", "store")).Do(http.MethodPost, "/api/marketplace", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("listing: %d %s", res.Status, res.Body)
	}
	x.listingID = res.JSON(t)["agent"].(map[string]any)["id"].(string)
	n.join(t)
	got := results(t, n.spokeAdmin.Session.Do(http.MethodPost, "/api/marketplace/sync", map[string]any{}))
	x.hubAgentID = got[x.listingID]["marketplaceId"].(string)
	if res := n.hubAdmin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+x.hubAgentID+"/approve", map[string]any{}); res.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
	buyer := n.hub.SignUp("buyer")
	x.buyer, x.buyerID = n.hub.WithKey(buyer.NewKey("buy", "store", "queue")), buyer.ID
	return x
}

func (x *execNet) execute(t *testing.T, input string) map[string]any {
	t.Helper()
	res := x.buyer.Do(http.MethodPost, "/api/marketplace/"+x.hubAgentID+"/execute", map[string]any{"input": input})
	if res.Status != http.StatusOK {
		t.Fatalf("execute: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)
}

func hubRow(t *testing.T, s *servertest.Server, id string) *ent.Execution {
	t.Helper()
	ex, err := s.DB.Execution.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("execution %s: %v", id, err)
	}
	return ex
}

// TestHubDispatchesToSpoke: RULINGS "Federation: instances and the
// platform" (hub-to-spoke execution): a hub user executes a synced agent;
// the hub hands it to the spoke over FederationSpokeService.Execute; the
// spoke runs its own agent (its credential never leaves it, isolation
// output_only, no hold there) and delivers the result to the hub's callback
// with the single-use token through its outbox; the review window opens on
// the hub as for a local agent.
func TestHubDispatchesToSpoke(t *testing.T) {
	t.Parallel()
	x := newExecNet(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"output": "A draft from the spoke."}`))
	}, nil)
	got := x.execute(t, "Draft a note to the team.")
	id := got["executionId"].(string)
	// Running, or already completed when the spoke's result came back
	// before the hub answered.
	if got["status"] != "running" && got["status"] != "completed" {
		t.Fatalf("execute answer: %v", got)
	}
	eventually(t, "the result on the hub", func() bool {
		return hubRow(t, x.hub, id).Status == execution.StatusCompleted
	})
	ex := hubRow(t, x.hub, id)
	if ex.Output == nil || *ex.Output != "A draft from the spoke." || ex.ReviewStatus == nil ||
		*ex.ReviewStatus != execution.ReviewStatusPendingReview || ex.CallbackReceivedAt == nil {
		t.Fatalf("hub execution: %+v", ex)
	}
	// The agent was called by the spoke, with the spoke's own credential,
	// and saw the task as a federation task without the requester's data.
	if x.agent.count() != 1 {
		t.Fatalf("agent calls: %d", x.agent.count())
	}
	call, body := x.agent.calls[0], x.agent.bodies[0]
	if call.Header.Get("Authorization") != "Bearer agent-secret-1234" || call.Header.Get("X-Service-Source") != "federation" {
		t.Fatalf("agent call headers: %v", call.Header)
	}
	if _, ok := body["context"]; ok {
		t.Fatalf("output_only task carried context: %v", body)
	}
	spokeEx, err := x.spoke.DB.Execution.Query().Where(execution.RemoteExecutionID(id)).Only(context.Background())
	if err != nil {
		t.Fatalf("spoke execution: %v", err)
	}
	if spokeEx.TaskOrigin != execution.TaskOriginFederation || spokeEx.RunOrigin != execution.RunOriginFederated || spokeEx.IsolationMode != execution.IsolationModeOutputOnly ||
		spokeEx.PaymentHoldStatus != execution.PaymentHoldStatusNone || spokeEx.CallbackTokenSealed != nil || spokeEx.Status != execution.StatusCompleted {
		t.Fatalf("spoke execution: %+v", spokeEx)
	}
	// The requester's queue on the hub holds the delivery with its review.
	items := x.buyer.Do(http.MethodGet, "/api/v2/queue", nil).JSON(t)["data"].(map[string]any)["items"].([]any)
	if len(items) != 1 || !strings.Contains(string(mustJSON(t, items[0])), id) {
		t.Fatalf("buyer's queue: %v", items)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// connectSpoke is a spoke outside the test's servers: it answers
// verification and serves FederationSpokeService with the generated
// handler, recording what the hub sent and answering with answer.
type connectSpoke struct {
	*httptest.Server
	secret   string
	platform *servertest.Caller // the hub, with this spoke's platform token
	mu       sync.Mutex
	got      []*switchboardv1.FederationSpokeServiceExecuteRequest
	headers  []http.Header
	answer   func(*switchboardv1.FederationSpokeServiceExecuteRequest) (*switchboardv1.FederationSpokeServiceExecuteResponse, error)
}

func (c *connectSpoke) Execute(_ context.Context, req *switchboardv1.FederationSpokeServiceExecuteRequest) (*switchboardv1.FederationSpokeServiceExecuteResponse, error) {
	c.mu.Lock()
	c.got = append(c.got, req)
	c.mu.Unlock()
	return c.answer(req)
}

func (c *connectSpoke) sent() []*switchboardv1.FederationSpokeServiceExecuteRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*switchboardv1.FederationSpokeServiceExecuteRequest(nil), c.got...)
}

// newConnectSpoke registers a connect spoke with n's hub, links its store
// and syncs one agent, active at once under the hub's zero-gate policy.
func newConnectSpoke(t *testing.T, n *network, key byte, remoteID string) (*connectSpoke, string) {
	t.Helper()
	return newSpoke(t, n, key, remoteID, false)
}

// newSpoke is newConnectSpoke, or with rest a spoke that serves only the
// documented route of Execute (POST /api/v2/federation/execute, JSON) and
// lists only rest in its document.
func newSpoke(t *testing.T, n *network, key byte, remoteID string, rest bool) (*connectSpoke, string) {
	t.Helper()
	c := &connectSpoke{secret: secret(key)}
	c.answer = func(req *switchboardv1.FederationSpokeServiceExecuteRequest) (*switchboardv1.FederationSpokeServiceExecuteResponse, error) {
		id := "spoke-" + req.GetExecutionId()
		return &switchboardv1.FederationSpokeServiceExecuteResponse{Accepted: true, SpokeExecutionId: &id}, nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc(federation.WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
		nonce := r.URL.Query().Get("nonce")
		// Each spoke says what it speaks (RULINGS "How one instance calls another").
		protocols := []string{"connect"}
		if rest {
			protocols = []string{"rest"}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"nonce": nonce, "signature": federation.Sign(c.secret, nonce),
			"protocols": protocols})
	})
	mux.HandleFunc("POST /api/v2/federation/execute", func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.headers = append(c.headers, r.Header.Clone())
		c.mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		var req switchboardv1.FederationSpokeServiceExecuteRequest
		if err := protojson.Unmarshal(body, &req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		res, err := c.Execute(r.Context(), &req)
		if err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		out, _ := protojson.Marshal(res)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
	path, handler := switchboardv1connect.NewFederationSpokeServiceHandler(c,
		connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
			return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
				c.mu.Lock()
				c.headers = append(c.headers, req.Header().Clone())
				c.mu.Unlock()
				return next(ctx, req)
			}
		})))
	if !rest {
		mux.Handle(path, handler)
	}
	c.Server = httptest.NewServer(mux)
	t.Cleanup(c.Close)
	res := n.hub.WithKey(n.connectToken(t)).Do(http.MethodPost, "/api/v2/federation/register",
		map[string]any{"name": "Connect spoke " + string(key), "baseUrl": c.URL, "apiKey": c.secret})
	if res.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", res.Status, res.Body)
	}
	c.platform = n.hub.WithKey(res.JSON(t)["platformToken"].(string))
	c.platform.Do(http.MethodPost, "/api/v2/federation/marketplace-link", map[string]any{"action": "enable"})
	got := results(t, c.platform.Do(http.MethodPost, "/api/v2/federation/agents",
		map[string]any{"agents": []any{map[string]any{"id": remoteID, "name": "Remote " + string(key) + " " + remoteID}}}))
	if got[remoteID]["status"] != "created" {
		t.Fatalf("sync: %v", got)
	}
	return c, got[remoteID]["marketplaceId"].(string)
}

// TestHubSideOfDispatch: RULINGS "Federation: instances and the platform"
// (hub-to-spoke execution): the hub calls the spoke's Execute in binary
// protobuf with the spoke's own secret, the spoke's listing id, the input,
// the requester, the timeout and a callback URL and token; the result is
// taken only with the calling spoke's platform token and the execution's
// token, once; a refusal fails the execution with its reason.
func TestHubSideOfDispatch(t *testing.T) {
	t.Parallel()
	n := &network{hub: servertest.New(t, servertest.WithRole("hub"), servertest.WithSelfPublicURL(),
		servertest.WithPrivateEndpoints(), shortExecutions())}
	n.hubAdmin = n.hub.SignUp("owner")
	spokeA, agentA := newConnectSpoke(t, n, 'a', "remote-1")
	spokeB, _ := newConnectSpoke(t, n, 'b', "remote-2")
	buyer := n.hub.SignUp("buyer")
	buy := n.hub.WithKey(buyer.NewKey("buy", "store"))

	res := buy.Do(http.MethodPost, "/api/marketplace/"+agentA+"/execute", map[string]any{"input": "Summarise the week."})
	if res.Status != http.StatusOK || res.JSON(t)["status"] != "running" {
		t.Fatalf("execute: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["executionId"].(string)
	sent := spokeA.sent()
	if len(sent) != 1 {
		t.Fatalf("calls to the spoke: %d", len(sent))
	}
	req, hdr := sent[0], spokeA.headers[0]
	if hdr.Get(federation.InstanceHeader) != spokeA.secret || hdr.Get("Content-Type") != "application/proto" {
		t.Fatalf("call headers: %v", hdr)
	}
	wantCallback := n.hub.URL + "/api/v2/federation/executions/" + id + "/result"
	if req.GetExecutionId() != id || req.GetListingId() != "remote-1" || req.GetInput() != "Summarise the week." ||
		req.GetTaskOrigin() != "marketplace" || req.GetTimeoutSeconds() != int32(store.DefaultExecutionTimeout) ||
		req.GetCallbackUrl() != wantCallback || len(req.GetCallbackToken()) < 32 || req.GetRequester().GetInstanceUrl() != n.hub.URL {
		t.Fatalf("execute request: %v", req)
	}
	row := hubRow(t, n.hub, id)
	if row.CallbackTokenHash == nil || *row.CallbackTokenHash == req.GetCallbackToken() {
		t.Fatalf("the token is not stored hashed: %+v", row)
	}

	deliver := func(c *servertest.Caller, execID, token string) *servertest.Response {
		return c.Do(http.MethodPost, "/api/v2/federation/executions/"+execID+"/result",
			map[string]any{"callbackToken": token, "status": "completed", "output": "The week, summarised."})
	}
	// Another spoke's platform token, a wrong token, an API key: refused,
	// nothing recorded.
	if res := deliver(spokeB.platform, id, req.GetCallbackToken()); res.Status != http.StatusNotFound {
		t.Fatalf("another spoke's delivery: %d %s", res.Status, res.Body)
	}
	wrong := "f" + req.GetCallbackToken()[1:]
	if wrong == req.GetCallbackToken() {
		wrong = "0" + req.GetCallbackToken()[1:]
	}
	if res := deliver(spokeA.platform, id, wrong); res.Status != http.StatusNotFound {
		t.Fatalf("wrong token: %d %s", res.Status, res.Body)
	}
	if res := deliver(buy, id, req.GetCallbackToken()); res.Status != http.StatusUnauthorized {
		t.Fatalf("an API key: %d %s", res.Status, res.Body)
	}
	if row := hubRow(t, n.hub, id); row.Status != execution.StatusRunning || row.CallbackReceivedAt != nil {
		t.Fatalf("a refused delivery changed the execution: %+v", row)
	}
	res = deliver(spokeA.platform, id, req.GetCallbackToken())
	if res.Status != http.StatusOK || res.JSON(t)["status"] != "completed" {
		t.Fatalf("delivery: %d %s", res.Status, res.Body)
	}
	if res := deliver(spokeA.platform, id, req.GetCallbackToken()); res.Status == http.StatusOK {
		t.Fatalf("the token was used twice: %d %s", res.Status, res.Body)
	}
	if row := hubRow(t, n.hub, id); row.Output == nil || *row.Output != "The week, summarised." {
		t.Fatalf("after delivery: %+v", row)
	}

	// A refusal fails the execution with the spoke's reason.
	spokeA.answer = func(*switchboardv1.FederationSpokeServiceExecuteRequest) (*switchboardv1.FederationSpokeServiceExecuteResponse, error) {
		reason := "the agent is being rebuilt"
		return &switchboardv1.FederationSpokeServiceExecuteResponse{Reason: &reason}, nil
	}
	res = buy.Do(http.MethodPost, "/api/marketplace/"+agentA+"/execute", map[string]any{"input": "Again."})
	if res.Status != http.StatusOK || res.JSON(t)["status"] != "failed" ||
		!strings.Contains(string(res.Body), "the agent is being rebuilt") {
		t.Fatalf("refused: %d %s", res.Status, res.Body)
	}
}

// TestDispatchToAnUnavailableSpoke: RULINGS "Federation: instances and the
// platform" and document 2 "Circuit breaker states": a spoke in
// maintenance takes no dispatch (its agents answer unavailable, nothing is
// made); a spoke that cannot be reached fails each execution, and after 5
// failures its breaker opens and fails the next one without calling.
func TestDispatchToAnUnavailableSpoke(t *testing.T) {
	t.Parallel()
	n := &network{hub: servertest.New(t, servertest.WithRole("hub"), servertest.WithSelfPublicURL(),
		servertest.WithPrivateEndpoints(), shortExecutions())}
	n.hubAdmin = n.hub.SignUp("owner")
	spoke, agent := newConnectSpoke(t, n, 'm', "remote-m")
	buyer := n.hub.SignUp("buyer")
	buy := n.hub.WithKey(buyer.NewKey("buy", "store"))
	ctx := context.Background()

	inst, err := n.hub.DB.FederationInstance.Query().Where(federationinstance.BaseURL(spoke.URL)).Only(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n.hub.DB.FederationInstance.UpdateOneID(inst.ID).SetHealth(federationinstance.HealthMaintenance).ExecX(ctx)
	res := buy.Do(http.MethodPost, "/api/marketplace/"+agent+"/execute", map[string]any{"input": "Now?"})
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "maintenance") {
		t.Fatalf("execute during maintenance: %d %s", res.Status, res.Body)
	}
	if k := n.hub.DB.Execution.Query().CountX(ctx); k != 0 || len(spoke.sent()) != 0 {
		t.Fatalf("maintenance made %d executions and %d calls", k, len(spoke.sent()))
	}
	n.hub.DB.FederationInstance.UpdateOneID(inst.ID).SetHealth(federationinstance.HealthHealthy).ExecX(ctx)

	spoke.Close() // the spoke stops
	for i := range 6 {
		res := buy.Do(http.MethodPost, "/api/marketplace/"+agent+"/execute", map[string]any{"input": "Try again."})
		body := res.JSON(t)
		if res.Status != http.StatusOK || body["status"] != "failed" {
			t.Fatalf("execute %d with the spoke down: %d %s", i, res.Status, res.Body)
		}
		reason, _ := body["error"].(string)
		if open := strings.Contains(reason, "open"); open != (i == 5) {
			t.Fatalf("execute %d: breaker open=%v: %s", i, open, reason)
		}
		// RULINGS "Security details": the requester reads why in words,
		// not the dial error. A new dial is refused; a pooled connection the
		// closed server dropped fails (which one comes first is the pool's).
		if i == 0 && reason != "the agent's instance could not be reached: the connection was refused" &&
			reason != "the agent's instance could not be reached: the connection failed" {
			t.Fatalf("execute with the spoke down: %q", reason)
		}
	}
}

// TestSpokeExecuteRefusals: RULINGS "Federation: instances and the
// platform" (one credential kind per route; results go only to the joined
// hub): the spoke's Execute takes only its own secret in X-Federation-Token
// (a platform token, an API key or nothing is 401), refuses a callback URL
// off its hub (400) and a listing it does not own (accepted false, with the
// reason), and answers a repeated hub execution id with the execution it
// already made. Nothing is made by a refusal.
func TestSpokeExecuteRefusals(t *testing.T) {
	t.Parallel()
	hubKey := bytes.Repeat([]byte{7}, secrets.KeySize)
	n := &network{
		hub: servertest.New(t, servertest.WithRole("hub"), servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints(),
			servertest.WithSecretKey(hubKey), shortExecutions()),
		spoke: servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints(), shortExecutions()),
	}
	n.hubAdmin, n.spokeAdmin = n.hub.SignUp("owner"), n.spoke.SignUp("owner")
	agent := newSpokeAgent(t, func(w http.ResponseWriter) { w.WriteHeader(http.StatusAccepted) })
	res := n.spoke.WithKey(n.spokeAdmin.NewKey("store", "store")).Do(http.MethodPost, "/api/marketplace",
		map[string]any{"name": "Quiet", "endpointUrl": agent.URL})
	listingID := res.JSON(t)["agent"].(map[string]any)["id"].(string)
	n.join(t)
	ctx := context.Background()
	inst := n.hub.DB.FederationInstance.Query().OnlyX(ctx)
	secret := spokeSecret(t, hubKey, inst)
	body := func(execID, listing, callback string) map[string]any {
		return map[string]any{"executionId": execID, "listingId": listing, "input": "Do it.",
			"callbackUrl": callback, "callbackToken": strings.Repeat("c", 64), "taskOrigin": "marketplace"}
	}
	callback := func(id string) string { return n.hub.URL + "/api/v2/federation/executions/" + id + "/result" }
	anon := n.spoke.Anonymous()
	for name, hdr := range map[string][]string{
		"nothing":        nil,
		"platform token": {federation.InstanceHeader, auth.PlatformTokenPrefix + strings.Repeat("p", 40)},
		"wrong secret":   {federation.InstanceHeader, auth.InstanceKeyPrefix + strings.Repeat("w", 40)},
		"bearer secret":  {"Authorization", "Bearer " + string(secret)},
	} {
		res := anon.Do(http.MethodPost, "/api/v2/federation/execute", body("hub-1", listingID, callback("hub-1")), hdr...)
		if res.Status != http.StatusUnauthorized {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	as := func(b map[string]any) *servertest.Response {
		return anon.Do(http.MethodPost, "/api/v2/federation/execute", b, federation.InstanceHeader, string(secret))
	}
	if res := as(body("hub-1", listingID, "https://elsewhere.example/result")); res.Status != http.StatusBadRequest {
		t.Fatalf("foreign callback: %d %s", res.Status, res.Body)
	}
	if res := as(body("hub-1", listingID, callback("hub-2"))); res.Status != http.StatusBadRequest {
		t.Fatalf("another execution's callback: %d %s", res.Status, res.Body)
	}
	// Bad text in the body, sent as raw bytes (a Go string would be
	// repaired by the JSON encoder).
	for name, input := range map[string]string{"NUL": `a\u0000b`, "invalid UTF-8": "a\xffb", "over-long": strings.Repeat("x", 100_001)} {
		raw := `{"executionId":"hub-bad","listingId":"` + listingID + `","input":"` + input + `","callbackUrl":"` +
			callback("hub-bad") + `","callbackToken":"` + strings.Repeat("c", 64) + `"}`
		if res := anon.Do(http.MethodPost, "/api/v2/federation/execute", raw, federation.InstanceHeader, string(secret)); res.Status != http.StatusBadRequest {
			t.Errorf("%s input: %d %s", name, res.Status, res.Body)
		}
	}
	res = as(body("hub-1", "no-such-listing", callback("hub-1")))
	if res.Status != http.StatusOK || res.JSON(t)["accepted"] != false || !strings.Contains(string(res.Body), "no listing") {
		t.Fatalf("unknown listing: %d %s", res.Status, res.Body)
	}
	res = n.spoke.WithKey(n.spokeAdmin.NewKey("store", "store")).Do(http.MethodPost, "/api/marketplace",
		map[string]any{"name": "Off", "endpointUrl": agent.URL})
	off := res.JSON(t)["agent"].(map[string]any)["id"].(string)
	if res := n.spokeAdmin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+off+"/disable", map[string]any{}); res.Status != http.StatusOK {
		t.Fatalf("disable: %d %s", res.Status, res.Body)
	}
	res = as(body("hub-1", off, callback("hub-1")))
	if res.Status != http.StatusOK || res.JSON(t)["accepted"] != false || !strings.Contains(string(res.Body), "disabled") {
		t.Fatalf("a listing disabled on the spoke: %d %s", res.Status, res.Body)
	}
	if k := n.spoke.DB.Execution.Query().CountX(ctx); k != 0 {
		t.Fatalf("refusals made %d executions", k)
	}
	first := as(body("hub-1", listingID, callback("hub-1")))
	again := as(body("hub-1", listingID, callback("hub-1")))
	if first.Status != http.StatusOK || first.JSON(t)["accepted"] != true ||
		first.JSON(t)["spokeExecutionId"] != again.JSON(t)["spokeExecutionId"] {
		t.Fatalf("accepted twice: %s / %s", first.Body, again.Body)
	}
	if k := n.spoke.DB.Execution.Query().CountX(ctx); k != 1 {
		t.Fatalf("a repeated dispatch made %d executions", k)
	}
	ex := n.spoke.DB.Execution.Query().OnlyX(ctx)
	if ex.CallbackTokenSealed == nil || strings.Contains(*ex.CallbackTokenSealed, strings.Repeat("c", 64)) {
		t.Fatalf("the callback token is not sealed: %v", ex.CallbackTokenSealed)
	}
}

// TestHubDispatchToRESTSpoke: RULINGS "How one instance calls another":
// hub-to-spoke execute falls back to the documented REST route (JSON, the
// spoke's secret in its header) for a spoke whose document does not list
// connect.
func TestHubDispatchToRESTSpoke(t *testing.T) {
	t.Parallel()
	n := &network{hub: servertest.New(t, servertest.WithRole("hub"), servertest.WithSelfPublicURL(),
		servertest.WithPrivateEndpoints(), shortExecutions())}
	n.hubAdmin = n.hub.SignUp("owner")
	spoke, agent := newSpoke(t, n, 'r', "remote-r", true)
	buyer := n.hub.SignUp("buyer")
	res := n.hub.WithKey(buyer.NewKey("buy", "store")).Do(http.MethodPost, "/api/marketplace/"+agent+"/execute",
		map[string]any{"input": "Summarise the week."})
	if res.Status != http.StatusOK || res.JSON(t)["status"] != "running" {
		t.Fatalf("execute: %d %s", res.Status, res.Body)
	}
	sent := spoke.sent()
	if len(sent) != 1 || sent[0].GetListingId() != "remote-r" || sent[0].GetInput() != "Summarise the week." {
		t.Fatalf("the spoke got: %v", sent)
	}
	if hdr := spoke.headers[0]; hdr.Get(federation.InstanceHeader) != spoke.secret || hdr.Get("Content-Type") != "application/json" {
		t.Fatalf("call headers: %v", hdr)
	}
}
