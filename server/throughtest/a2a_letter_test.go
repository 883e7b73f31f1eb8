package throughtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// rawAnswer is what one raw JSON-RPC post got back: the status, the content
// type, and the JSON-RPC answer (a stream's: its events).
type rawAnswer struct {
	Status      int              `json:"status"`
	ContentType string           `json:"contentType"`
	Answers     []map[string]any `json:"answers"`
}

// a2aRaw posts body as it is to /api/a2a with the key and header pairs; a
// stream is read to its end (a refusal is its only event).
func a2aRaw(t *testing.T, s *servertest.Server, key, body string, hdr ...string) rawAnswer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), servertest.StreamTimeout)
	defer cancel()
	res := a2aPost(ctx, t, s, key, strings.NewReader(body), hdr...)
	defer res.Body.Close()
	out := rawAnswer{Status: res.StatusCode, ContentType: res.Header.Get("Content-Type")}
	if out.ContentType == "text/event-stream" {
		servertest.ParseSSE(res.Body, func(ev servertest.SSEEvent) {
			var m map[string]any
			if err := json.Unmarshal([]byte(ev.Data), &m); err != nil {
				t.Errorf("event %q: %v", ev.Data, err)
			}
			out.Answers = append(out.Answers, m)
		})
		return out
	}
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: answer %q is no JSON object", body, raw)
	}
	out.Answers = []map[string]any{m}
	return out
}

func rpcBody(id any, method string, params any) string {
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		panic(err)
	}
	return string(raw)
}

