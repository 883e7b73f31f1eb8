package throughtest

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Document 2 "Agent store" (POST /api/agent-quality, signal weights) and
// "Authentication" (agent-quality takes the API key): signals are stored, the
// listing's quality score is the mean weight mapped onto 0–100; a session or
// no key is refused; bad input writes nothing. Each signal names one of the
// caller's completed executions of the agent (issue 35 point 7): another
// account's or an unknown one is 404, one of another agent 400, one that did
// not complete 400 failed_precondition, a second signal for it 409.
func TestAgentQualitySignals(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	ctx := context.Background()
	first, second := f.execute(t, f.api, "Scout the battery market"), f.execute(t, f.api, "Scout the solar market")
	res := f.api.Do(http.MethodPost, "/api/agent-quality", map[string]any{"agentId": f.agentID, "signal": "no_correction",
		"metadata": `{"taskId":"t1"}`, "executionId": first.ID})
	if res.Status != http.StatusCreated {
		t.Fatalf("signal: %d %s", res.Status, res.Body)
	}
	b := res.JSON(t)
	sig, q := b["signal"].(map[string]any), b["quality"].(map[string]any)
	if sig["signal"] != "no_correction" || sig["weight"] != 0.8 || sig["metadata"] != `{"taskId":"t1"}` || sig["agentId"] != f.agentID ||
		q["score"] != 86.7 || q["signalCount"] != float64(1) {
		t.Fatalf("answer %s", res.Body)
	}
	out, err := f.client(f.annKey).RecordAgentQuality(ctx, &switchboardv1.RecordAgentQualityRequest{AgentId: f.agentID, Signal: "user_edited",
		ExecutionId: second.ID})
	// (0.8 - 0.3) / 2 = 0.25 → 50.
	if err != nil || out.GetQuality().GetScore() != 50 || out.GetQuality().GetSignalCount() != 2 || out.GetSignal().Metadata != nil {
		t.Fatalf("connect: %v %v", out, err)
	}
	agent := f.s.DB.StoreAgent.GetX(ctx, f.agentID)
	if agent.QualityScore == nil || *agent.QualityScore != 50 || agent.QualitySignalCount != 2 {
		t.Fatalf("listing %v %d", agent.QualityScore, agent.QualitySignalCount)
	}

	// A listing of carol's that is disabled is not found for others.
	res = f.carolAPI.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Hidden", "endpointUrl": f.agent.URL})
	if res.Status != http.StatusCreated {
		t.Fatalf("carol's listing: %d %s", res.Status, res.Body)
	}
	hidden := res.JSON(t)["agent"].(map[string]any)["id"].(string)
	// ann's completed run of carol's other agent, and ann's failed and
	// carol's completed runs of bob's.
	res = f.carolAPI.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Other Scout", "endpointUrl": f.agent.URL})
	if res.Status != http.StatusCreated {
		t.Fatalf("carol's other listing: %d %s", res.Status, res.Body)
	}
	res = f.api.Do(http.MethodPost, "/api/marketplace/"+res.JSON(t)["agent"].(map[string]any)["id"].(string)+"/execute", map[string]any{"input": "x"})
	if res.Status != http.StatusOK {
		t.Fatalf("run of carol's other agent: %d %s", res.Status, res.Body)
	}
	otherAgents := res.JSON(t)["executionId"].(string)
	f.s.DB.StoreAgent.UpdateOneID(hidden).SetStatus(storeagent.StatusDisabled).ExecX(ctx)
	failed, carols := f.execute(t, f.api, "please fail"), f.execute(t, f.carolAPI, "Carol's scouting")
	third := f.execute(t, f.api, "Scout the wind market")
	body := func(signal, execID string) map[string]any {
		return map[string]any{"agentId": f.agentID, "signal": signal, "executionId": execID}
	}
	before := f.s.DB.AgentQualitySignal.Query().CountX(ctx)
	queueKey := f.s.WithKey(f.ann.NewKey("queue-only", "queue"))
	for _, tc := range []struct {
		name   string
		caller string
		body   map[string]any
		status int
	}{
		{"session", "session", body("no_correction", third.ID), 401},
		{"no key", "anon", body("no_correction", third.ID), 401},
		{"key without the store scope", "queue", body("no_correction", third.ID), 403},
		{"no agentId", "ann", map[string]any{"signal": "no_correction", "executionId": third.ID}, 400},
		{"no signal", "ann", map[string]any{"agentId": f.agentID, "executionId": third.ID}, 400},
		{"no executionId", "ann", map[string]any{"agentId": f.agentID, "signal": "no_correction"}, 400},
		{"unknown signal", "ann", body("great", third.ID), 400},
		{"metadata not an object", "ann", map[string]any{"agentId": f.agentID, "signal": "no_correction", "metadata": "[1]", "executionId": third.ID}, 400},
		{"metadata not JSON", "ann", map[string]any{"agentId": f.agentID, "signal": "no_correction", "metadata": "{", "executionId": third.ID}, 400},
		{"metadata as an object", "ann", map[string]any{"agentId": f.agentID, "signal": "no_correction", "metadata": map[string]any{"a": 1}, "executionId": third.ID}, 400},
		{"executionId over 64 characters", "ann", body("no_correction", strings.Repeat("c", 65)), 400},
		{"unknown agent", "ann", map[string]any{"agentId": "cnope", "signal": "no_correction", "executionId": third.ID}, 404},
		{"a disabled listing of another account", "ann", map[string]any{"agentId": hidden, "signal": "no_correction", "executionId": third.ID}, 404},
		{"own agent", "bob", body("payment_completed", third.ID), 400},
		{"unknown execution", "ann", body("no_correction", "cnope"), 404},
		{"another account's execution", "ann", body("no_correction", carols.ID), 404},
		{"an execution of another agent", "ann", body("no_correction", otherAgents), 400},
		{"an execution that did not complete", "ann", body("no_correction", failed.ID), 400},
		{"a second signal for an execution", "ann", body("no_correction", first.ID), 409},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := map[string]*servertest.Caller{"ann": f.api, "bob": f.bobAPI, "session": f.ann.Session, "anon": f.s.Anonymous(), "queue": queueKey}[tc.caller]
			servertest.WantError(t, c.Do(http.MethodPost, "/api/agent-quality", tc.body), tc.status)
		})
	}
	if n := f.s.DB.AgentQualitySignal.Query().CountX(ctx); n != before {
		t.Fatalf("refusals stored %d signals", n-before)
	}
	if a := f.s.DB.StoreAgent.GetX(ctx, f.agentID); *a.QualityScore != 50 || a.QualitySignalCount != 2 {
		t.Fatalf("refusals changed the score: %v", *a.QualityScore)
	}
	_, err = f.client("").RecordAgentQuality(ctx, &switchboardv1.RecordAgentQualityRequest{AgentId: f.agentID, Signal: "no_correction",
		ExecutionId: third.ID})
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("connect without a key: %v", err)
	}
	// The Connect twins of the execution's refusals.
	for id, code := range map[string]connect.Code{"": connect.CodeInvalidArgument, carols.ID: connect.CodeNotFound,
		otherAgents: connect.CodeInvalidArgument, failed.ID: connect.CodeFailedPrecondition, second.ID: connect.CodeAlreadyExists} {
		_, err := f.client(f.annKey).RecordAgentQuality(ctx, &switchboardv1.RecordAgentQualityRequest{AgentId: f.agentID,
			Signal: "follow_up_needed", ExecutionId: id})
		if connect.CodeOf(err) != code {
			t.Errorf("connect, execution %q: %v, want %v", id, err, code)
		}
	}
	if n := f.s.DB.AgentQualitySignal.Query().CountX(ctx); n != before {
		t.Fatalf("Connect refusals stored %d signals", n-before)
	}
}

