package throughtest

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// ListStoreExecutions (docs/decisions.md "Store tab (issue 12, item 5)"): the
// caller's own executions as requester, across agents, newest first, with
// the listing's name; reviewStatus and agentId filter; offset pages. Another
// account sees none of them, the listing's developer included (RULINGS
// "Store, federation, MCP, A2A": the review is the requester's). The same
// answer over REST and every Connect-family protocol.
func TestListStoreExecutions(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) {
		writeJSON(w, 200, map[string]any{"output": "done: " + c.Body["message"].(string)})
	})
	scout := f.listing(t, a.URL, map[string]any{"name": "Scout"})
	chart := f.listing(t, a.URL, map[string]any{"name": "Charts"})
	var ids []string
	for _, run := range []struct{ agent, input string }{{scout, "first"}, {chart, "second"}, {scout, "third"}} {
		status, out := f.execute(t, f.req, run.agent, map[string]any{"input": run.input})
		if status != 200 || out["status"] != "completed" {
			t.Fatalf("execute %s: %d %v", run.input, status, out)
		}
		ids = append(ids, out["executionId"].(string))
	}
	// The developer runs its own listing: its run is its own, not req's.
	if status, out := f.execute(t, f.dev, scout, map[string]any{"input": "own"}); status != 200 {
		t.Fatalf("own run: %d %v", status, out)
	}

	type listed struct {
		Executions []struct {
			Execution struct {
				ExecutionID  string `json:"executionId"`
				AgentID      string `json:"agentId"`
				Input        string `json:"input"`
				ReviewStatus string `json:"reviewStatus"`
			} `json:"execution"`
			AgentName string `json:"agentName"`
		} `json:"executions"`
		Pagination struct {
			Total   int  `json:"total"`
			HasMore bool `json:"hasMore"`
		} `json:"pagination"`
	}
	list := func(c *servertest.Caller, query string) listed {
		t.Helper()
		res := c.Do(http.MethodGet, "/api/marketplace/executions"+query, nil)
		if res.Status != 200 {
			t.Fatalf("list %s: %d %s", query, res.Status, res.Body)
		}
		var out listed
		if err := json.Unmarshal(res.Body, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}

	all := list(f.req, "")
	if all.Pagination.Total != 3 || len(all.Executions) != 3 {
		t.Fatalf("req's executions: %+v", all)
	}
	for i, want := range []string{ids[2], ids[1], ids[0]} {
		if got := all.Executions[i].Execution.ExecutionID; got != want {
			t.Errorf("position %d: %s, want %s (newest first)", i, got, want)
		}
	}
	if e := all.Executions[1]; e.AgentName != "Charts" || e.Execution.AgentID != chart || e.Execution.Input != "second" ||
		e.Execution.ReviewStatus != "pending_review" {
		t.Errorf("second row: %+v", e)
	}
	if got := list(f.req, "?reviewStatus=pending_review&agentId="+scout); got.Pagination.Total != 2 || got.Executions[0].AgentName != "Scout" {
		t.Errorf("pending reviews of Scout: %+v", got)
	}
	if got := list(f.req, "?reviewStatus=confirmed"); got.Pagination.Total != 0 || len(got.Executions) != 0 {
		t.Errorf("confirmed: %+v", got)
	}
	if got := list(f.req, "?limit=2&offset=1"); len(got.Executions) != 2 || got.Pagination.HasMore ||
		got.Executions[0].Execution.ExecutionID != ids[1] {
		t.Errorf("second page: %+v", got)
	}
	if got := list(f.req, "?limit=1"); !got.Pagination.HasMore || len(got.Executions) != 1 {
		t.Errorf("first page of one: %+v", got)
	}
	// Isolation: the developer sees only its own run, a stranger nothing.
	if got := list(f.dev, ""); got.Pagination.Total != 1 || got.Executions[0].Execution.Input != "own" {
		t.Errorf("dev's executions: %+v", got)
	}
	if got := list(f.s.WithKey(f.s.SignUp("eve").NewKey("eve", "store")), "?agentId="+scout); got.Pagination.Total != 0 {
		t.Errorf("a stranger's executions: %+v", got)
	}
	if res := f.req.Do(http.MethodGet, "/api/marketplace/executions?reviewStatus=maybe", nil); res.Status != 400 {
		t.Errorf("an unknown review status: %d %s", res.Status, res.Body)
	}

	// Connect: the same list, and the same refusal.
	for name, opts := range servertest.Protocols() {
		opts = append(opts, connect.WithInterceptors(servertest.BearerInterceptor(f.reqKey)))
		c := switchboardv1connect.NewStoreExecutionServiceClient(f.s.Client(name), f.s.URL, opts...)
		out, err := c.ListStoreExecutions(t.Context(), &switchboardv1.ListStoreExecutionsRequest{ReviewStatus: "pending_review", Limit: 2})
		if err != nil || out.GetPagination().GetTotal() != 3 || len(out.GetExecutions()) != 2 ||
			out.GetExecutions()[0].GetExecution().GetExecutionId() != ids[2] || out.GetExecutions()[0].GetAgentName() != "Scout" {
			t.Errorf("%s: %v %v", name, out, err)
		}
		_, err = c.ListStoreExecutions(t.Context(), &switchboardv1.ListStoreExecutionsRequest{ReviewStatus: "maybe"})
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument {
			t.Errorf("%s: an unknown review status: %v", name, err)
		}
	}
}
