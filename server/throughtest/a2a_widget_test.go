package throughtest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Issue 13 acceptance, RULINGS "A2A" (widgets): an A2A task carrying a
// payment_prompt and a widgetResponseUrl of the caller's origin lands in the
// queue; the operator's approve through POST /api/relays/widget-response
// completes the item, so the task answers completed, and the response reaches
// the agent's URL with X-Service-Event: widget_response.
func TestPaymentPromptResponseCompletesTheTask(t *testing.T) {
	t.Parallel()
	var (
		mu  sync.Mutex
		got []*http.Request
	)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
	}))
	t.Cleanup(agent.Close)
	s, acct, key := setupA2A(t, servertest.WithPrivateEndpoints())
	sent := a2aResult(t, a2aRPC(t, s, key, "message/send", map[string]any{
		"message": map[string]any{"messageId": "m1", "role": "user", "parts": []any{map[string]any{"kind": "text", "text": "Pay the venue deposit"}}},
		"metadata": map[string]any{
			"agentCardUrl":      agent.URL + "/.well-known/agent-card.json",
			"widgetResponseUrl": agent.URL + "/widgets",
			"widgets": []any{map[string]any{"id": "deposit", "type": "payment_prompt", "title": "Pay 120 EUR",
				"items": []any{map[string]any{"id": "pay", "label": "Pay 120 EUR", "actions": []any{"approve", "decline"}}}}},
		},
	}))
	taskID := sent["id"].(string)
	itemID := sent["metadata"].(map[string]any)["queueItemId"].(string)

	res := acct.Session.Do(http.MethodPost, "/api/relays/widget-response",
		map[string]any{"itemId": itemID, "widgetId": "deposit", "widgetItemId": "pay", "action": "approve"})
	servertest.WantStatus(t, res, http.StatusOK)
	if a2aItem(t, acct, itemID)["status"] != "done_today" {
		t.Fatalf("the approved item is %v", a2aItem(t, acct, itemID)["status"])
	}
	if st := a2aResult(t, a2aRPC(t, s, key, "tasks/get", map[string]any{"id": taskID}))["status"].(map[string]any)["state"]; st != "completed" {
		t.Fatalf("the task is %v after the approve", st)
	}
	servertest.WaitFor(t, "the forwarded widget response", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == 1
	})
	mu.Lock()
	defer mu.Unlock()
	if r := got[0]; r.URL.Path != "/widgets" || r.Header.Get("X-Service-Event") != "widget_response" {
		t.Fatalf("forward %s with %v", r.URL.Path, r.Header)
	}
}