// Message shapes of each family, with fields dropped by name.
func legacyMsg(text string, drop ...string) map[string]any {
	return without(map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": text}}}, drop)
}

func v03Msg(taskID, text string, drop ...string) map[string]any {
	m := map[string]any{"kind": "message", "messageId": "m-" + text, "role": "user", "parts": []any{map[string]any{"kind": "text", "text": text}}}
	if taskID != "" {
		m["taskId"] = taskID
	}
	return without(m, drop)
}

func v1Msg(taskID, text string, drop ...string) map[string]any {
	m := map[string]any{"messageId": "m-" + text, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	if taskID != "" {
		m["taskId"] = taskID
	}
	return without(m, drop)
}

func without(m map[string]any, drop []string) map[string]any {
	for _, k := range drop {
		delete(m, k)
	}
	return m
}

// Issue 33 point 2 (RULINGS "A2A" details of 2026-11-28, Reconciliation 15):
// JSON-RPC by the letter on every method family. Each refusal's code is
// checked here and its whole answer (status, content type, body) is pinned in
// testdata/a2a/refusals.golden.json; none of them writes anything.
func TestJSONRPCByTheLetter(t *testing.T) {
	t.Parallel()
	s, acct, key := setupA2A(t)
	v1 := []string{"A2A-Version", "1.0"}
	finish := func(itemID string) {
		operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/confirm", map[string]any{"action": "approve"})
		operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/result", map[string]any{"result": "Done."})
	}
	itemOf := func(task map[string]any) string { return task["metadata"].(map[string]any)["queueItemId"].(string) }

	// A task of each family completed (its item lives, done), one rejected
	// by the operator, one canceled by its agent.
	legacyDone := a2aResult(t, a2aRPC(t, s, key, "tasks/send", map[string]any{"id": "legacy-done", "message": legacyMsg("Order paper")}))
	finish(itemOf(legacyDone))
	v03Done := a2aResult(t, a2aRPC(t, s, key, "message/send", map[string]any{"message": v03Msg("", "Book a table")}))
	finish(itemOf(v03Done))
	v1Done := a2aResult(t, a2aRPC(t, s, key, "SendMessage", map[string]any{"message": v1Msg("", "File the taxes")}, v1...))["task"].(map[string]any)
	finish(itemOf(v1Done))
	rejected := a2aResult(t, a2aRPC(t, s, key, "message/send", map[string]any{"message": v03Msg("", "Buy a boat")}))
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemOf(rejected)+"/confirm", map[string]any{"action": "reject"})
	canceled := a2aResult(t, a2aRPC(t, s, key, "SendMessage", map[string]any{"message": v1Msg("", "Walk the dog")}))["task"].(map[string]any)
	a2aResult(t, a2aRPC(t, s, key, "CancelTask", map[string]any{"id": canceled["id"]}))
	ids := map[string]string{
		legacyDone["id"].(string): "<legacy completed>", v03Done["id"].(string): "<0.3 completed>",
		v1Done["id"].(string): "<1.0 completed>", rejected["id"].(string): "<rejected>", canceled["id"].(string): "<canceled>",
	}
	items := queueCount(t, acct)

	cases := []struct {
		name   string
		body   string
		hdr    []string
		code   int
		stream bool
	}{
		// JSON-RPC 2.0: an id is a string, a number or null.
		{name: "legacy id object", body: `{"jsonrpc":"2.0","id":{"n":1},"method":"tasks/send","params":{"message":{"parts":[{"type":"text","text":"x"}]}}}`, code: -32600},
		{name: "0.3 id array", body: `{"jsonrpc":"2.0","id":[1],"method":"message/send","params":{}}`, code: -32600},
		{name: "1.0 id boolean", body: `{"jsonrpc":"2.0","id":true,"method":"SendMessage","params":{}}`, code: -32600},
		{name: "1.0 id object on a stream", body: `{"jsonrpc":"2.0","id":{},"method":"SubscribeToTask","params":{"id":"x"}}`, code: -32600},
		{name: "batch", body: `[` + rpcBody(1, "tasks/get", map[string]any{"id": "x"}) + `]`, code: -32600},
		{name: "not JSON", body: `{"jsonrpc":"2.0",`, code: -32700},
		{name: "unknown version", body: rpcBody(1, "GetTask", map[string]any{"id": "x"}), hdr: []string{"A2A-Version", "2.0"}, code: -32009},
		{name: "0.3 name under 1.0", body: rpcBody(1, "tasks/get", map[string]any{"id": "x"}), hdr: v1, code: -32601},

		// Required fields, named by their path.
		{name: "legacy send without parts", body: rpcBody(1, "tasks/send", map[string]any{"message": legacyMsg("x", "parts")}), code: -32602},
		{name: "legacy send with no parts", body: rpcBody(1, "tasks/send", map[string]any{"message": map[string]any{"role": "user", "parts": []any{}}}), code: -32602},
		{name: "legacy respond without parts", body: rpcBody(1, "tasks/respond", map[string]any{"id": "legacy-done", "message": legacyMsg("x", "parts")}), code: -32602},
		{name: "0.3 send without messageId", body: rpcBody(1, "message/send", map[string]any{"message": v03Msg("", "x", "messageId")}), code: -32602},
		{name: "0.3 send without role", body: rpcBody(1, "message/send", map[string]any{"message": v03Msg("", "x", "role")}), code: -32602},
		{name: "0.3 send without parts", body: rpcBody(1, "message/send", map[string]any{"message": v03Msg("", "x", "parts")}), code: -32602},
		{name: "0.3 stream without messageId", body: rpcBody(1, "message/stream", map[string]any{"message": v03Msg("", "x", "messageId")}), code: -32602, stream: true},
		{name: "1.0 send without messageId", body: rpcBody(1, "SendMessage", map[string]any{"message": v1Msg("", "x", "messageId")}), code: -32602},
		{name: "1.0 send without role", body: rpcBody(1, "SendMessage", map[string]any{"message": v1Msg("", "x", "role")}), hdr: v1, code: -32602},
		{name: "1.0 send without parts", body: rpcBody(1, "SendMessage", map[string]any{"message": v1Msg("", "x", "parts")}), code: -32602},
		{name: "1.0 stream without role", body: rpcBody("s", "SendStreamingMessage", map[string]any{"message": v1Msg("", "x", "role")}), code: -32602, stream: true},

		// A task in a final state takes no more messages.
		{name: "legacy respond to a completed task", body: rpcBody(1, "tasks/respond", map[string]any{"id": "legacy-done", "message": legacyMsg("more")}), code: -32602},
		{name: "legacy send naming a completed task", body: rpcBody(1, "tasks/send", map[string]any{"id": "legacy-done", "message": legacyMsg("more")}), code: -32602},
		{name: "0.3 send to a completed task", body: rpcBody(1, "message/send", map[string]any{"message": v03Msg(v03Done["id"].(string), "more")}), code: -32602},
		{name: "0.3 send to a rejected task", body: rpcBody(1, "message/send", map[string]any{"message": v03Msg(rejected["id"].(string), "more")}), code: -32602},
		{name: "0.3 stream to a completed task", body: rpcBody(1, "message/stream", map[string]any{"message": v03Msg(v03Done["id"].(string), "more")}), code: -32602, stream: true},
		{name: "1.0 send to a completed task", body: rpcBody(1, "SendMessage", map[string]any{"message": v1Msg(v1Done["id"].(string), "more")}), hdr: v1, code: -32602},
		{name: "1.0 send to a canceled task", body: rpcBody(1, "SendMessage", map[string]any{"message": v1Msg(canceled["id"].(string), "more")}), code: -32602},
		{name: "1.0 stream to a completed task", body: rpcBody(1, "SendStreamingMessage", map[string]any{"message": v1Msg(v1Done["id"].(string), "more")}), code: -32602, stream: true},

		// Cancelling a task in any final state is -32002.
		{name: "0.3 cancel a completed task", body: rpcBody(1, "tasks/cancel", map[string]any{"id": v03Done["id"]}), code: -32002},
		{name: "0.3 cancel a rejected task", body: rpcBody(1, "tasks/cancel", map[string]any{"id": rejected["id"]}), code: -32002},
		{name: "0.3 cancel a canceled task", body: rpcBody(1, "tasks/cancel", map[string]any{"id": canceled["id"]}), code: -32002},
		{name: "1.0 cancel a completed task", body: rpcBody(1, "CancelTask", map[string]any{"id": legacyDone["id"]}), hdr: v1, code: -32002},
		{name: "1.0 cancel a canceled task", body: rpcBody(1, "CancelTask", map[string]any{"id": canceled["id"]}), code: -32002},

		// Streams refused before they start: the refusal is the stream's one
		// event, never a 200 JSON body.
		{name: "0.3 resubscribe to an unknown task", body: rpcBody(7, "tasks/resubscribe", map[string]any{"id": "no-such-task"}), code: -32001, stream: true},
		{name: "1.0 subscribe to an unknown task", body: rpcBody(7, "SubscribeToTask", map[string]any{"id": "no-such-task"}), hdr: v1, code: -32001, stream: true},
		{name: "1.0 subscribe to a canceled task", body: rpcBody(7, "SubscribeToTask", map[string]any{"id": canceled["id"]}), code: -32004, stream: true},
		{name: "1.0 subscribe without an id", body: rpcBody(7, "SubscribeToTask", map[string]any{}), code: -32602, stream: true},
	}
	golden := map[string]rawAnswer{}
	for _, tc := range cases {
		got := a2aRaw(t, s, key, tc.body, tc.hdr...)
		wantType := "application/json"
		if tc.stream {
			wantType = "text/event-stream"
		}
		if got.Status != http.StatusOK || got.ContentType != wantType || len(got.Answers) != 1 {
			t.Errorf("%s: HTTP %d %s with %d answers, want 200 %s with one", tc.name, got.Status, got.ContentType, len(got.Answers), wantType)
			continue
		}
		ans := got.Answers[0]
		e, _ := ans["error"].(map[string]any)
		if code, _ := e["code"].(float64); int(code) != tc.code || ans["result"] != nil {
			t.Errorf("%s: %v, want error %d", tc.name, ans, tc.code)
		}
		if tc.code == -32600 && ans["id"] != nil {
			t.Errorf("%s: id %v, want null", tc.name, ans["id"])
		}
		if tc.code == -32602 && strings.Contains(tc.name, "without") && !strings.Contains(tc.name, "an id") {
			field := tc.name[strings.LastIndex(tc.name, " ")+1:]
			if msg, _ := e["message"].(string); !strings.Contains(msg, "params.message."+field) {
				t.Errorf("%s: %q does not name params.message.%s", tc.name, msg, field)
			}
		}
		if msg, _ := e["message"].(string); tc.code == -32602 && strings.Contains(tc.name, "task") && !strings.Contains(tc.name, "without") {
			state := strings.Fields(tc.name[strings.LastIndex(tc.name, " a ")+3:])[0]
			if !strings.Contains(msg, state) {
				t.Errorf("%s: %q does not name the state %s", tc.name, msg, state)
			}
		}
		golden[tc.name] = got
	}
	raw, err := json.Marshal(golden)
	if err != nil {
		t.Fatal(err)
	}
	for id, name := range ids {
		raw = bytes.ReplaceAll(raw, []byte(id), []byte(name))
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	a2aGolden(t, "refusals", generic)

	// Nothing was written: no item, no message in any final task's history.
	if n := queueCount(t, acct); n != items {
		t.Errorf("%d items after the refusals, %d before", n, items)
	}
	for _, id := range []any{v03Done["id"], v1Done["id"], rejected["id"], canceled["id"]} {
		if h := a2aResult(t, a2aRPC(t, s, key, "GetTask", map[string]any{"id": id}))["history"].([]any); len(h) != 1 {
			t.Errorf("task %v has %d messages", id, len(h))
		}
	}
}

// Issue 33 acceptance: the A2A Go SDK's client (v0.3.3) reads a refused
// subscription as the error it is, not as an empty stream, and a message to
// a completed task is an error.
func TestSDKClientReadsRefusals(t *testing.T) {
	t.Parallel()
	s, acct, key := setupA2A(t)
	c := sdkClient(t, s, key)
	ctx := context.Background()

	var got []any
	for ev, err := range c.ResubscribeToTask(ctx, &a2a.TaskIDParams{ID: "no-such-task"}) {
		if err != nil {
			got = append(got, err)
			break
		}
		got = append(got, ev)
	}
	if len(got) != 1 {
		t.Fatalf("resubscribe to an unknown task yielded %v, want one error", got)
	}
	// The reason travels as data.error, which a2a-go puts before the code's text.
	if err, _ := got[0].(error); !errors.Is(err, a2a.ErrTaskNotFound) || !strings.Contains(err.Error(), `task "no-such-task" not found`) {
		t.Errorf("resubscribe to an unknown task: %v, want task not found with its reason", got[0])
	}

	sent, err := c.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "Fix the gate"})})
	if err != nil {
		t.Fatal(err)
	}
	task := sent.(*a2a.Task)
	itemID := task.Metadata["queueItemId"].(string)
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/confirm", map[string]any{"action": "approve"})
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/result", map[string]any{"result": "Fixed."})
	follow := a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.TextPart{Text: "And the fence?"})
	if _, err := c.SendMessage(ctx, &a2a.MessageSendParams{Message: follow}); !errors.Is(err, a2a.ErrInvalidParams) ||
		!strings.Contains(err.Error(), "is completed and takes no more messages") {
		t.Errorf("send to a completed task: %v, want invalid params with its reason", err)
	}
	stream := sdkEvents(ctx, c.SendStreamingMessage(ctx, &a2a.MessageSendParams{Message: follow}))
	select {
	case ev := <-stream:
		if err, _ := ev.(error); !errors.Is(err, a2a.ErrInvalidParams) {
			t.Errorf("stream to a completed task: %v, want invalid params", ev)
		}
	case <-time.After(servertest.StreamTimeout):
		t.Fatal("no answer to a stream to a completed task")
	}
}

