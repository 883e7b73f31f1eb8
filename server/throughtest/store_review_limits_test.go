package throughtest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Input at the boundary": feedback and a denial's reason are notes,
// bounded by the contract alone (100,000 characters): taken at the limit,
// and one more is 400 naming the field, on REST and Connect.
func TestReviewTextsTakeTheContractLimit(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	long := func(n int) string { return strings.Repeat("x", n) }
	lifecycle := func(body map[string]any) *servertest.Response {
		return f.api.Do(http.MethodPost, "/api/marketplace/lifecycle", body)
	}

	confirmed := f.paid(t, f.api)
	servertest.WantErrorContaining(t, lifecycle(map[string]any{"action": "confirm", "executionId": confirmed.ID,
		"feedback": long(100_001)}), http.StatusBadRequest, "feedback")
	if res := lifecycle(map[string]any{"action": "confirm", "executionId": confirmed.ID, "feedback": long(100_000)}); res.Status != http.StatusOK {
		t.Fatalf("feedback at the contract's limit: %d %.300s", res.Status, res.Body)
	}

	denied := f.paid(t, f.api)
	servertest.WantErrorContaining(t, lifecycle(map[string]any{"action": "deny", "executionId": denied.ID,
		"reason": long(100_001)}), http.StatusBadRequest, "reason")
	c := f.client(f.annKey)
	_, err := c.StoreLifecycle(context.Background(), &switchboardv1.StoreLifecycleRequest{Action: "deny",
		ExecutionId: denied.ID, Reason: long(100_001)})
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "reason") {
		t.Fatalf("Connect: reason over the limit: %v", err)
	}
	if _, err := c.StoreLifecycle(context.Background(), &switchboardv1.StoreLifecycleRequest{Action: "deny",
		ExecutionId: denied.ID, Reason: long(100_000)}); err != nil {
		t.Fatalf("Connect: reason at the contract's limit: %v", err)
	}
}
