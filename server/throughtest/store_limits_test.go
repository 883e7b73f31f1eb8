package throughtest

import (
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Input at the boundary": a rating's feedback is a note, bounded by
// the contract alone (100,000 characters, not the handler's old 2,000):
// taken at the limit, and one more is 400 naming the field, on REST and
// Connect.
func TestRatingFeedbackTakesTheContractLimit(t *testing.T) {
	f := newMarketFixture(t)
	t.Parallel()
	id := f.create(t, f.bobAPI, map[string]any{"name": "Rated"})["id"].(string)
	path := "/api/marketplace/" + id + "/rate"
	long := func(n int) string { return strings.Repeat("f", n) }

	rest := f.execution(t, f.ann.ID, id, nil)
	servertest.WantErrorContaining(t, f.api.Do(http.MethodPost, path,
		map[string]any{"executionId": rest.ID, "rating": 4, "feedback": long(100_001)}), http.StatusBadRequest, "feedback")
	if res := f.api.Do(http.MethodPost, path, map[string]any{"executionId": rest.ID, "rating": 4, "feedback": long(100_000)}); res.Status != http.StatusOK {
		t.Fatalf("feedback at the contract's limit: %d %.300s", res.Status, res.Body)
	}

	viaConnect := f.execution(t, f.ann.ID, id, nil)
	c := f.client("connect+json", f.annKey)
	over, at := long(100_001), long(100_000)
	_, err := c.RateStoreExecution(t.Context(), &switchboardv1.RateStoreExecutionRequest{Id: id, ExecutionId: viaConnect.ID, Rating: 4, Feedback: &over})
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "feedback") {
		t.Fatalf("Connect: feedback over the limit: %v", err)
	}
	if _, err := c.RateStoreExecution(t.Context(), &switchboardv1.RateStoreExecutionRequest{Id: id, ExecutionId: viaConnect.ID, Rating: 4, Feedback: &at}); err != nil {
		t.Fatalf("Connect: feedback at the contract's limit: %v", err)
	}
}