// Issue 33 point 1 (the A2A specification "List Tasks", RULINGS "A2A"
// details of 2026-11-28): ListTasks answers the caller's tasks of every
// family in 1.0 shapes, the most recently updated first, paged by a token,
// filtered by context, state and status time; none of another account's.
func TestListTasks(t *testing.T) {
	t.Parallel()
	s, acct, key := setupA2A(t)
	v1 := []string{"A2A-Version", "1.0"}
	tick := func() { s.Clock.Advance(time.Second) }
	legacy := a2aResult(t, a2aRPC(t, s, key, "tasks/send", map[string]any{"id": "legacy-1", "message": legacyMsg("Order paper")}))
	tick()
	v03 := a2aResult(t, a2aRPC(t, s, key, "message/send", map[string]any{"message": v03Msg("", "Book a table")}))
	tick()
	v10 := a2aResult(t, a2aRPC(t, s, key, "SendMessage", map[string]any{"message": v1Msg("", "File the taxes")}, v1...))["task"].(map[string]any)
	tick()
	approvedAt := s.Clock.Now()
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+legacy["metadata"].(map[string]any)["queueItemId"].(string)+"/confirm", map[string]any{"action": "approve"})
	tick()
	a2aResult(t, a2aRPC(t, s, key, "tasks/cancel", map[string]any{"id": v03["id"]}))
	// Another account's task is never listed.
	other := s.SignUp("bo")
	otherKey := other.NewKey("bo-agent", "a2a")
	a2aResult(t, a2aRPC(t, s, otherKey, "SendMessage", map[string]any{"message": v1Msg("", "Not yours")}))

	list := func(params any, hdr ...string) map[string]any {
		t.Helper()
		return a2aResult(t, a2aRPC(t, s, key, "ListTasks", params, hdr...))
	}
	idsOf := func(page map[string]any) string {
		var out []string
		for _, task := range page["tasks"].([]any) {
			out = append(out, task.(map[string]any)["id"].(string))
		}
		return strings.Join(out, ",")
	}
	names := strings.NewReplacer(legacy["id"].(string), "legacy", v03["id"].(string), "v03", v10["id"].(string), "v10")

	all := list(nil, v1...)
	if got := names.Replace(idsOf(all)); got != "v03,legacy,v10" || all["totalSize"] != 3.0 || all["pageSize"] != 50.0 || all["nextPageToken"] != "" {
		t.Errorf("all: %s %v", got, all)
	}
	for _, task := range all["tasks"].([]any) {
		task := task.(map[string]any)
		if _, has := task["artifacts"]; has {
			t.Errorf("artifacts without includeArtifacts: %v", task)
		}
		if st := task["status"].(map[string]any)["state"].(string); !strings.HasPrefix(st, "TASK_STATE_") {
			t.Errorf("a listed task in another family's shape: %v", task)
		}
	}
	a2aGolden(t, "v1_list", list(map[string]any{"pageSize": 1}))

	// Pages by the token: no overlap, no gap, the last with an empty token.
	first := list(map[string]any{"pageSize": 2})
	second := list(map[string]any{"pageSize": 2, "pageToken": first["nextPageToken"]})
	if got := names.Replace(idsOf(first) + "|" + idsOf(second)); got != "v03,legacy|v10" || first["nextPageToken"] == "" || second["nextPageToken"] != "" ||
		second["totalSize"] != 3.0 {
		t.Errorf("pages %s: %v / %v", got, first, second)
	}

	filters := map[string]struct {
		params map[string]any
		want   string
	}{
		"canceled":           {map[string]any{"status": "TASK_STATE_CANCELED"}, "v03"},
		"canceled by number": {map[string]any{"status": 5}, "v03"},
		"submitted":          {map[string]any{"status": "TASK_STATE_SUBMITTED"}, "legacy,v10"},
		"unspecified":        {map[string]any{"status": "TASK_STATE_UNSPECIFIED"}, "v03,legacy,v10"},
		"working":            {map[string]any{"status": "TASK_STATE_WORKING"}, ""},
		"context":            {map[string]any{"contextId": v10["contextId"]}, "v10"},
		"updated since":      {map[string]any{"statusTimestampAfter": approvedAt.UTC().Format(time.RFC3339Nano)}, "v03,legacy"},
	}
	for name, f := range filters {
		page := list(f.params)
		if got := names.Replace(idsOf(page)); got != f.want || page["totalSize"] != float64(len(page["tasks"].([]any))) {
			t.Errorf("%s: %s (total %v), want %s", name, got, page["totalSize"], f.want)
		}
	}
	withOutput := list(map[string]any{"status": "TASK_STATE_CANCELED", "includeArtifacts": true, "historyLength": 0})
	task := withOutput["tasks"].([]any)[0].(map[string]any)
	if arts, ok := task["artifacts"].([]any); !ok || len(arts) != 0 || task["history"] != nil {
		t.Errorf("includeArtifacts, historyLength 0: %v", task)
	}

	for name, params := range map[string]map[string]any{
		"page size 0":     {"pageSize": 0},
		"page size 101":   {"pageSize": 101},
		"page size text":  {"pageSize": "ten"},
		"foreign token":   {"pageToken": "not-a-token"},
		"unknown state":   {"status": "TASK_STATE_NAPPING"},
		"state 9":         {"status": 9},
		"bad time":        {"statusTimestampAfter": "yesterday"},
		"history below 0": {"historyLength": -1},
	} {
		if c := rpcCode(t, a2aRPC(t, s, key, "ListTasks", params)); c != -32602 {
			t.Errorf("%s: %d, want -32602", name, c)
		}
	}
	theirs := a2aResult(t, a2aRPC(t, s, otherKey, "ListTasks", map[string]any{}))
	if theirs["totalSize"] != 1.0 || strings.Contains(idsOf(theirs), legacy["id"].(string)) {
		t.Errorf("the other account's list: %v", theirs)
	}
}
