package throughtest

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/paymenthold"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store/dispatch"
)

// reviewAgent is a fake store agent on loopback (outside the machine in real
// life): it answers "Result for <message>", fails a message containing
// "fail", and holds a message containing "hold" until release is closed.
type reviewAgent struct {
	*httptest.Server
	mu      sync.Mutex
	got     []string
	release chan struct{}
	// Callback tokens of the tasks it accepted to finish later, by execution.
	tokens map[string]string
}

func newReviewAgent(t *testing.T) *reviewAgent {
	a := &reviewAgent{release: make(chan struct{}), tokens: map[string]string{}}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Message string }
		_ = json.NewDecoder(r.Body).Decode(&body)
		a.mu.Lock()
		a.got = append(a.got, body.Message)
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.Contains(body.Message, "fail"):
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":"boom"}`))
			return
		case strings.Contains(body.Message, "hold"):
			<-a.release
		case strings.Contains(body.Message, "later"):
			a.mu.Lock()
			a.tokens[r.Header.Get(dispatch.HeaderExecutionID)] = r.Header.Get(dispatch.HeaderCallbackToken)
			a.mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
			_, _ = w.Write([]byte(`{"status":"accepted"}`))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"output": "Result for " + body.Message})
	}))
	t.Cleanup(a.Server.Close)
	t.Cleanup(a.free)
	return a
}

func (a *reviewAgent) free() {
	a.mu.Lock()
	defer a.mu.Unlock()
	select {
	case <-a.release:
	default:
		close(a.release)
	}
}

func (a *reviewAgent) received() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.got...)
}

// fixture: bob lists a paid agent (a real one on loopback), ann (the
// requester) and carol execute it through the engine.
type reviewFixture struct {
	s               *servertest.Server
	ann, bob, carol *servertest.Account
	annKey, bobKey  string
	api, bobAPI     *servertest.Caller
	carolAPI        *servertest.Caller
	agent           *reviewAgent
	agentID         string
}

func newReviewFixture(t *testing.T, opts ...servertest.Option) *reviewFixture {
	t.Helper()
	opts = append([]servertest.Option{servertest.WithPrivateEndpoints(), func(c *server.Config) {
		c.Executions = server.ExecutionConfig{CallTimeout: 20 * time.Second}
	}}, opts...)
	s := servertest.New(t, opts...)
	f := &reviewFixture{s: s, ann: s.SignUp("ann"), bob: s.SignUp("bob"), carol: s.SignUp("carol"), agent: newReviewAgent(t)}
	f.annKey, f.bobKey = f.ann.NewKey("ann-agent", "store"), f.bob.NewKey("bob-agent", "store")
	f.api, f.bobAPI = s.WithKey(f.annKey), s.WithKey(f.bobKey)
	f.carolAPI = s.WithKey(f.carol.NewKey("carol-agent", "store"))
	res := f.bobAPI.Do(http.MethodPost, "/api/marketplace", map[string]any{
		"name": "Research Scout", "endpointUrl": f.agent.URL, "pricingModel": "per_task", "pricePerTask": 2.5})
	if res.Status != http.StatusCreated {
		t.Fatalf("create listing: %d %s", res.Status, res.Body)
	}
	f.agentID = res.JSON(t)["agent"].(map[string]any)["id"].(string)
	return f
}

func (f *reviewFixture) client(key string) switchboardv1connect.StoreReviewServiceClient {
	opts := append(servertest.Protocols()["connect+json"], connect.WithInterceptors(servertest.BearerInterceptor(key)))
	return switchboardv1connect.NewStoreReviewServiceClient(f.s.Client("connect+json"), f.s.URL, opts...)
}

// execute runs the agent for the caller through POST
// /api/marketplace/{id}/execute and answers the stored execution.
func (f *reviewFixture) execute(t *testing.T, c *servertest.Caller, input string) *ent.Execution {
	t.Helper()
	res := c.Do(http.MethodPost, "/api/marketplace/"+f.agentID+"/execute", map[string]any{"input": input})
	if res.Status != http.StatusOK && res.Status != http.StatusCreated {
		t.Fatalf("execute %q: %d %s", input, res.Status, res.Body)
	}
	id, _ := res.JSON(t)["executionId"].(string)
	return f.reload(t, id)
}

// paid runs a paid execution for the caller that completes; its payment is
// held and its review open.
func (f *reviewFixture) paid(t *testing.T, c *servertest.Caller) *ent.Execution {
	t.Helper()
	ex := f.execute(t, c, "Scout the battery market\nThree sources please")
	if ex.Status != execution.StatusCompleted || ex.PaymentHoldStatus != execution.PaymentHoldStatusHeld {
		t.Fatalf("paid execution %s, hold %s", ex.Status, ex.PaymentHoldStatus)
	}
	return ex
}

// hold is the ledger's hold of an execution.
func (f *reviewFixture) hold(t *testing.T, execID string) string {
	t.Helper()
	h, err := f.s.DB.PaymentHold.Query().Where(paymenthold.ExecutionID(execID)).Only(context.Background())
	if err != nil {
		t.Fatalf("hold of %s: %v", execID, err)
	}
	return string(h.Status)
}

// finish runs the engine's Finished hook in a transaction of its own, as the
// engine's finishing transaction does.
func (f *reviewFixture) finish(t *testing.T, ex *ent.Execution) {
	t.Helper()
	ctx := context.Background()
	if err := f.s.DB.InTx(ctx, func(tx *db.Tx) error { return f.s.App.Review.Finished(ctx, tx, ex) }); err != nil {
		t.Fatalf("finished hook: %v", err)
	}
}

func (f *reviewFixture) reload(t *testing.T, id string) *ent.Execution {
	t.Helper()
	ex, err := f.s.DB.Execution.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("execution %s: %v", id, err)
	}
	return ex
}

// delivery is the requester's queue item for an execution.
func (f *reviewFixture) delivery(t *testing.T, execID string) *ent.QueueItem {
	t.Helper()
	it, err := f.s.DB.QueueItem.Query().Where(queueitem.ExecutionID(execID)).Only(context.Background())
	if err != nil {
		t.Fatalf("queue item of %s: %v", execID, err)
	}
	return it
}

// restart starts a second server process on the same database and clock
// (its own review timer); the first must be closed.
func (f *reviewFixture) restart(t *testing.T) *server.App {
	t.Helper()
	app, err := server.New(server.Config{DB: f.s.DB, Clock: f.s.Clock,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	t.Cleanup(app.Close)
	return app
}

func (a *reviewAgent) token(execID string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tokens[execID]
}
