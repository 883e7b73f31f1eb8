package throughtest

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The execute RPC over every Connect-family protocol with the generated
// client: the same answer as REST, and the same refusals (RULINGS "Errors").
func TestExecuteOverConnect(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithPrivateEndpoints())
	dev, req := s.SignUp("dev"), s.SignUp("req")
	devKey, reqKey := dev.NewKey("dev", "store"), req.NewKey("req", "store")
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) {
		writeJSON(w, 200, map[string]any{"output": "hi " + c.Body["message"].(string)})
	})
	res := s.WithKey(devKey).Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Greeter", "endpointUrl": a.URL})
	if res.Status != 201 {
		t.Fatalf("listing: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["agent"].(map[string]any)["id"].(string)
	for name, opts := range servertest.Protocols() {
		opts = append(opts, connect.WithInterceptors(servertest.BearerInterceptor(reqKey)))
		c := switchboardv1connect.NewStoreExecutionServiceClient(s.Client(name), s.URL, opts...)
		out, err := c.ExecuteStoreAgent(t.Context(), &switchboardv1.ExecuteStoreAgentRequest{Id: id, Input: name})
		if err != nil || out.GetStatus() != "completed" || out.GetOutput() != "hi "+name || out.GetResponseTimeMs() < 0 {
			t.Errorf("%s: %v %v", name, out, err)
		}
		_, err = c.ExecuteStoreAgent(t.Context(), &switchboardv1.ExecuteStoreAgentRequest{Id: id})
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument {
			t.Errorf("%s: no input: %v", name, err)
		}
		_, err = c.GetStoreCallback(t.Context(), &switchboardv1.GetStoreCallbackRequest{ExecutionId: "nope"})
		if !errors.As(err, &ce) || ce.Code() != connect.CodeNotFound {
			t.Errorf("%s: receipt of an unknown execution: %v", name, err)
		}
	}
}

// Document 2, "Limits": store execute is limited per client IP (20 a minute;
// 2 here), refused with 429 before anything runs.
func TestExecuteRateLimited(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t, servertest.WithLimits(gate.Limits{PerKey: 1000, Auth: 1000, Heavy: 2, Federation: 1000}),
		withExecutions(server.ExecutionConfig{CallTimeout: 2 * time.Second}))
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) { writeJSON(w, 200, map[string]any{"output": "ok"}) })
	id := f.listing(t, a.URL, nil)
	for i := range 2 {
		if status, out := f.execute(t, f.req, id, map[string]any{"input": "x"}); status != 200 {
			t.Fatalf("execute %d: %d %v", i+1, status, out)
		}
	}
	if status, out := f.execute(t, f.req, id, map[string]any{"input": "x"}); status != http.StatusTooManyRequests {
		t.Errorf("third execute in a minute: %d %v", status, out)
	}
	if n := len(a.received()); n != 2 {
		t.Errorf("the agent was called %d times", n)
	}
}
