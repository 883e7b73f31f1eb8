package throughtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "A2A" and "Accounts, keys, sessions": POST /api/a2a needs an API
// key (401 without) with the a2a scope (403 without).
func TestAccessA2A(t *testing.T) {
	t.Parallel()
	s, acct, key := setupA2A(t)
	body := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": map[string]any{"id": "x"}}
	servertest.WantError(t, s.Anonymous().Do(http.MethodPost, "/api/a2a", body), http.StatusUnauthorized)
	servertest.WantError(t, s.WithKey(acct.NewKey("queue-only", "queue")).Do(http.MethodPost, "/api/a2a", body), http.StatusForbidden)
	// A session is no key.
	servertest.WantError(t, acct.Session.Do(http.MethodPost, "/api/a2a", body), http.StatusUnauthorized)
	res := s.WithKey(key).Do(http.MethodPost, "/api/a2a", body)
	servertest.WantStatus(t, res, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	// An empty scope list means every scope.
	if ans := a2aRPC(t, s, acct.NewKey("all"), "tasks/get", map[string]any{"id": "x"}); rpcCode(t, ans) != -32001 {
		t.Errorf("all-scopes key: %v", ans)
	}
	servertest.WantError(t, s.WithKey(key).Do(http.MethodGet, "/api/a2a", nil), http.StatusMethodNotAllowed)
}

// RULINGS "A2A" (legacy shapes): tasks/send creates a queue item from the
// message, tasks/get answers lowercase states, tasks/respond appends to the
// history and moves a blocked item back to ready.
func TestLegacyRoundTrip(t *testing.T) {
	t.Parallel()
	s, acct, key := setupA2A(t)
	text := "Book a table for four\nAt Lupa, Friday 8pm; ask for the terrace."
	sent := a2aResult(t, a2aRPC(t, s, key, "tasks/send", map[string]any{
		"id":      "exec-42",
		"message": map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": text}}},
		"metadata": map[string]any{"intent": "booking",
			"widgets": []any{map[string]any{"type": "choice_card", "id": "w1", "options": []any{"yes", "no"}}}},
	}))
	a2aGolden(t, "legacy_send", sent)
	if sent["id"] != "exec-42" || sent["status"].(map[string]any)["state"] != "submitted" {
		t.Fatalf("send answered %v", sent)
	}
	itemID := sent["metadata"].(map[string]any)["queueItemId"].(string)
	it := a2aItem(t, acct, itemID)
	if it["title"] != "Book a table for four" || it["description"] != text || it["source"] != "a2a:travel-agent" ||
		it["status"] != "pending_confirmation" {
		t.Errorf("item %v", it)
	}
	meta := it["metadata"].(string)
	for _, want := range []string{`"intent":"booking"`, `"choice_card"`, `"a2aTaskId":"exec-42"`, `"a2aContextId"`} {
		if !strings.Contains(meta, want) {
			t.Errorf("item metadata %s lacks %s", meta, want)
		}
	}
	// The operator approves, starts and blocks it with a reason.
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/confirm", map[string]any{"action": "approve"})
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/status", map[string]any{"status": "in_progress"})
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/result", map[string]any{"result": "Which Friday: the 4th or the 11th?", "status": "blocked"})
	got := a2aResult(t, a2aRPC(t, s, key, "tasks/get", map[string]any{"id": "exec-42"}))
	st := got["status"].(map[string]any)
	if st["state"] != "input-required" || !strings.Contains(st["message"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"].(string), "Which Friday") {
		t.Errorf("blocked task %v", st)
	}
	a2aGolden(t, "legacy_get_blocked", got)
	// The agent answers: history grows, the item is ready again.
	resp := a2aResult(t, a2aRPC(t, s, key, "tasks/respond", map[string]any{
		"id": "exec-42", "message": map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": "The 11th."}}},
	}))
	a2aGolden(t, "legacy_respond", resp)
	if n := len(resp["history"].([]any)); n != 2 {
		t.Errorf("history has %d messages, want 2", n)
	}
	if it := a2aItem(t, acct, itemID); it["status"] != "ready" {
		t.Errorf("after respond the item is %v, want ready", it["status"])
	}
	// A send naming the same id continues the task too.
	again := a2aResult(t, a2aRPC(t, s, key, "tasks/send", map[string]any{
		"id": "exec-42", "message": map[string]any{"parts": []any{map[string]any{"type": "text", "text": "And a high chair."}}},
	}))
	if n := len(again["history"].([]any)); n != 3 || queueCount(t, acct) != 1 {
		t.Errorf("send to an existing id: %d messages, %d items", n, queueCount(t, acct))
	}
	// tasks/respond to an unknown task is -32001.
	if c := rpcCode(t, a2aRPC(t, s, key, "tasks/respond", map[string]any{"id": "nope",
		"message": map[string]any{"parts": []any{map[string]any{"type": "text", "text": "hi"}}}})); c != -32001 {
		t.Errorf("respond to unknown: %d", c)
	}
}

// RULINGS "A2A" (v0.3 shapes, raw JSON): message/send answers the task in
// state submitted; the result becomes an artifact typed by artifactType;
// tasks/cancel of a done task is -32002; cancel deletes the item and
// tasks/get still answers afterwards.
func TestV03RoundTrip(t *testing.T) {
	t.Parallel()
	s, acct, key := setupA2A(t)
	send := func(text string) map[string]any {
		return a2aResult(t, a2aRPC(t, s, key, "message/send", map[string]any{
			"message":       map[string]any{"kind": "message", "messageId": "m-" + text[:4], "role": "user", "parts": []any{map[string]any{"kind": "text", "text": text}}},
			"configuration": map[string]any{"blocking": true},
		}))
	}
	task := send("Draft the reply to Bo\nthanks for the intro")
	a2aGolden(t, "v03_send", task)
	if task["kind"] != "task" || task["status"].(map[string]any)["state"] != "submitted" {
		t.Fatalf("send: %v", task)
	}
	id := task["id"].(string)
	itemID := task["metadata"].(map[string]any)["queueItemId"].(string)
	// The operator marks it an email draft and finishes it.
	operator(t, acct, http.MethodPut, "/api/v2/queue/"+itemID, map[string]any{"metadata": `{"artifactType":"email_draft"}`})
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/confirm", map[string]any{"action": "approve"})
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/result", map[string]any{"result": "Hi Bo, thanks!"})
	done := a2aResult(t, a2aRPC(t, s, key, "tasks/get", map[string]any{"id": id}))
	a2aGolden(t, "v03_get_completed", done)
	arts := done["artifacts"].([]any)
	if done["status"].(map[string]any)["state"] != "completed" || len(arts) != 1 ||
		arts[0].(map[string]any)["name"] != "email_draft" {
		t.Errorf("completed task %v", done)
	}
	if c := rpcCode(t, a2aRPC(t, s, key, "tasks/cancel", map[string]any{"id": id})); c != -32002 {
		t.Errorf("cancel of a done task: %d, want -32002", c)
	}
	// Another task, canceled while it waits for approval.
	other := send("Renew the passport")
	otherID := other["id"].(string)
	canceled := a2aResult(t, a2aRPC(t, s, key, "tasks/cancel", map[string]any{"id": otherID}))
	a2aGolden(t, "v03_cancel", canceled)
	if canceled["status"].(map[string]any)["state"] != "canceled" {
		t.Errorf("cancel: %v", canceled)
	}
	servertest.WantError(t, acct.Session.Do(http.MethodGet, "/api/v2/queue/"+other["metadata"].(map[string]any)["queueItemId"].(string), nil), http.StatusNotFound)
	after := a2aResult(t, a2aRPC(t, s, key, "tasks/get", map[string]any{"id": otherID, "historyLength": 0}))
	if after["status"].(map[string]any)["state"] != "canceled" || after["history"] != nil {
		t.Errorf("get after cancel: %v", after)
	}
	// Canceling again: a canceled task is final, not cancelable (RULINGS,
	// Reconciliation 15).
	if c := rpcCode(t, a2aRPC(t, s, key, "tasks/cancel", map[string]any{"id": otherID})); c != -32002 {
		t.Errorf("second cancel: %d, want -32002", c)
	}
}

// RULINGS "A2A": rejected by the operator → rejected; the operator deleting
// the item cancels the task; the task record outlives the item.
func TestOperatorRejectsAndDeletes(t *testing.T) {
	t.Parallel()
	s, acct, key := setupA2A(t)
	newTask := func(text string) (string, string) {
		task := a2aResult(t, a2aRPC(t, s, key, "message/send", map[string]any{
			"message": map[string]any{"messageId": "m1", "role": "user", "parts": []any{map[string]any{"kind": "text", "text": text}}}}))
		return task["id"].(string), task["metadata"].(map[string]any)["queueItemId"].(string)
	}
	rejected, rejectedItem := newTask("Buy a boat")
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+rejectedItem+"/confirm", map[string]any{"action": "reject"})
	if st := a2aResult(t, a2aRPC(t, s, key, "tasks/get", map[string]any{"id": rejected}))["status"].(map[string]any); st["state"] != "rejected" {
		t.Errorf("rejected item: %v", st)
	}
	deleted, deletedItem := newTask("Water the plants")
	operator(t, acct, http.MethodDelete, "/api/v2/queue/"+deletedItem, nil)
	if st := a2aResult(t, a2aRPC(t, s, key, "tasks/get", map[string]any{"id": deleted}))["status"].(map[string]any); st["state"] != "canceled" {
		t.Errorf("deleted item: %v", st)
	}
	// A finished task takes no more messages.
	ans := a2aRPC(t, s, key, "message/send", map[string]any{"message": map[string]any{"messageId": "m2", "role": "user", "taskId": deleted,
		"parts": []any{map[string]any{"kind": "text", "text": "still there?"}}}})
	if rpcCode(t, ans) != -32602 {
		t.Errorf("send to a canceled task: %v", ans)
	}
}

// RULINGS "A2A" (v1.0 shapes, raw JSON, header A2A-Version: 1.0).
func TestV1RoundTrip(t *testing.T) {
	t.Parallel()
	s, acct, key := setupA2A(t)
	v1 := []string{"A2A-Version", "1.0"}
	sent := a2aResult(t, a2aRPC(t, s, key, "SendMessage", map[string]any{
		"message": map[string]any{"messageId": "m-1", "role": "ROLE_USER", "parts": []any{
			map[string]any{"text": "Plan the offsite\nthree days in May"},
			map[string]any{"data": map[string]any{"budget": 3000}},
		}},
	}, v1...))
	a2aGolden(t, "v1_send", sent)
	task := sent["task"].(map[string]any)
	if task["status"].(map[string]any)["state"] != "TASK_STATE_SUBMITTED" {
		t.Fatalf("send: %v", sent)
	}
	id := task["id"].(string)
	itemID := task["metadata"].(map[string]any)["queueItemId"].(string)
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/confirm", map[string]any{"action": "approve"})
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/status", map[string]any{"status": "in_progress"})
	got := a2aResult(t, a2aRPC(t, s, key, "GetTask", map[string]any{"id": id}, v1...))
	a2aGolden(t, "v1_get_working", got)
	if got["status"].(map[string]any)["state"] != "TASK_STATE_WORKING" {
		t.Errorf("get: %v", got)
	}
	canceled := a2aResult(t, a2aRPC(t, s, key, "CancelTask", map[string]any{"id": id}, v1...))
	a2aGolden(t, "v1_cancel", canceled)
	if canceled["status"].(map[string]any)["state"] != "TASK_STATE_CANCELED" {
		t.Errorf("cancel: %v", canceled)
	}
	// v1.0 names need no header (RULINGS, Reconciliation 15); under 1.0 the
	// v0.3 names are unknown methods.
	if st := a2aResult(t, a2aRPC(t, s, key, "GetTask", map[string]any{"id": id}))["status"].(map[string]any); st["state"] != "TASK_STATE_CANCELED" {
		t.Errorf("GetTask without the header: %v", st)
	}
	if c := rpcCode(t, a2aRPC(t, s, key, "tasks/get", map[string]any{"id": id}, v1...)); c != -32601 {
		t.Errorf("tasks/get under 1.0: %d", c)
	}
}

// RULINGS "A2A" and "Input at the boundary": unknown method -32601, bad
// params -32602 (NUL, invalid UTF-8, no text, bad widgets, private or
// foreign widgetResponseUrl), nothing written; another account's task is
// unknown (-32001).
func TestRefusals(t *testing.T) {
	t.Parallel()
	s, acct, key := setupA2A(t)
	msg := func(text string) map[string]any {
		return map[string]any{"message": map[string]any{"messageId": "m", "role": "user", "parts": []any{map[string]any{"kind": "text", "text": text}}}}
	}
	if c := rpcCode(t, a2aRPC(t, s, key, "tasks/frobnicate", map[string]any{})); c != -32601 {
		t.Errorf("unknown method: %d", c)
	}
	bad := map[string]any{
		"no params":     nil,
		"no message":    map[string]any{},
		"NUL":           msg("hello\x00world"),
		"blank text":    msg("   "),
		"agent role":    map[string]any{"message": map[string]any{"messageId": "m", "role": "agent", "parts": []any{map[string]any{"kind": "text", "text": "x"}}}},
		"unknown kind":  map[string]any{"message": map[string]any{"messageId": "m", "role": "user", "parts": []any{map[string]any{"kind": "video"}}}},
		"widget type":   withMeta(msg("x"), map[string]any{"widgets": []any{map[string]any{"type": "slot_machine"}}}),
		"private url":   withMeta(msg("x"), map[string]any{"widgetResponseUrl": "http://127.1/hook", "agentCardUrl": "http://127.1/.well-known/agent-card.json"}),
		"foreign url":   withMeta(msg("x"), map[string]any{"widgetResponseUrl": "https://a.example.com/hook", "agentCardUrl": "https://b.example.com/.well-known/agent-card.json"}),
		"no card url":   withMeta(msg("x"), map[string]any{"widgetResponseUrl": "https://a.example.com/hook"}),
		"too long text": msg(strings.Repeat("x", 100001)),
	}
	for name, params := range bad {
		if c := rpcCode(t, a2aRPC(t, s, key, "message/send", params)); c != -32602 {
			t.Errorf("%s: code %d, want -32602", name, c)
		}
	}
	// Invalid UTF-8 in a part, as raw bytes.
	raw := []byte(`{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"messageId":"m","role":"user","parts":[{"kind":"text","text":"caf` + "\xff" + `"}]}}}`)
	res := s.WithKey(key).Do(http.MethodPost, "/api/a2a", raw)
	if c := rpcCode(t, res.JSON(t)); c != -32602 {
		t.Errorf("invalid UTF-8: %d", c)
	}
	if c := rpcCode(t, s.WithKey(key).Do(http.MethodPost, "/api/a2a", "{not json").JSON(t)); c != -32700 {
		t.Errorf("malformed JSON: %d", c)
	}
	if c := rpcCode(t, s.WithKey(key).Do(http.MethodPost, "/api/a2a", `{"id":1,"method":"tasks/get"}`).JSON(t)); c != -32600 {
		t.Errorf("no jsonrpc member: %d", c)
	}
	if n := queueCount(t, acct); n != 0 {
		t.Errorf("refused sends wrote %d items", n)
	}
	// A same-origin public widgetResponseUrl is kept.
	ok := a2aResult(t, a2aRPC(t, s, key, "message/send", withMeta(msg("Pay the invoice"), map[string]any{
		"widgetResponseUrl": "https://agent.example.com/widget", "agentCardUrl": "https://agent.example.com/.well-known/agent-card.json",
		"widgets": []any{map[string]any{"type": "payment_prompt", "amount": 120}}})))
	id := ok["id"].(string)
	if meta := a2aItem(t, acct, ok["metadata"].(map[string]any)["queueItemId"].(string))["metadata"].(string); !strings.Contains(meta, `"widgetResponseUrl":"https://agent.example.com/widget"`) {
		t.Errorf("metadata %s", meta)
	}
	// Isolation: another account's key does not find the task.
	other := s.SignUp("bo")
	otherKey := other.NewKey("bo-agent", "a2a")
	for _, m := range []string{"tasks/get", "tasks/cancel"} {
		if c := rpcCode(t, a2aRPC(t, s, otherKey, m, map[string]any{"id": id})); c != -32001 {
			t.Errorf("%s of another account's task: %d", m, c)
		}
	}
	if c := rpcCode(t, a2aRPC(t, s, otherKey, "GetTask", map[string]any{"id": id}, "A2A-Version", "1.0")); c != -32001 {
		t.Errorf("GetTask of another account's task: %d", c)
	}
	if c := rpcCode(t, a2aRPC(t, s, otherKey, "message/send", map[string]any{"message": map[string]any{"messageId": "m", "role": "user",
		"taskId": id, "parts": []any{map[string]any{"kind": "text", "text": "mine now"}}}})); c != -32001 {
		t.Errorf("send to another account's task: %d", c)
	}
	if st := a2aResult(t, a2aRPC(t, s, key, "tasks/get", map[string]any{"id": id}))["status"].(map[string]any)["state"]; st != "submitted" {
		t.Errorf("the owner's task is %v", st)
	}
}

func withMeta(params map[string]any, meta map[string]any) map[string]any {
	params["metadata"] = meta
	return params
}

// RULINGS "Rate limits": A2A sends count in the heavy class; reads do not.
func TestSendsCountInTheHeavyClass(t *testing.T) {
	t.Parallel()
	s, _, key := setupA2A(t, servertest.WithLimits(gate.Limits{PerKey: 1000, Auth: 1000, Heavy: 2, Federation: 1000}))
	send := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": map[string]any{
		"message": map[string]any{"messageId": "m", "role": "user", "parts": []any{map[string]any{"kind": "text", "text": "hello"}}}}}
	var id string
	for i := range 2 {
		res := s.WithKey(key).Do(http.MethodPost, "/api/a2a", send)
		servertest.WantStatus(t, res, http.StatusOK)
		if i == 0 {
			id = a2aResult(t, res.JSON(t))["id"].(string)
		}
	}
	res := s.WithKey(key).Do(http.MethodPost, "/api/a2a", send)
	servertest.WantError(t, res, http.StatusTooManyRequests)
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	for range 3 {
		if st := a2aResult(t, a2aRPC(t, s, key, "tasks/get", map[string]any{"id": id}))["status"]; st == nil {
			t.Fatal("get refused")
		}
	}
}

// Messages sent to one task at once all land in its history.
func TestConcurrentResponds(t *testing.T) {
	t.Parallel()
	s, _, key := setupA2A(t)
	msg := func(text string) map[string]any {
		return map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": text}}}
	}
	a2aResult(t, a2aRPC(t, s, key, "tasks/send", map[string]any{"id": "t-1", "message": msg("Start")}))
	const n = 6
	done := make(chan map[string]any, n)
	for i := range n {
		go func() {
			res := s.WithKey(key).Do(http.MethodPost, "/api/a2a", map[string]any{"jsonrpc": "2.0", "id": i, "method": "tasks/respond",
				"params": map[string]any{"id": "t-1", "message": msg("more")}})
			var m map[string]any
			_ = json.Unmarshal(res.Body, &m)
			done <- m
		}()
	}
	for range n {
		if ans := <-done; ans["result"] == nil {
			t.Errorf("respond failed: %v", ans)
		}
	}
	got := a2aResult(t, a2aRPC(t, s, key, "tasks/get", map[string]any{"id": "t-1"}))
	if h := len(got["history"].([]any)); h != n+1 {
		t.Errorf("history has %d messages, want %d", h, n+1)
	}
}
