package throughtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "The assistant" (an approved item for an installed store agent
// runs through the store's execution contract when it moves to
// in_progress, and the execution's output is reported as the item's
// result): the item the assistant queued for dora's agent ends done_today
// with the agent's output, the same item (no second one), linked to the
// execution; an agent that fails blocks its item with the reason.
func TestApprovedItemRunsItsAgent(t *testing.T) {
	t.Parallel()
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := make([]byte, 4096)
		n, _ := r.Body.Read(body)
		if strings.Contains(string(body[:n]), "impossible") {
			http.Error(w, "cannot", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"output":"Three competitors found: A, B, C."}`))
	}))
	t.Cleanup(agent.Close)
	srv := servertest.New(t, servertest.WithPrivateEndpoints())
	ann, dora := srv.SignUp("ann"), srv.SignUp("dora")
	res := dora.Session.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Scout", "endpointUrl": agent.URL,
		"pricingModel": "free", "taskTypes": []string{"research"}})
	servertest.WantStatus(t, res, http.StatusCreated)
	id := res.JSON(t)["agent"].(map[string]any)["id"].(string)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/marketplace/"+id+"/install", map[string]any{}), http.StatusCreated)

	run := func(title string) string {
		res := ann.Session.Do(http.MethodPost, "/api/chat/execute-tag", map[string]any{"tag": "dispatch_queue",
			"body": map[string]any{"title": title, "type": "research"}})
		servertest.WantStatus(t, res, http.StatusOK)
		item := res.JSON(t)["tag"].(map[string]any)["result"].(map[string]any)["item"].(map[string]any)["id"].(string)
		servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/queue/confirm", map[string]any{"id": item, "action": "approve"}), http.StatusOK)
		servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/v2/queue/"+item+"/status", map[string]any{"status": "in_progress"}), http.StatusOK)
		return item
	}
	ctx := context.Background()
	done := run("Scan the market")
	servertest.WaitFor(t, "the item delivered", func() bool {
		it, err := srv.DB.QueueItem.Get(ctx, done)
		return err == nil && it.Status == queueitem.StatusDoneToday
	})
	it, _ := srv.DB.QueueItem.Get(ctx, done)
	if it.Result == nil || *it.Result != "Three competitors found: A, B, C." || it.ExecutionID == nil {
		t.Fatalf("the delivered item: result %v execution %v", it.Result, it.ExecutionID)
	}
	ex, err := srv.DB.Execution.Get(ctx, *it.ExecutionID)
	if err != nil || ex.UserID != it.UserID || !strings.Contains(ex.Input, "Scan the market") {
		t.Fatalf("the execution: %+v %v", ex, err)
	}
	// A run the assistant's tag started counts as the assistant's.
	if ex.RunOrigin != execution.RunOriginAssistant {
		t.Errorf("the run's origin is %s, want assistant", ex.RunOrigin)
	}
	if n, _ := srv.DB.QueueItem.Query().Where(queueitem.UserID(it.UserID)).Count(ctx); n != 1 {
		t.Fatalf("ann's queue holds %d items: the run opened another", n)
	}

	failed := run("Do the impossible")
	servertest.WaitFor(t, "the failed run reported", func() bool {
		it, err := srv.DB.QueueItem.Get(ctx, failed)
		return err == nil && it.Status == queueitem.StatusBlocked
	})
	if it, _ := srv.DB.QueueItem.Get(ctx, failed); it.Result == nil || !strings.Contains(*it.Result, "did not deliver") {
		t.Fatalf("the failed item's result: %v", it.Result)
	}
	// An item for no agent is left to whoever works it.
	res = ann.Session.Do(http.MethodPost, "/api/chat/execute-tag", map[string]any{"tag": "dispatch_queue",
		"body": map[string]any{"title": "Call mum", "type": "custom"}})
	servertest.WantStatus(t, res, http.StatusOK)
	plain := res.JSON(t)["tag"].(map[string]any)["result"].(map[string]any)["item"].(map[string]any)["id"].(string)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/queue/confirm", map[string]any{"id": plain, "action": "approve"}), http.StatusOK)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPost, "/api/v2/queue/"+plain+"/status", map[string]any{"status": "in_progress"}), http.StatusOK)
	if n, _ := srv.DB.Execution.Query().Count(ctx); n != 2 {
		t.Fatalf("%d executions: an item for no agent ran one", n)
	}
}
