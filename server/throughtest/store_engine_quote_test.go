package throughtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store/dispatch"
)

// quoting answers a price_quote until the run is approved, then the output.
func quoting(t *testing.T) *engineAgent {
	return newEngineAgent(t, func(c call, w http.ResponseWriter) {
		if c.Header.Get(dispatch.HeaderQuoteApproved) == "true" && c.Body["quoteApproved"] == true {
			writeJSON(w, 200, map[string]any{"output": "report for " + c.Body["message"].(string)})
			return
		}
		writeJSON(w, 200, map[string]any{"price_quote": map[string]any{"amount": 12.5, "currency": "EUR", "breakdown": "5 sources × 2.50"}})
	})
}

// Document 2, "Execution status and review" (dynamic pricing) and
// "Execution contract" (quoted response): a quote answers pricingPhase
// quoted with the quote and a payment_prompt widget, keeps the lock, and
// approve holds the quoted amount and runs the real task.
func TestQuoteApprove(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	a := quoting(t)
	id := f.listing(t, a.URL, map[string]any{"pricingModel": "dynamic", "currency": "EUR",
		"pricingConfig": map[string]any{"model": "dynamic", "dynamicConfig": map[string]any{"estimateRange": []any{1, 20}}}})
	status, out := f.execute(t, f.req, id, map[string]any{"input": "topic"})
	if status != 200 || out["status"] != "running" || out["pricingPhase"] != "quoted" || out["paymentHoldStatus"] != "none" {
		t.Fatalf("quoted: %d %v", status, out)
	}
	exID := out["executionId"].(string)
	q := out["quote"].(map[string]any)
	if q["amount"] != 12.5 || q["currency"] != "EUR" || q["breakdown"] != "5 sources × 2.50" ||
		!strings.HasSuffix(q["approveUrl"].(string), "/api/marketplace/"+id+"/execute/"+exID) {
		t.Errorf("quote %v", q)
	}
	if w := out["widget"].(map[string]any); w["type"] != "payment_prompt" || len(w["items"].([]any)) != 1 {
		t.Errorf("widget %v", w)
	}
	// The lock stays with the quoted execution: a second execute queues.
	if _, out := f.execute(t, f.req, id, map[string]any{"input": "next"}); out["status"] != "queued" {
		t.Errorf("execute while quoted: %v", out)
	}
	// Another account cannot decide it (404), nor can a bad action (400).
	if res := f.dev.Do(http.MethodPost, "/api/marketplace/"+id+"/execute/"+exID, map[string]any{"action": "approve"}); res.Status != 404 {
		t.Errorf("other account's decision: %d %s", res.Status, res.Body)
	}
	if res := f.req.Do(http.MethodPost, "/api/marketplace/"+id+"/execute/"+exID, map[string]any{"action": "maybe"}); res.Status != 400 {
		t.Errorf("bad action: %d %s", res.Status, res.Body)
	}
	res := f.req.Do(http.MethodPost, "/api/marketplace/"+id+"/execute/"+exID, map[string]any{"action": "approve"})
	if res.Status != 200 {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
	got := res.JSON(t)["execution"].(map[string]any)
	rev, _ := got["revenue"].(map[string]any)
	if got["status"] != "completed" || got["output"] != "report for topic" || got["paymentHoldStatus"] != "held" ||
		got["pricingPhase"] != "approved" || rev["gross"] != 12.5 || rev["platformFee"] != 1.88 || rev["developerPayout"] != 10.62 {
		t.Fatalf("approved run: %v", got)
	}
	// Deciding again is refused: nothing waits.
	if res := f.req.Do(http.MethodPost, "/api/marketplace/"+id+"/execute/"+exID, map[string]any{"action": "decline"}); res.Status != 400 {
		t.Errorf("second decision: %d %s", res.Status, res.Body)
	}
	// The queued execution took the lock and quoted in turn.
	servertest.WaitFor(t, "the queued execution to quote", func() bool {
		rows, _ := f.s.DB.Execution.Query().All(t.Context())
		for _, r := range rows {
			if r.Input == "next" {
				return r.PricingPhase != nil && *r.PricingPhase == "quoted"
			}
		}
		return false
	})
}

// Decline: nothing is held or charged, the execution ends failed with
// pricingPhase declined, the lock passes to the next queued execution.
func TestQuoteDecline(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	a := quoting(t)
	id := f.listing(t, a.URL, map[string]any{"pricingModel": "dynamic",
		"pricingConfig": map[string]any{"model": "dynamic", "dynamicConfig": map[string]any{"estimateRange": []any{1, 20}}}})
	_, out := f.execute(t, f.req, id, map[string]any{"input": "topic"})
	exID := out["executionId"].(string)
	_, queued := f.execute(t, f.req, id, map[string]any{"input": "next"})
	res := f.req.Do(http.MethodPost, "/api/marketplace/"+id+"/execute/"+exID, map[string]any{"action": "decline"})
	if res.Status != 200 {
		t.Fatalf("decline: %d %s", res.Status, res.Body)
	}
	got := res.JSON(t)["execution"].(map[string]any)
	if got["status"] != "failed" || got["pricingPhase"] != "declined" || got["paymentHoldStatus"] != "none" || got["revenue"] != nil {
		t.Errorf("declined: %v", got)
	}
	next := queued["executionId"].(string)
	servertest.WaitFor(t, "the next execution to take the lock", func() bool {
		r := f.row(t, next)
		return r.Status == "running" && r.PricingPhase != nil
	})
	row, _ := f.s.DB.StoreAgent.Get(t.Context(), id)
	if row.CurrentExecutionID == nil || *row.CurrentExecutionID != next {
		t.Errorf("lock %v, want %s", row.CurrentExecutionID, next)
	}
	if n, _ := f.s.DB.PaymentHold.Query().Count(t.Context()); n != 0 {
		t.Errorf("a declined quote made %d holds", n)
	}
}
