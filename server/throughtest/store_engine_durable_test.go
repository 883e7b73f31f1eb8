package throughtest

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store/dispatch"
)

// asyncAgent accepts every task (HTTP 202) and keeps each execution's
// callback token, as a real agent answering later would.
type asyncAgent struct {
	*engineAgent
	mu     sync.Mutex
	tokens map[string]string
	order  []string
}

func newAsyncAgent(t *testing.T) *asyncAgent {
	a := &asyncAgent{tokens: map[string]string{}}
	a.engineAgent = newEngineAgent(t, func(c call, w http.ResponseWriter) {
		a.mu.Lock()
		id := c.Header.Get(dispatch.HeaderExecutionID)
		a.tokens[id] = c.Header.Get(dispatch.HeaderCallbackToken)
		a.order = append(a.order, id)
		a.mu.Unlock()
		writeJSON(w, http.StatusAccepted, map[string]any{"status": "accepted"})
	})
	return a
}

func (a *asyncAgent) token(id string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tokens[id]
}

func (a *asyncAgent) sent() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.order...)
}

func deliver(t *testing.T, s *servertest.Server, id, token, output string) *servertest.Response {
	t.Helper()
	return s.Anonymous().Do(http.MethodPost, "/api/marketplace/callback",
		map[string]any{"executionId": id, "callbackToken": token, "output": output})
}

// Document 2, "Agent store" (callback): an agent that accepted a task
// delivers the result with its execution's token; a wrong token is 404 and
// changes nothing; the receipt status shows the delivery; a second one is
// refused.
func TestAsyncCallback(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	a := newAsyncAgent(t)
	id := f.listing(t, a.URL, nil)
	status, out := f.execute(t, f.req, id, map[string]any{"input": "later"})
	if status != 200 || out["status"] != "running" {
		t.Fatalf("accepted: %d %v", status, out)
	}
	exID := out["executionId"].(string)
	token := a.token(exID)
	if len(token) != 64 {
		t.Fatalf("callback token %q", token)
	}
	if res := deliver(t, f.s, exID, "not-the-token", "forged"); res.Status != 404 {
		t.Errorf("forged delivery: %d %s", res.Status, res.Body)
	}
	if r := f.row(t, exID); r.Status != "running" || r.CallbackReceivedAt != nil {
		t.Errorf("forged delivery changed %+v", r)
	}
	rec := f.s.Anonymous().Do(http.MethodGet, "/api/marketplace/callback?executionId="+exID, nil)
	if rec.Status != 200 || rec.JSON(t)["received"] != false {
		t.Errorf("receipt before: %d %s", rec.Status, rec.Body)
	}
	f.s.Clock.Advance(1500 * time.Millisecond)
	res := deliver(t, f.s, exID, token, "the result")
	if res.Status != 200 || res.JSON(t)["status"] != "completed" || res.JSON(t)["received"] != true {
		t.Fatalf("delivery: %d %s", res.Status, res.Body)
	}
	if r := f.row(t, exID); *r.Output != "the result" || *r.ResponseTimeMs != 1500 {
		t.Errorf("delivered row %+v", r)
	}
	rec = f.s.Anonymous().Do(http.MethodGet, "/api/marketplace/callback?executionId="+exID, nil)
	if rec.Status != 200 || rec.JSON(t)["received"] != true || rec.JSON(t)["receivedAt"] == nil {
		t.Errorf("receipt after: %d %s", rec.Status, rec.Body)
	}
	if res := deliver(t, f.s, exID, token, "again"); res.Status != 400 {
		t.Errorf("second delivery: %d %s", res.Status, res.Body)
	}
}