// quality posts a signal over REST.
func (f *reviewFixture) quality(c *servertest.Caller, body map[string]any) *servertest.Response {
	return c.Do(http.MethodPost, "/api/agent-quality", body)
}

// Issue 35 point 7, RULINGS "Security details (2026-11-28)": carol never ran
// bob's agent, yet 25 follow_up_needed signals drove its score to 0. A
// signal needs executionId, the caller's own completed execution of the
// agent: without one it is 400, with ann's execution or an unknown id 404;
// nothing is stored and the score stays as it was.
func TestUnusedAgentQualitySignalRefused(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	ex := f.execute(t, f.api, "Scout the battery market")
	for i := range 25 {
		res := f.quality(f.carolAPI, map[string]any{"agentId": f.agentID, "signal": "follow_up_needed"})
		if res.Status != http.StatusBadRequest {
			t.Fatalf("signal %d without an execution: %d %s", i+1, res.Status, res.Body)
		}
	}
	for _, id := range []string{ex.ID, "cnope"} {
		servertest.WantError(t, f.quality(f.carolAPI, map[string]any{"agentId": f.agentID, "signal": "follow_up_needed", "executionId": id}), http.StatusNotFound)
	}
	if n := f.s.DB.AgentQualitySignal.Query().CountX(t.Context()); n != 0 {
		t.Fatalf("refused signals stored %d rows", n)
	}
	if a := f.s.DB.StoreAgent.GetX(t.Context(), f.agentID); a.QualityScore != nil || a.QualitySignalCount != 0 {
		t.Fatalf("refused signals changed the score: %v (%d)", a.QualityScore, a.QualitySignalCount)
	}
}

// Issue 35 point 7: one signal per execution. 25 posts of the same
// execution's signal at once (the attack, by a caller who did run the agent)
// store one: one 201, the rest 409 already_exists, the count 1; a second
// execution may signal again. The unique index decides, so this holds on
// PostgreSQL's concurrent transactions too.
func TestQualitySignalOncePerExecution(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	ex := f.execute(t, f.api, "Scout the battery market")
	statuses := make([]int, 25)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Go(func() {
			statuses[i] = f.quality(f.api, map[string]any{"agentId": f.agentID, "signal": "follow_up_needed", "executionId": ex.ID}).Status
		})
	}
	wg.Wait()
	created := 0
	for i, st := range statuses {
		switch st {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
		default:
			t.Errorf("post %d: %d", i, st)
		}
	}
	if created != 1 {
		t.Fatalf("%d of 25 posts for one execution were stored", created)
	}
	res := f.quality(f.api, map[string]any{"agentId": f.agentID, "signal": "user_edited", "executionId": ex.ID})
	servertest.WantErrorContaining(t, res, http.StatusConflict, "already")
	if a := f.s.DB.StoreAgent.GetX(t.Context(), f.agentID); a.QualitySignalCount != 1 {
		t.Fatalf("signals counted: %d, want 1", a.QualitySignalCount)
	}
	second := f.execute(t, f.api, "Scout the solar market")
	res = f.quality(f.api, map[string]any{"agentId": f.agentID, "signal": "no_correction", "executionId": second.ID})
	servertest.WantStatus(t, res, http.StatusCreated)
	// (-0.5 + 0.8) / 2 = 0.15 → 43.3.
	if q := res.JSON(t)["quality"].(map[string]any); q["signalCount"] != float64(2) || q["score"] != 43.3 {
		t.Fatalf("after a second execution's signal: %v", q)
	}
}
