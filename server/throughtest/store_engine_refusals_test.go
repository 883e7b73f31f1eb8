package throughtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// engineSnapshot counts everything an execution path writes.
type engineSnapshot struct{ executions, holds, ledger, count int }

func (f *engineFixture) snapshot(t *testing.T, agentID string) engineSnapshot {
	t.Helper()
	ctx := t.Context()
	var s engineSnapshot
	s.executions, _ = f.s.DB.Execution.Query().Count(ctx)
	s.holds, _ = f.s.DB.PaymentHold.Query().Count(ctx)
	s.ledger, _ = f.s.DB.LedgerEntry.Query().Count(ctx)
	a, err := f.s.DB.StoreAgent.Get(ctx, agentID)
	if err != nil {
		t.Fatal(err)
	}
	s.count = a.ExecutionCount
	return s
}

// Document 2, "Errors" and RULINGS "Errors": bad input on every endpoint
// answers the documented 4xx shape and writes nothing; another account's
// ids are 404; an agent that is not available is refused before the lock
// ("Execution status and review").
func TestBadInputWritesNothingEngine(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) {
		writeJSON(w, 200, map[string]any{"price_quote": map[string]any{"amount": 2}})
	})
	paid := f.listing(t, a.URL, map[string]any{"slug": "paid", "pricingModel": "per_task", "pricePerTask": 3})
	dynamic := f.listing(t, a.URL, map[string]any{"slug": "dyn", "pricingModel": "dynamic",
		"pricingConfig": map[string]any{"model": "dynamic", "dynamicConfig": map[string]any{"estimateRange": []any{1, 5}}}})
	down := f.listing(t, a.URL, map[string]any{"slug": "down"})
	if res := f.dev.Do(http.MethodPut, "/api/marketplace/"+down, map[string]any{"availability": "maintenance"}); res.Status != 200 {
		t.Fatalf("availability: %d %s", res.Status, res.Body)
	}
	hidden := f.listing(t, a.URL, map[string]any{"slug": "hidden"})
	if _, err := f.s.DB.StoreAgent.UpdateOneID(hidden).SetStatus("pending_review").Save(t.Context()); err != nil {
		t.Fatal(err)
	}
	// A quoted execution of req, for the decision refusals.
	_, q := f.execute(t, f.req, dynamic, map[string]any{"input": "quote me"})
	quoted := q["executionId"].(string)

	before := f.snapshot(t, paid)
	cases := []struct {
		name   string
		caller *servertest.Caller
		method string
		path   string
		body   any
		status int
	}{
		{"no input", f.req, "POST", "/api/marketplace/" + paid + "/execute", map[string]any{}, 400},
		{"blank input", f.req, "POST", "/api/marketplace/" + paid + "/execute", map[string]any{"input": "  "}, 400},
		{"huge input", f.req, "POST", "/api/marketplace/" + paid + "/execute", map[string]any{"input": strings.Repeat("x", 100_001)}, 400},
		{"input not a string", f.req, "POST", "/api/marketplace/" + paid + "/execute", map[string]any{"input": 5}, 400},
		{"unknown field", f.req, "POST", "/api/marketplace/" + paid + "/execute", map[string]any{"input": "x", "bogus": 1}, 400},
		{"long tone", f.req, "POST", "/api/marketplace/" + paid + "/execute", map[string]any{"input": "x", "tone": strings.Repeat("t", 1001)}, 400},
		{"unknown method", f.req, "POST", "/api/marketplace/" + paid + "/execute", map[string]any{"input": "x", "paymentMethodId": "pm_x"}, 400},
		{"unknown agent", f.req, "POST", "/api/marketplace/nope/execute", map[string]any{"input": "x"}, 404},
		{"another's hidden agent", f.req, "POST", "/api/marketplace/" + hidden + "/execute", map[string]any{"input": "x"}, 404},
		{"unavailable", f.req, "POST", "/api/marketplace/" + down + "/execute", map[string]any{"input": "x"}, 400},
		{"no credential", f.s.Anonymous(), "POST", "/api/marketplace/" + paid + "/execute", map[string]any{"input": "x"}, 401},
		{"decide: no action", f.req, "POST", "/api/marketplace/" + dynamic + "/execute/" + quoted, map[string]any{}, 400},
		{"decide: bad action", f.req, "POST", "/api/marketplace/" + dynamic + "/execute/" + quoted, map[string]any{"action": "yes"}, 400},
		{"decide: another's", f.dev, "POST", "/api/marketplace/" + dynamic + "/execute/" + quoted, map[string]any{"action": "approve"}, 404},
		{"decide: wrong agent", f.req, "POST", "/api/marketplace/" + paid + "/execute/" + quoted, map[string]any{"action": "approve"}, 404},
		{"decide: bad method", f.req, "POST", "/api/marketplace/" + dynamic + "/execute/" + quoted, map[string]any{"action": "approve", "paymentMethodId": "pm_x"}, 400},
		{"callback: no token", f.s.Anonymous(), "POST", "/api/marketplace/callback", map[string]any{"executionId": quoted}, 400},
		{"callback: bad status", f.s.Anonymous(), "POST", "/api/marketplace/callback", map[string]any{"executionId": quoted, "callbackToken": "t", "status": "done"}, 400},
		{"callback: wrong token", f.s.Anonymous(), "POST", "/api/marketplace/callback", map[string]any{"executionId": quoted, "callbackToken": "t"}, 404},
		{"callback: unknown", f.s.Anonymous(), "POST", "/api/marketplace/callback", map[string]any{"executionId": "nope", "callbackToken": "t"}, 404},
		{"receipt: no id", f.s.Anonymous(), "GET", "/api/marketplace/callback", nil, 400},
		{"receipt: unknown", f.s.Anonymous(), "GET", "/api/marketplace/callback?executionId=nope", nil, 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			servertest.WantError(t, tc.caller.Do(tc.method, tc.path, tc.body), tc.status)
		})
	}
	if after := f.snapshot(t, paid); after != before {
		t.Errorf("refusals wrote: %+v → %+v", before, after)
	}
	if r := f.row(t, quoted); r.Status != "running" || r.PricingPhase == nil || *r.PricingPhase != "quoted" || r.PaymentHoldStatus != "none" {
		t.Errorf("the quoted execution moved: %+v", r)
	}
}
