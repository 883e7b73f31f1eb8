package throughtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent/idempotencyrecord"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// heldAgent is a store agent on loopback that answers only when the test
// releases it, so a first request is deterministically still running.
type heldAgent struct {
	*httptest.Server
	calls   atomic.Int32
	entered chan struct{}
	release chan struct{}
}

func newHeldAgent(t *testing.T) *heldAgent {
	a := &heldAgent{entered: make(chan struct{}, 8), release: make(chan struct{})}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.calls.Add(1)
		a.entered <- struct{}{}
		<-a.release
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"output": "done"})
	}))
	t.Cleanup(a.Server.Close)
	return a
}

// storeFixture is a listing of dev's agent and a requester's key.
func storeFixture(t *testing.T) (s *servertest.Server, a *heldAgent, listing, reqKey, reqID string) {
	s = servertest.New(t, servertest.WithPrivateEndpoints())
	a = newHeldAgent(t)
	dev, req := s.SignUp("dev"), s.SignUp("req")
	res := s.WithKey(dev.NewKey("dev", "store")).Do(http.MethodPost, "/api/marketplace",
		map[string]any{"name": "Held", "endpointUrl": a.URL})
	servertest.WantStatus(t, res, http.StatusCreated)
	return s, a, res.JSON(t)["agent"].(map[string]any)["id"].(string), req.NewKey("req", "store"), req.ID
}

// RULINGS "Idempotency": a retry while the first request still runs is 409
// and makes nothing; once the first answers, a retry replays it. Agents
// retry, and a retried execute must not run the agent twice. Over REST.
func TestRetryWhileRunningOverREST(t *testing.T) {
	t.Parallel()
	s, a, listing, key, reqID := storeFixture(t)
	api := s.WithKey(key)
	path, body := "/api/marketplace/"+listing+"/execute", `{"input":"go"}`
	first := make(chan *servertest.Response, 1)
	go func() { first <- keyed(api, http.MethodPost, path, "exec-1", body) }()
	<-a.entered
	servertest.WantErrorContaining(t, keyed(api, http.MethodPost, path, "exec-1", body), http.StatusConflict, "still running")
	close(a.release)
	res := <-first
	servertest.WantStatus(t, res, http.StatusOK)
	again := keyed(api, http.MethodPost, path, "exec-1", body)
	if again.Status != res.Status || again.Header.Get(replayedHeader) != "true" || string(again.Body) != string(res.Body) {
		t.Fatalf("retry after the answer: %d %v %s", again.Status, again.Header, again.Body)
	}
	if n := executions(t, s, reqID); n != 1 || a.calls.Load() != 1 {
		t.Fatalf("%d executions, %d agent calls; want 1 and 1", n, a.calls.Load())
	}
}

// The same over the Connect protocol.
func TestRetryWhileRunningOverConnect(t *testing.T) {
	t.Parallel()
	s, a, listing, key, reqID := storeFixture(t)
	c := switchboardv1connect.NewStoreExecutionServiceClient(s.HTTP, s.URL,
		connect.WithInterceptors(servertest.BearerInterceptor(key)))
	call := func() (*switchboardv1.ExecuteStoreAgentResponse, connect.CallInfo, error) {
		ctx, info := withKey(t.Context(), "exec-1")
		res, err := c.ExecuteStoreAgent(ctx, &switchboardv1.ExecuteStoreAgentRequest{Id: listing, Input: "go"})
		return res, info, err
	}
	type result struct {
		res *switchboardv1.ExecuteStoreAgentResponse
		err error
	}
	first := make(chan result, 1)
	go func() { res, _, err := call(); first <- result{res, err} }()
	<-a.entered
	_, _, err := call()
	servertest.WantCode(t, err, connect.CodeAlreadyExists)
	close(a.release)
	r := <-first
	if r.err != nil || r.res.GetOutput() != "done" {
		t.Fatalf("first: %v %v", r.res, r.err)
	}
	again, info, err := call()
	if err != nil || info.ResponseHeader().Get(replayedHeader) != "true" || !proto.Equal(again, r.res) {
		t.Fatalf("retry after the answer: %v %v %v", again, info.ResponseHeader(), err)
	}
	if n := executions(t, s, reqID); n != 1 || a.calls.Load() != 1 {
		t.Fatalf("%d executions, %d agent calls; want 1 and 1", n, a.calls.Load())
	}
}

// The claim is marked applied in the transaction of the change, so a record
// left running by a crash tells whether the change committed: one that did
// not is taken over by a retry once the lease (5 minutes) has passed; one
// that did is never run again (docs/decisions.md, "Idempotency").
func TestClaimsLeftByACrash(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	acct := s.SignUp("ann")
	key := acct.NewKey("agent")
	api := s.WithKey(key)
	c := creates[0]
	res := keyed(api, http.MethodPost, c.path, "done", c.body("1"))
	servertest.WantStatus(t, res, http.StatusCreated)
	rec := s.DB.IdempotencyRecord.Query().Where(idempotencyrecord.KeyEQ("done")).OnlyX(t.Context())
	if !rec.Applied || rec.State != idempotencyrecord.StateDone || rec.Status != http.StatusCreated {
		t.Fatalf("record after a create: applied %v, state %s, status %d", rec.Applied, rec.State, rec.Status)
	}
	// Two claims as a crash leaves them: running, one applied, one not.
	fp := rec.Fingerprint
	for _, applied := range []bool{false, true} {
		name := map[bool]string{false: "lost", true: "applied"}[applied]
		s.DB.IdempotencyRecord.Create().SetScope(rec.Scope).SetKey(name).SetProcedure(rec.Procedure).
			SetFingerprint(fp).SetToken("dead-" + name).SetApplied(applied).
			SetClaimedAt(s.Clock.Now()).SetExpiresAt(s.Clock.Now().Add(24 * time.Hour)).SaveX(context.Background())
	}
	servertest.WantErrorContaining(t, keyed(api, http.MethodPost, c.path, "lost", c.body("1")), http.StatusConflict, "still running")
	s.Clock.Advance(5 * time.Minute)
	servertest.WantStatus(t, keyed(api, http.MethodPost, c.path, "lost", c.body("1")), http.StatusCreated)
	servertest.WantErrorContaining(t, keyed(api, http.MethodPost, c.path, "applied", c.body("1")), http.StatusConflict, "took effect")
	if n := c.count(t, s, acct.ID); n != 2 {
		t.Fatalf("%d items, want 2 (the first create and the lost claim's run)", n)
	}
}
