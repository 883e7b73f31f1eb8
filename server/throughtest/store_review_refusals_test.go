package throughtest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent/execution"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// reviewSnapshot is what a refused lifecycle call must leave as it was.
type reviewSnapshot struct {
	review, hold                 string
	reputations, signals, queued int
	ratingCount                  int
}

func (f *reviewFixture) snapshot(t *testing.T, id string) reviewSnapshot {
	t.Helper()
	ctx := context.Background()
	ex := f.reload(t, id)
	s := reviewSnapshot{hold: string(ex.PaymentHoldStatus)}
	if ex.ReviewStatus != nil {
		s.review = string(*ex.ReviewStatus)
	}
	s.reputations = f.s.DB.UserReputation.Query().CountX(ctx)
	s.signals = f.s.DB.AgentQualitySignal.Query().CountX(ctx)
	s.queued = f.s.DB.Execution.Query().Where(execution.StatusEQ(execution.StatusQueued)).CountX(ctx)
	s.ratingCount = f.s.DB.StoreAgent.GetX(ctx, f.agentID).RatingCount
	return s
}

// RULINGS "Errors" and the house rules: bad input is a documented 4xx and
// writes nothing; another account's execution is 404 (RULINGS "Accounts,
// keys, sessions"); confirm and deny need a key with the store scope or a
// session (with the CSRF rule), while sweep needs nothing.
func TestLifecycleRefusalsWriteNothing(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	ex := f.paid(t, f.api)
	notInReview := f.execute(t, f.api, "please fail") // failed: never in review
	before := f.snapshot(t, ex.ID)
	queueKey := f.s.WithKey(f.ann.NewKey("queue-only", "queue"))
	// carol's completed run, for the isolation cases.
	carols := f.paid(t, f.carolAPI)
	noOrigin := f.ann.Session
	long := strings.Repeat("x", 100_001) // one over the contract's limit
	for _, tc := range []struct {
		name   string
		caller string
		body   map[string]any
		status int
	}{
		{"no action", "ann", map[string]any{"executionId": ex.ID}, 400},
		{"unknown action", "ann", map[string]any{"action": "approve", "executionId": ex.ID}, 400},
		{"confirm without executionId", "ann", map[string]any{"action": "confirm"}, 400},
		{"rating 0", "ann", map[string]any{"action": "confirm", "executionId": ex.ID, "rating": 0}, 400},
		{"rating 6", "ann", map[string]any{"action": "confirm", "executionId": ex.ID, "rating": 6}, 400},
		{"rating not a number", "ann", map[string]any{"action": "confirm", "executionId": ex.ID, "rating": "five"}, 400},
		{"feedback too long", "ann", map[string]any{"action": "confirm", "executionId": ex.ID, "feedback": long}, 400},
		{"quality out of range", "ann", map[string]any{"action": "confirm", "executionId": ex.ID, "quality": map[string]any{"coherence": 9}}, 400},
		{"confirm with a reason", "ann", map[string]any{"action": "confirm", "executionId": ex.ID, "reason": "x"}, 400},
		{"deny without reason", "ann", map[string]any{"action": "deny", "executionId": ex.ID}, 400},
		{"deny with blank reason", "ann", map[string]any{"action": "deny", "executionId": ex.ID, "reason": "  "}, 400},
		{"deny reason too long", "ann", map[string]any{"action": "deny", "executionId": ex.ID, "reason": long}, 400},
		{"deny unknown category", "ann", map[string]any{"action": "deny", "executionId": ex.ID, "reason": "x", "category": "rude"}, 400},
		{"deny with a rating", "ann", map[string]any{"action": "deny", "executionId": ex.ID, "reason": "x", "rating": 1}, 400},
		{"sweep with an executionId", "anon", map[string]any{"action": "sweep", "executionId": ex.ID}, 400},
		{"unknown field", "ann", map[string]any{"action": "confirm", "executionId": ex.ID, "stars": 5}, 400},
		{"not in review", "ann", map[string]any{"action": "confirm", "executionId": notInReview.ID}, 400},
		{"unknown execution", "ann", map[string]any{"action": "confirm", "executionId": "cnope"}, 404},
		{"another account's execution", "bob", map[string]any{"action": "confirm", "executionId": ex.ID}, 404},
		{"another requester's execution", "ann", map[string]any{"action": "confirm", "executionId": carols.ID}, 404},
		{"another account's execution (deny)", "bob", map[string]any{"action": "deny", "executionId": ex.ID, "reason": "x"}, 404},
		{"no credentials", "anon", map[string]any{"action": "confirm", "executionId": ex.ID}, 401},
		{"key without the store scope", "queue", map[string]any{"action": "confirm", "executionId": ex.ID}, 403},
		{"unknown key", "badkey", map[string]any{"action": "deny", "executionId": ex.ID, "reason": "x"}, 401},
		{"session without Origin", "noorigin", map[string]any{"action": "confirm", "executionId": ex.ID}, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := func() *servertest.Response {
				switch tc.caller {
				case "bob":
					return f.bobAPI.Do(http.MethodPost, "/api/marketplace/lifecycle", tc.body)
				case "anon":
					return f.s.Anonymous().Do(http.MethodPost, "/api/marketplace/lifecycle", tc.body)
				case "queue":
					return queueKey.Do(http.MethodPost, "/api/marketplace/lifecycle", tc.body)
				case "badkey":
					return f.s.WithKey("sbk_nope").Do(http.MethodPost, "/api/marketplace/lifecycle", tc.body)
				case "noorigin":
					return noOrigin.Do(http.MethodPost, "/api/marketplace/lifecycle", tc.body, "Origin", "")
				}
				return f.api.Do(http.MethodPost, "/api/marketplace/lifecycle", tc.body)
			}()
			servertest.WantError(t, res, tc.status)
			if after := f.snapshot(t, ex.ID); after != before {
				t.Fatalf("refusal wrote: %+v → %+v", before, after)
			}
		})
	}
	// Connect: the matching codes and nothing written.
	c := f.client(f.annKey)
	for _, tc := range []struct {
		req  *switchboardv1.StoreLifecycleRequest
		code connect.Code
	}{
		{&switchboardv1.StoreLifecycleRequest{Action: "confirm", ExecutionId: ex.ID, Rating: ptr(int32(7))}, connect.CodeInvalidArgument},
		{&switchboardv1.StoreLifecycleRequest{Action: "confirm", ExecutionId: notInReview.ID}, connect.CodeFailedPrecondition},
		{&switchboardv1.StoreLifecycleRequest{Action: "deny", ExecutionId: "cnope", Reason: "x"}, connect.CodeNotFound},
	} {
		if _, err := c.StoreLifecycle(context.Background(), tc.req); connect.CodeOf(err) != tc.code {
			t.Fatalf("%v: %v, want %s", tc.req, err, tc.code)
		}
	}
	if _, err := f.client("").StoreLifecycle(context.Background(), &switchboardv1.StoreLifecycleRequest{Action: "confirm", ExecutionId: ex.ID}); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("connect without credentials: %v", err)
	}
	if after := f.snapshot(t, ex.ID); after != before {
		t.Fatalf("refusal wrote: %+v → %+v", before, after)
	}
}

func ptr[T any](v T) *T { return &v }
