package throughtest

import (
	"context"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Document 2 "Agent store": rate an execution, 1 to 5 stars. Only the
// requester's own completed execution of that agent; rating again replaces
// the rating; the agent's average and count are recalculated from the rows.
func TestRateExecutions(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	a := f.create(t, f.bobAPI, map[string]any{"name": "Rated"})
	other := f.create(t, f.bobAPI, map[string]any{"name": "Other"})
	id := a["id"].(string)
	carol := f.s.SignUp("carol")
	mine := f.execution(t, f.ann.ID, id, nil)
	carols := f.execution(t, carol.ID, id, nil)
	running := f.execution(t, f.ann.ID, id, func(c *ent.ExecutionCreate) { c.SetStatus(execution.StatusRunning) })
	ofOther := f.execution(t, f.ann.ID, other["id"].(string), nil)
	own := f.execution(t, f.bob.ID, id, func(c *ent.ExecutionCreate) { c.SetIsOwnAgent(true) })

	path := "/api/marketplace/" + id + "/rate"
	res := f.api.Do(http.MethodPost, path, map[string]any{"executionId": mine.ID, "rating": 4, "feedback": "Useful"})
	if res.Status != http.StatusOK {
		t.Fatalf("rate: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	ex, ag := body["execution"].(map[string]any), body["agent"].(map[string]any)
	if ex["executionId"] != mine.ID || ex["rating"] != float64(4) || ex["feedback"] != "Useful" || ex["revenue"] != nil {
		t.Fatalf("execution = %v", ex)
	}
	if ag["ratingAvg"] != float64(4) || ag["ratingCount"] != float64(1) {
		t.Fatalf("agent = %v", ag)
	}
	carolAPI := f.s.WithKey(carol.NewKey("carol", "store"))
	if res := carolAPI.Do(http.MethodPost, path, map[string]any{"executionId": carols.ID, "rating": 1}); res.Status != http.StatusOK {
		t.Fatalf("carol rates: %d %s", res.Status, res.Body)
	}
	// Rating again replaces; the feedback stays unless sent.
	c := f.client("connect+json", f.annKey)
	out, err := c.RateStoreExecution(context.Background(), &switchboardv1.RateStoreExecutionRequest{Id: id, ExecutionId: mine.ID, Rating: 5})
	if err != nil || out.GetAgent().GetRatingAvg() != 3 || out.GetAgent().GetRatingCount() != 2 || out.GetExecution().GetFeedback() != "Useful" {
		t.Fatalf("re-rate: %v %v", out, err)
	}

	for _, tc := range []struct {
		name   string
		api    string
		path   string
		execID string
		status int
	}{
		{"another requester's execution", "ann", path, carols.ID, http.StatusNotFound},
		{"an execution of another agent", "ann", path, ofOther.ID, http.StatusNotFound},
		{"unknown execution", "ann", path, "cnope", http.StatusNotFound},
		{"unknown agent", "ann", "/api/marketplace/cnope/rate", mine.ID, http.StatusNotFound},
		{"not completed", "ann", path, running.ID, http.StatusBadRequest},
		{"own agent", "bob", path, own.ID, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := f.api
			if tc.api == "bob" {
				api = f.bobAPI
			}
			servertest.WantError(t, api.Do(http.MethodPost, tc.path, map[string]any{"executionId": tc.execID, "rating": 2}), tc.status)
		})
	}
	_, err = c.RateStoreExecution(context.Background(), &switchboardv1.RateStoreExecutionRequest{Id: id, ExecutionId: running.ID, Rating: 2})
	servertest.WantCode(t, err, connect.CodeFailedPrecondition)
	if ag := f.get(t, f.api, id)["agent"].(map[string]any); ag["ratingAvg"] != float64(3) || ag["ratingCount"] != float64(2) {
		t.Fatalf("refused ratings changed the average: %v", ag)
	}
	// The detail lists the caller's own executions of the agent only, newest first.
	execs := f.get(t, f.api, id)["executions"].([]any)
	if len(execs) != 2 {
		t.Fatalf("ann's executions = %v", execs)
	}
	stats := f.get(t, f.api, id)["stats"].(map[string]any)
	if stats["executionCount"] != float64(4) || stats["completedCount"] != float64(3) {
		t.Fatalf("stats = %v", stats)
	}
}

// Stats count executions by status, and average the response time of
// completed ones.
func TestDetailStats(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	a := f.create(t, f.bobAPI, map[string]any{"name": "Busy"})
	id := a["id"].(string)
	for _, ms := range []int{100, 201} {
		f.execution(t, f.ann.ID, id, func(c *ent.ExecutionCreate) { c.SetResponseTimeMs(ms) })
	}
	f.execution(t, f.ann.ID, id, func(c *ent.ExecutionCreate) { c.SetStatus(execution.StatusFailed).SetResponseTimeMs(9000) })
	f.execution(t, f.ann.ID, id, func(c *ent.ExecutionCreate) { c.SetStatus(execution.StatusTimeout) })
	f.execution(t, f.ann.ID, id, func(c *ent.ExecutionCreate) {
		c.SetStatus(execution.StatusQueued).SetQueuePosition(1).SetQueuedAt(f.s.Clock.Now())
	})
	stats := f.get(t, f.api, id)["stats"].(map[string]any)
	want := map[string]any{"executionCount": float64(5), "completedCount": float64(2), "failedCount": float64(1),
		"timeoutCount": float64(1), "queuedCount": float64(1), "avgResponseTimeMs": float64(151)}
	if !equalJSON(stats, want) {
		t.Fatalf("stats = %v, want %v", stats, want)
	}
	execs := f.get(t, f.api, id)["executions"].([]any)
	if len(execs) != 5 {
		t.Fatalf("executions = %v", execs)
	}
	q := execs[0].(map[string]any)
	if q["status"] != "queued" || q["queuePosition"] != float64(1) || q["paymentHoldStatus"] != "none" || q["taskOrigin"] != "marketplace" {
		t.Fatalf("newest execution = %v", q)
	}
	if other := f.get(t, f.bobAPI, id)["executions"].([]any); len(other) != 0 {
		t.Fatalf("the owner sees requesters' executions: %v", other)
	}
}

// A listing with work in flight cannot be deleted (decision): the lock, a
// queued or running execution, or a payment held would be lost. Finished
// executions go with the listing.
func TestDeleteRefusedWhileBusy(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		busy func(agentID string) *ent.Execution
	}{
		{"lock held", func(agentID string) *ent.Execution {
			e := f.execution(t, f.ann.ID, agentID, func(c *ent.ExecutionCreate) { c.SetStatus(execution.StatusRunning) })
			if _, err := f.s.DB.StoreAgent.UpdateOneID(agentID).SetCurrentExecutionID(e.ID).Save(ctx); err != nil {
				t.Fatal(err)
			}
			return e
		}},
		{"queued", func(agentID string) *ent.Execution {
			return f.execution(t, f.ann.ID, agentID, func(c *ent.ExecutionCreate) { c.SetStatus(execution.StatusQueued) })
		}},
		{"payment held", func(agentID string) *ent.Execution {
			return f.execution(t, f.ann.ID, agentID, func(c *ent.ExecutionCreate) {
				c.SetPaymentHoldStatus(execution.PaymentHoldStatusHeld).SetGross(200)
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := f.create(t, f.bobAPI, map[string]any{"name": "Busy " + tc.name})
			id := a["id"].(string)
			f.execution(t, f.ann.ID, id, nil) // a finished one does not block
			e := tc.busy(id)
			servertest.WantError(t, f.bobAPI.Do(http.MethodDelete, "/api/marketplace/"+id, nil), http.StatusConflict)
			if f.get(t, f.bobAPI, id)["agent"] == nil {
				t.Fatal("the refused delete removed the listing")
			}
			// Once the work is done, the delete goes through with the history.
			if _, err := f.s.DB.StoreAgent.UpdateOneID(id).ClearCurrentExecutionID().Save(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := f.s.DB.Execution.UpdateOneID(e.ID).SetStatus(execution.StatusCompleted).
				SetPaymentHoldStatus(execution.PaymentHoldStatusCaptured).Save(ctx); err != nil {
				t.Fatal(err)
			}
			if res := f.bobAPI.Do(http.MethodDelete, "/api/marketplace/"+id, nil); res.Status != http.StatusOK {
				t.Fatalf("delete: %d %s", res.Status, res.Body)
			}
			if n, _ := f.s.DB.Execution.Query().Where(execution.AgentID(id)).Count(ctx); n != 0 {
				t.Fatalf("%d executions left", n)
			}
		})
	}
}
