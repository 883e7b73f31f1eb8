package throughtest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The engine's hooks for the review lifecycle ("Execution status and
// review"): Finished runs inside the finishing transaction (here it marks
// completed marketplace runs pending_review, as the review work does), and
// a deny releases the hold and Requeue puts a new execution at the back,
// which Kick dispatches once the lock is free.
func TestFinishedHookAndRequeue(t *testing.T) {
	t.Parallel()
	finished := func(ctx context.Context, tx *db.Tx, ex *ent.Execution) error {
		if ex.Status != execution.StatusCompleted || ex.IsOwnAgent {
			return nil
		}
		return tx.Execution.UpdateOneID(ex.ID).SetReviewStatus(execution.ReviewStatusPendingReview).Exec(ctx)
	}
	f := newEngineFixture(t, withExecutions(server.ExecutionConfig{CallTimeout: 2 * time.Second, Finished: finished}))
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) {
		writeJSON(w, 200, map[string]any{"output": "v" + c.Body["message"].(string)})
	})
	id := f.listing(t, a.URL, map[string]any{"pricingModel": "per_task", "pricePerTask": 4})
	_, out := f.execute(t, f.req, id, map[string]any{"input": "1"})
	exID := out["executionId"].(string)
	denied := f.row(t, exID)
	if denied.ReviewStatus == nil || *denied.ReviewStatus != "pending_review" || denied.PaymentHoldStatus != "held" {
		t.Fatalf("after Finished: %+v", denied)
	}
	eng := f.s.App.Engine
	var again *ent.Execution
	err := f.s.DB.InTx(t.Context(), func(tx *db.Tx) error {
		ex, err := tx.Execution.UpdateOneID(exID).SetReviewStatus(execution.ReviewStatusDenied).Save(t.Context())
		if err != nil {
			return err
		}
		if ex, err = eng.Release(t.Context(), tx, ex); err != nil {
			return err
		}
		again, err = eng.Requeue(t.Context(), tx, ex)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if again.Status != "queued" || *again.QueuePosition != 1 || again.Input != "1" || again.UserID != f.reqID || again.ID == exID {
		t.Fatalf("requeued %+v", again)
	}
	if f.row(t, exID).PaymentHoldStatus != "released" {
		t.Errorf("deny did not release the hold")
	}
	if err := eng.Kick(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	servertest.WaitFor(t, "the requeued run", func() bool { return f.row(t, again.ID).Status == "completed" })
	if r := f.row(t, again.ID); r.PaymentHoldStatus != "held" || *r.Output != "v1" {
		t.Errorf("requeued run %+v", r)
	}
}

// RULINGS (durable timers): an execution that took the lock but was never
// sent (the process stopped between the two) is sent by the next start.
func TestStartSendsWhatWasNeverSent(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) { writeJSON(w, 200, map[string]any{"output": "sent"}) })
	id := f.listing(t, a.URL, nil)
	f.s.App.Close()
	// What a promotion leaves behind when the process stops before sending.
	now := time.Now().UTC()
	ex, err := f.s.DB.Execution.Create().SetUserID(f.reqID).SetAgentID(id).SetInput("orphan").
		SetStatus(execution.StatusRunning).SetStartedAt(now).Save(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.DB.StoreAgent.UpdateOneID(id).SetCurrentExecutionID(ex.ID).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	servertest.New(t, servertest.WithPrivateEndpoints(), func(c *server.Config) { c.DB = f.s.DB })
	servertest.WaitFor(t, "the orphan to run", func() bool { return f.row(t, ex.ID).Status == "completed" })
	if len(a.received()) != 1 {
		t.Errorf("agent calls %d", len(a.received()))
	}
}
