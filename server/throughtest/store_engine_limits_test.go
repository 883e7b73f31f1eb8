package throughtest

import (
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Input at the boundary": the contract's limits are the only ones.
// Each layer-2 input at its contract limit is taken and stored as sent, on
// REST and Connect; one character more is 400 naming the field (the
// contract's refusal, not a tighter one of the handler's).
func TestExecuteTakesInputsAtTheContractLimit(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) { writeJSON(w, 200, map[string]any{"output": "ok"}) })
	id := f.listing(t, a.URL, nil)
	email := strings.Repeat("e", 254-len("@example.com")) + "@example.com"
	limits := map[string]int{"taskType": 1000, "tone": 1000, "outputType": 1000, "deadline": 1000,
		"additionalContext": 100_000, "requesterName": 500}
	body := map[string]any{"input": "hello", "requesterEmail": email}
	for field, n := range limits {
		body[field] = strings.Repeat("x", n)
	}
	status, out := f.execute(t, f.req, id, body)
	if status != http.StatusOK || out["status"] != "completed" {
		t.Fatalf("inputs at the contract's limits: %d %v", status, out)
	}
	row := f.row(t, out["executionId"].(string))
	if row.TaskInputs == nil || len(row.TaskInputs.TaskType) != 1000 || len(row.TaskInputs.AdditionalContext) != 100_000 ||
		row.RequesterEmail == nil || *row.RequesterEmail != email {
		t.Fatalf("stored inputs: %+v", row)
	}

	c := switchboardv1connect.NewStoreExecutionServiceClient(f.s.Client("connect"), f.s.URL,
		connect.WithInterceptors(servertest.BearerInterceptor(f.reqKey)))
	long := func(n int) *string { v := strings.Repeat("x", n); return &v }
	res, err := c.ExecuteStoreAgent(t.Context(), &switchboardv1.ExecuteStoreAgentRequest{Id: id, Input: "hello",
		TaskType: long(1000), AdditionalContext: long(100_000), RequesterEmail: &email})
	if err != nil || res.GetStatus() != "completed" {
		t.Fatalf("Connect at the limits: %v %v", res, err)
	}

	for field, n := range limits {
		over := map[string]any{"input": "hello", field: strings.Repeat("x", n+1)}
		servertest.WantErrorContaining(t, f.req.Do(http.MethodPost, "/api/marketplace/"+id+"/execute", over), http.StatusBadRequest, field)
	}
	servertest.WantErrorContaining(t, f.req.Do(http.MethodPost, "/api/marketplace/"+id+"/execute",
		map[string]any{"input": "hello", "requesterEmail": "e" + email}), http.StatusBadRequest, "requesterEmail")
}

// A failed delivery's error is a note, bounded by the contract alone
// (store_execution.proto, 100,000 characters, not the engine's old 2,000):
// taken at the limit (the stored failure reason is the engine's shortened
// one, as for any failure), and one more is 400 naming the field, on REST
// and Connect.
func TestCallbackErrorTakesTheContractLimit(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	a := newAsyncAgent(t)
	id := f.listing(t, a.URL, nil)
	accepted := func() string {
		status, out := f.execute(t, f.req, id, map[string]any{"input": "later"})
		if status != 200 || out["status"] != "running" {
			t.Fatalf("accepted: %d %v", status, out)
		}
		return out["executionId"].(string)
	}
	fail := func(exID, reason string) *servertest.Response {
		return f.s.Anonymous().Do(http.MethodPost, "/api/marketplace/callback",
			map[string]any{"executionId": exID, "callbackToken": a.token(exID), "status": "failed", "error": reason})
	}

	rest := accepted()
	servertest.WantErrorContaining(t, fail(rest, strings.Repeat("e", 100_001)), http.StatusBadRequest, "error")
	if res := fail(rest, strings.Repeat("e", 100_000)); res.Status != http.StatusOK {
		t.Fatalf("error at the contract's limit: %d %.300s", res.Status, res.Body)
	}
	if r := f.row(t, rest); r.Status != "failed" || !strings.HasPrefix(ptrOr(r.FailureReason), "eee") {
		t.Fatalf("failed row: status %s, reason %.20q", r.Status, ptrOr(r.FailureReason))
	}

	viaConnect := accepted()
	c := switchboardv1connect.NewStoreExecutionServiceClient(f.s.Client("connect"), f.s.URL)
	req := func(n int) *switchboardv1.DeliverStoreCallbackRequest {
		reason := strings.Repeat("e", n)
		return &switchboardv1.DeliverStoreCallbackRequest{ExecutionId: viaConnect, CallbackToken: a.token(viaConnect),
			Status: proto.String("failed"), Error: &reason}
	}
	if _, err := c.DeliverStoreCallback(t.Context(), req(100_001)); connect.CodeOf(err) != connect.CodeInvalidArgument ||
		!strings.Contains(err.Error(), "error") {
		t.Fatalf("Connect: error over the limit: %v", err)
	}
	if _, err := c.DeliverStoreCallback(t.Context(), req(100_000)); err != nil {
		t.Fatalf("Connect: error at the contract's limit: %v", err)
	}
}

func ptrOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
