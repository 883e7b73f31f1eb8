package review_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// publicURL is a public address literal the address rule passes; the tests
// that finish executions by hand never call it.
const publicURL = "https://93.184.215.14/agent"

// fixture: bob lists a paid agent, ann (the requester) and carol use it.
type fixture struct {
	s                *servertest.Server
	ann, bob, carol  *servertest.Account
	annKey, bobKey   string
	api, bobAPI      *servertest.Caller
	agentID, agentOf string
}

func newFixture(t *testing.T, opts ...servertest.Option) *fixture {
	t.Helper()
	s := servertest.New(t, opts...)
	f := &fixture{s: s, ann: s.SignUp("ann"), bob: s.SignUp("bob"), carol: s.SignUp("carol")}
	f.annKey, f.bobKey = f.ann.NewKey("ann-agent", "store"), f.bob.NewKey("bob-agent", "store")
	f.api, f.bobAPI = s.WithKey(f.annKey), s.WithKey(f.bobKey)
	res := f.bobAPI.Do(http.MethodPost, "/api/marketplace", map[string]any{
		"name": "Research Scout", "endpointUrl": publicURL, "pricingModel": "per_task", "pricePerTask": 2.5})
	if res.Status != http.StatusCreated {
		t.Fatalf("create listing: %d %s", res.Status, res.Body)
	}
	f.agentID = res.JSON(t)["agent"].(map[string]any)["id"].(string)
	return f
}

func (f *fixture) client(key string) switchboardv1connect.StoreReviewServiceClient {
	opts := append(servertest.Protocols()["connect+json"], connect.WithInterceptors(servertest.BearerInterceptor(key)))
	return switchboardv1connect.NewStoreReviewServiceClient(f.s.Client("connect+json"), f.s.URL, opts...)
}

// paid stores a completed, paid execution of bob's agent by userID with its
// payment held, as the engine leaves it before its finishing hook.
func (f *fixture) paid(t *testing.T, userID string) *ent.Execution {
	t.Helper()
	now := f.s.Clock.Now()
	ex, err := f.s.DB.Execution.Create().SetUserID(userID).SetAgentID(f.agentID).SetStatus(execution.StatusCompleted).
		SetInput("Scout the battery market\nThree sources please").SetOutput("Three sources: A, B, C").
		SetTaskOrigin(execution.TaskOriginMarketplace).SetPaymentHoldStatus(execution.PaymentHoldStatusHeld).
		SetCurrency("USD").SetGross(2.5).SetDeveloperPayout(2.125).SetPlatformFee(0.375).SetFeePercent(15).
		SetStartedAt(now).SetFinishedAt(now).SetCreatedAt(now).SetUpdatedAt(now).Save(context.Background())
	if err != nil {
		t.Fatalf("create execution: %v", err)
	}
	return ex
}

// finish runs the engine's Finished hook in a transaction of its own, as the
// engine's finishing transaction does.
func (f *fixture) finish(t *testing.T, ex *ent.Execution) {
	t.Helper()
	ctx := context.Background()
	if err := f.s.DB.InTx(ctx, func(tx *ent.Tx) error { return f.s.App.Review.Finished(ctx, tx, ex) }); err != nil {
		t.Fatalf("finished hook: %v", err)
	}
}

func (f *fixture) reload(t *testing.T, id string) *ent.Execution {
	t.Helper()
	ex, err := f.s.DB.Execution.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("execution %s: %v", id, err)
	}
	return ex
}

// delivery is the requester's queue item for an execution.
func (f *fixture) delivery(t *testing.T, execID string) *ent.QueueItem {
	t.Helper()
	it, err := f.s.DB.QueueItem.Query().Where(queueitem.ExecutionID(execID)).Only(context.Background())
	if err != nil {
		t.Fatalf("queue item of %s: %v", execID, err)
	}
	return it
}

func wantError(t *testing.T, res *servertest.Response, status int) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status = %d, want %d: %s", res.Status, status, res.Body)
	}
	var b map[string]any
	if err := json.Unmarshal(res.Body, &b); err != nil || b["success"] != false || b["error"] == "" {
		t.Fatalf("error body %s", res.Body)
	}
}

func waitFor(t *testing.T, what string, step func(), ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		if step != nil {
			step()
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// restart starts a second server process on the same database and clock
// (its own review timer); the first must be closed.
func (f *fixture) restart(t *testing.T) *server.App {
	t.Helper()
	app, err := server.New(server.Config{DB: f.s.DB, Now: f.s.Clock.Now, Clock: f.s.Clock,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	t.Cleanup(app.Close)
	return app
}
