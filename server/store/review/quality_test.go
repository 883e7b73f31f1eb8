package review_test

import (
	"context"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Document 2 "Agent store" (POST /api/agent-quality, signal weights) and
// "Authentication" (agent-quality takes the API key): signals are stored, the
// listing's quality score is the mean weight mapped onto 0–100; a session or
// no key is refused; bad input writes nothing.
func TestAgentQualitySignals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	res := f.api.Do(http.MethodPost, "/api/agent-quality", map[string]any{"agentId": f.agentID, "signal": "no_correction",
		"metadata": `{"taskId":"t1"}`})
	if res.Status != http.StatusCreated {
		t.Fatalf("signal: %d %s", res.Status, res.Body)
	}
	b := res.JSON(t)
	sig, q := b["signal"].(map[string]any), b["quality"].(map[string]any)
	if sig["signal"] != "no_correction" || sig["weight"] != 0.8 || sig["metadata"] != `{"taskId":"t1"}` || sig["agentId"] != f.agentID ||
		q["score"] != 86.7 || q["signalCount"] != float64(1) {
		t.Fatalf("answer %s", res.Body)
	}
	out, err := f.client(f.annKey).RecordAgentQuality(ctx, &switchboardv1.RecordAgentQualityRequest{AgentId: f.agentID, Signal: "user_edited"})
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
	f.s.DB.StoreAgent.UpdateOneID(hidden).SetStatus(storeagent.StatusDisabled).ExecX(ctx)
	before := f.s.DB.AgentQualitySignal.Query().CountX(ctx)
	queueKey := f.s.WithKey(f.ann.NewKey("queue-only", "queue"))
	for _, tc := range []struct {
		name   string
		caller string
		body   map[string]any
		status int
	}{
		{"session", "session", map[string]any{"agentId": f.agentID, "signal": "no_correction"}, 401},
		{"no key", "anon", map[string]any{"agentId": f.agentID, "signal": "no_correction"}, 401},
		{"key without the store scope", "queue", map[string]any{"agentId": f.agentID, "signal": "no_correction"}, 403},
		{"no agentId", "ann", map[string]any{"signal": "no_correction"}, 400},
		{"no signal", "ann", map[string]any{"agentId": f.agentID}, 400},
		{"unknown signal", "ann", map[string]any{"agentId": f.agentID, "signal": "great"}, 400},
		{"metadata not an object", "ann", map[string]any{"agentId": f.agentID, "signal": "no_correction", "metadata": "[1]"}, 400},
		{"metadata not JSON", "ann", map[string]any{"agentId": f.agentID, "signal": "no_correction", "metadata": "{"}, 400},
		{"metadata as an object", "ann", map[string]any{"agentId": f.agentID, "signal": "no_correction", "metadata": map[string]any{"a": 1}}, 400},
		{"unknown agent", "ann", map[string]any{"agentId": "cnope", "signal": "no_correction"}, 404},
		{"a disabled listing of another account", "ann", map[string]any{"agentId": hidden, "signal": "no_correction"}, 404},
		{"own agent", "bob", map[string]any{"agentId": f.agentID, "signal": "payment_completed"}, 400},
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
	_, err = f.client("").RecordAgentQuality(ctx, &switchboardv1.RecordAgentQualityRequest{AgentId: f.agentID, Signal: "no_correction"})
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("connect without a key: %v", err)
	}
}
