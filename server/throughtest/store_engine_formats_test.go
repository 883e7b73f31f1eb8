package throughtest

import (
	"net/http"
	"testing"

	"github.com/switchboard-hq/switchboard/server/store/dispatch"
)

// Document 2, "Execution contract": one agent per inputFormat, each answered
// synchronously; the body shape and the headers always sent are asserted on
// the agent's side.
func TestExecuteEachInputFormat(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	text := newEngineAgent(t, func(c call, w http.ResponseWriter) {
		writeJSON(w, 200, map[string]any{"output": "echo: " + c.Body["message"].(string)})
	})
	jsonAgent := newEngineAgent(t, func(c call, w http.ResponseWriter) {
		writeJSON(w, 200, map[string]any{"result": "task " + c.Body["task"].(string) + " for " + c.Body["executionId"].(string)})
	})
	a2a := newEngineAgent(t, func(c call, w http.ResponseWriter) {
		params := c.Body["params"].(map[string]any)
		msg := params["message"].(map[string]any)
		part := msg["parts"].([]any)[0].(map[string]any)
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": c.Body["id"], "result": map[string]any{
			"id": params["id"], "status": map[string]any{"state": "completed"},
			"artifacts": []any{map[string]any{"parts": []any{map[string]any{"type": "text", "text": "a2a: " + part["text"].(string)}}}},
		}})
	})
	for _, tc := range []struct {
		format string
		a      *engineAgent
		want   func(id string) string
	}{
		{"text", text, func(string) string { return "echo: hello" }},
		{"json", jsonAgent, func(id string) string { return "task hello for " + id }},
		{"a2a", a2a, func(string) string { return "a2a: hello" }},
	} {
		id := f.listing(t, tc.a.URL, map[string]any{"slug": "fmt-" + tc.format, "inputFormat": tc.format})
		status, out := f.execute(t, f.req, id, map[string]any{"input": "hello"})
		if status != http.StatusOK || out["status"] != "completed" {
			t.Fatalf("%s: %d %v", tc.format, status, out)
		}
		exID := out["executionId"].(string)
		if out["output"] != tc.want(exID) || out["isOwnAgent"] != false || out["revenue"] != nil {
			t.Errorf("%s: answer %v", tc.format, out)
		}
		got := tc.a.received()
		if len(got) != 1 {
			t.Fatalf("%s: agent got %d calls", tc.format, len(got))
		}
		h := got[0].Header
		if h.Get(dispatch.HeaderExecutionID) != exID || h.Get(dispatch.HeaderSource) != "marketplace" || h.Get(dispatch.HeaderTest) != "" {
			t.Errorf("%s: headers %v", tc.format, h)
		}
		ex := f.row(t, exID)
		if ex.Status != "completed" || ex.ResponseTimeMs == nil || ex.TaskOrigin != "marketplace" || ex.IsolationMode != "output_only" {
			t.Errorf("%s: row %+v", tc.format, ex)
		}
		agentRow, err := f.s.DB.StoreAgent.Get(t.Context(), id)
		if err != nil || agentRow.CurrentExecutionID != nil || agentRow.ExecutionCount != 1 {
			t.Errorf("%s: lock not released or count not moved: %+v %v", tc.format, agentRow, err)
		}
	}
}