// RULINGS "Store, federation, MCP, A2A" (durable timers): a running
// execution past its executionTimeout on the injected clock times out, its
// hold is released and the next queued one is dispatched.
func TestExecutionTimeoutOnTheClock(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	a := newAsyncAgent(t)
	id := f.listing(t, a.URL, map[string]any{"executionTimeout": 30, "pricingModel": "per_task", "pricePerTask": 1})
	_, out := f.execute(t, f.req, id, map[string]any{"input": "slow"})
	exID := out["executionId"].(string)
	_, q := f.execute(t, f.req, id, map[string]any{"input": "next"})
	if first, queued := f.row(t, exID), f.row(t, q["executionId"].(string)); first.PaymentHoldStatus != "held" || queued.PaymentHoldStatus != "none" {
		t.Fatalf("holds: running %s, queued %s (a queued execution is held only when dispatched)", first.PaymentHoldStatus, queued.PaymentHoldStatus)
	}
	f.s.Clock.Advance(29 * time.Second)
	time.Sleep(50 * time.Millisecond)
	if r := f.row(t, exID); r.Status != "running" {
		t.Fatalf("timed out early: %+v", r)
	}
	f.s.Clock.Advance(2 * time.Second)
	servertest.AdvanceUntil(t, f.s.Clock, time.Second, "the timeout", func() bool { return f.row(t, exID).Status == "timeout" })
	r := f.row(t, exID)
	if r.PaymentHoldStatus != "released" || r.FailureReason == nil {
		t.Errorf("timed-out row %+v", r)
	}
	next := q["executionId"].(string)
	servertest.WaitFor(t, "the next dispatch", func() bool { return a.token(next) != "" })
	if r := f.row(t, next); r.PaymentHoldStatus != "held" || r.Gross == nil || *r.Gross != 100 {
		t.Errorf("promoted execution's hold: %s %v", r.PaymentHoldStatus, r.Gross)
	}
	// A late answer after the timeout changes nothing.
	if res := deliver(t, f.s, exID, a.token(exID), "late"); res.Status != 400 {
		t.Errorf("late delivery: %d %s", res.Status, res.Body)
	}
}

// RULINGS (durable timers): a restart in the middle of a queued backlog
// loses nothing: a new server over the same database finishes the running
// execution (by callback, or by timeout) and dispatches the backlog in FIFO
// order.
func TestRestartWithBacklog(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	a := newAsyncAgent(t)
	id := f.listing(t, a.URL, map[string]any{"executionTimeout": 30})
	var ids []string
	for _, in := range []string{"a", "b", "c", "d"} {
		_, out := f.execute(t, f.req, id, map[string]any{"input": in})
		ids = append(ids, out["executionId"].(string))
	}
	f.s.App.Close() // the first process stops: its engine is gone
	s2 := servertest.New(t, servertest.WithPrivateEndpoints(), func(c *server.Config) { c.DB = f.s.DB })
	// The running one ends by its callback, through the new process.
	if res := deliver(t, s2, ids[0], a.token(ids[0]), "A"); res.Status != 200 {
		t.Fatalf("delivery after restart: %d %s", res.Status, res.Body)
	}
	servertest.WaitFor(t, "b dispatched", func() bool { return a.token(ids[1]) != "" })
	// b's process "dies" too; the next process times it out on its clock.
	s2.App.Close()
	s3 := servertest.New(t, servertest.WithPrivateEndpoints(), func(c *server.Config) { c.DB = f.s.DB })
	// The new engine arms its sweep's timer after its first sweep: an
	// advance that falls between the two is lost, so the clock moves on a
	// second at a time until b has timed out (c's own 30 s start only then).
	s3.Clock.Advance(31 * time.Second)
	servertest.WaitFor(t, "b timed out", func() bool {
		if f.row(t, ids[1]).Status == execution.StatusTimeout {
			return true
		}
		s3.Clock.Advance(time.Second)
		return false
	})
	servertest.WaitFor(t, "c dispatched", func() bool { return a.token(ids[2]) != "" })
	if res := deliver(t, s3, ids[2], a.token(ids[2]), "C"); res.Status != 200 {
		t.Fatalf("c: %d %s", res.Status, res.Body)
	}
	servertest.WaitFor(t, "d dispatched", func() bool { return a.token(ids[3]) != "" })
	if res := deliver(t, s3, ids[3], a.token(ids[3]), "D"); res.Status != 200 {
		t.Fatalf("d: %d %s", res.Status, res.Body)
	}
	want := map[string]string{ids[0]: "completed", ids[1]: "timeout", ids[2]: "completed", ids[3]: "completed"}
	for exID, st := range want {
		if r := f.row(t, exID); string(r.Status) != st {
			t.Errorf("%s (%s): %s, want %s", exID, r.Input, r.Status, st)
		}
	}
	if got := a.sent(); !equal(got, ids) {
		t.Errorf("dispatch order %v, want %v", got, ids)
	}
	if row, _ := f.s.DB.StoreAgent.Get(t.Context(), id); row.CurrentExecutionID != nil || row.ExecutionCount != 4 {
		t.Errorf("agent after the backlog: %+v", row)
	}
}
