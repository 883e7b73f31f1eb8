package throughtest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/ledgerentry"
	"github.com/switchboard-hq/switchboard/ent/paymenthold"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store/dispatch"
)

// Document 2, "Execution contract" (auth headers by authMethod) and
// "Agent configuration layers" (isolation by taskOrigin): the owner's run
// is full_access with the layer-2 context, a requester's output_only.
func TestAuthHeadersAndIsolation(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) { writeJSON(w, 200, map[string]any{"output": "ok"}) })
	const secret = "0123456789abcdef-shared"
	for _, tc := range []struct{ method, header string }{{"bearer", "Authorization"}, {"api_key", dispatch.HeaderAPIKey}, {"hmac", dispatch.HeaderSignature}} {
		id := f.listing(t, a.URL, map[string]any{"slug": "auth-" + map[string]string{"bearer": "b", "api_key": "k", "hmac": "h"}[tc.method], "authMethod": tc.method, "authCredential": secret, "inputFormat": "json"})
		if status, out := f.execute(t, f.req, id, map[string]any{"input": "x", "tone": "dry"}); status != 200 || out["status"] != "completed" {
			t.Fatalf("%s: %d %v", tc.method, status, out)
		}
		got := a.received()
		c := got[len(got)-1]
		want := map[string]string{"bearer": "Bearer " + secret, "api_key": secret}[tc.method]
		if tc.method == "hmac" {
			m := hmac.New(sha256.New, []byte(secret))
			m.Write(c.Raw)
			want = hex.EncodeToString(m.Sum(nil))
		}
		if c.Header.Get(tc.header) != want {
			t.Errorf("%s: header %s = %q, want %q", tc.method, tc.header, c.Header.Get(tc.header), want)
		}
		if _, leaked := c.Body["context"]; leaked {
			t.Errorf("%s: a marketplace (output_only) run got the context: %s", tc.method, c.Raw)
		}
	}
	id := f.listing(t, a.URL, map[string]any{"slug": "own-run", "inputFormat": "json"})
	status, out := f.execute(t, f.dev, id, map[string]any{"input": "mine", "tone": "dry", "requesterName": "Dev"})
	if status != 200 || out["isOwnAgent"] != true || out["taskOrigin"] != "owner" || out["isolationMode"] != "full_access" {
		t.Fatalf("own run: %d %v", status, out)
	}
	got := a.received()
	ctx, _ := got[len(got)-1].Body["context"].(map[string]any)
	if ctx == nil || ctx["requesterName"] != "Dev" || ctx["taskInputs"].(map[string]any)["tone"] != "dry" {
		t.Errorf("owner's full_access run: body %s", got[len(got)-1].Raw)
	}
}

// "Execution status and review": a failing agent ends failed, a slow one
// timeout (the 30-second call limit, shortened here); both release the
// lock and move execution_count; the answer says why.
func TestFailureAndSlowAgent(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	failing := newEngineAgent(t, func(c call, w http.ResponseWriter) { writeJSON(w, 500, map[string]any{"error": "boom"}) })
	slow := newEngineAgent(t, func(c call, w http.ResponseWriter) {
		time.Sleep(3 * time.Second) // past the fixture's 2 s call timeout
		writeJSON(w, 200, map[string]any{"output": "late"})
	})
	for _, tc := range []struct {
		a    *engineAgent
		want string
	}{{failing, "failed"}, {slow, "timeout"}} {
		id := f.listing(t, tc.a.URL, map[string]any{"slug": "end-" + tc.want})
		status, out := f.execute(t, f.req, id, map[string]any{"input": "x"})
		if status != 200 || out["status"] != tc.want || out["error"] == nil || out["output"] != nil {
			t.Fatalf("%s: %d %v", tc.want, status, out)
		}
		row, err := f.s.DB.StoreAgent.Get(t.Context(), id)
		if err != nil || row.CurrentExecutionID != nil || row.ExecutionCount != 1 {
			t.Errorf("%s: agent %+v %v", tc.want, row, err)
		}
	}
}

// "Execution status and review": while the lock is held, executions queue
// with queuedAt and queuePosition, FIFO; each finish dispatches the next.
func TestQueueFIFO(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	release := make(chan struct{})
	var once sync.Once
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) {
		if c.Body["message"] == "first" {
			<-release
		}
		writeJSON(w, 200, map[string]any{"output": "done " + c.Body["message"].(string)})
	})
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	id := f.listing(t, a.URL, nil)
	first := make(chan map[string]any, 1)
	go func() { _, out := f.execute(t, f.req, id, map[string]any{"input": "first"}); first <- out }()
	servertest.WaitFor(t, "the first call to reach the agent", func() bool { return len(a.received()) == 1 })
	var queued []string
	for i, in := range []string{"q1", "q2", "q3"} {
		status, out := f.execute(t, f.req, id, map[string]any{"input": in})
		if status != 200 || out["status"] != "queued" || out["queuePosition"] != float64(i+1) || out["queuedAt"] == nil {
			t.Fatalf("%s: %d %v", in, status, out)
		}
		queued = append(queued, out["executionId"].(string))
	}
	once.Do(func() { close(release) })
	if out := <-first; out["status"] != "completed" || out["output"] != "done first" {
		t.Fatalf("first: %v", out)
	}
	servertest.WaitFor(t, "the queue to drain", func() bool { return f.row(t, queued[2]).Status == "completed" })
	var order []string
	for _, c := range a.received() {
		order = append(order, c.Body["message"].(string))
	}
	if want := []string{"first", "q1", "q2", "q3"}; !equal(order, want) {
		t.Errorf("dispatch order %v, want %v", order, want)
	}
	for _, ex := range queued {
		if r := f.row(t, ex); r.QueuePosition != nil || r.StartedAt == nil || *r.Output != "done "+r.Input {
			t.Errorf("queued %s ended %+v", ex, r)
		}
	}
}

// "Execution contract" (payment) and RULINGS (ledger provider): a per_task
// agent holds the price at dispatch with the 15 % split; a failure releases
// it; capture pays developer and platform.
func TestPaidHoldStates(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	fail := false
	var mu sync.Mutex
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			writeJSON(w, 502, map[string]any{"error": "down"})
			return
		}
		writeJSON(w, 200, map[string]any{"output": "paid work"})
	})
	id := f.listing(t, a.URL, map[string]any{"pricingModel": "per_task", "pricePerTask": 2.5, "currency": "EUR"})
	status, out := f.execute(t, f.req, id, map[string]any{"input": "x"})
	if status != 200 || out["status"] != "completed" || out["paymentHoldStatus"] != "held" {
		t.Fatalf("paid run: %d %v", status, out)
	}
	rev := out["revenue"].(map[string]any)
	if rev["gross"] != 2.5 || rev["platformFee"] != 0.38 || rev["developerPayout"] != 2.12 || rev["feePercent"] != 15.0 || rev["currency"] != "EUR" {
		t.Errorf("revenue %v", rev)
	}
	exID := out["executionId"].(string)
	hold, err := f.s.DB.PaymentHold.Query().Where(paymenthold.ExecutionID(exID)).Only(t.Context())
	if err != nil || hold.Status != "held" || hold.PayerID != f.reqID || hold.PayeeID != f.devID || hold.PaymentMethodID != "ledger_default" {
		t.Fatalf("hold %+v %v", hold, err)
	}
	// The review's confirm captures through the engine in its transaction.
	err = f.s.DB.InTx(t.Context(), func(tx *db.Tx) error {
		ex, err := tx.Execution.Get(t.Context(), exID)
		if err != nil {
			return err
		}
		_, err = f.s.App.Engine.Capture(t.Context(), tx, ex)
		return err
	})
	if err != nil || f.row(t, exID).PaymentHoldStatus != "captured" {
		t.Fatalf("capture: %v %s", err, f.row(t, exID).PaymentHoldStatus)
	}
	lines, err := f.s.DB.LedgerEntry.Query().Where(ledgerentry.ExecutionID(exID)).Order(ent.Asc(ledgerentry.FieldKind)).All(t.Context())
	if err != nil || len(lines) != 3 || lines[0].Amount != -250 || lines[1].Amount != 212 || lines[1].Account != f.devID ||
		lines[2].Amount != 38 || lines[2].Account != "platform" {
		t.Errorf("ledger %+v %v", lines, err)
	}
	// A failure releases the hold it made.
	mu.Lock()
	fail = true
	mu.Unlock()
	status, out = f.execute(t, f.req, id, map[string]any{"input": "y"})
	if status != 200 || out["status"] != "failed" || out["paymentHoldStatus"] != "released" {
		t.Fatalf("failed paid run: %d %v", status, out)
	}
	// An unknown payment method is refused before anything is written.
	before, _ := f.s.DB.Execution.Query().Count(t.Context())
	if status, out := f.execute(t, f.req, id, map[string]any{"input": "z", "paymentMethodId": "pm_card_visa"}); status != 400 {
		t.Errorf("unknown method: %d %v", status, out)
	}
	if after, _ := f.s.DB.Execution.Query().Count(t.Context()); after != before {
		t.Errorf("refused execute wrote an execution: %d → %d", before, after)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// "Circuit breaker states" through the engine: after 5 failed executions
// of one endpoint the next is failed at once without calling the agent; the
// open period runs on the server's clock, so moving that clock past it lets
// the next execution reach the agent again (half-open).
func TestBreakerFastRejectsExecutions(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) { writeJSON(w, 503, map[string]any{"error": "down"}) })
	id := f.listing(t, a.URL, nil)
	for i := range 5 {
		if _, out := f.execute(t, f.req, id, map[string]any{"input": "x"}); out["status"] != "failed" {
			t.Fatalf("failure %d: %v", i+1, out)
		}
	}
	_, out := f.execute(t, f.req, id, map[string]any{"input": "x"})
	if out["status"] != "failed" || !strings.Contains(out["error"].(string), "circuit breaker open") || len(a.received()) != 5 {
		t.Errorf("sixth: %v, agent calls %d", out, len(a.received()))
	}
	f.s.Clock.Advance(time.Minute)
	_, out = f.execute(t, f.req, id, map[string]any{"input": "x"})
	if out["status"] != "failed" || len(a.received()) != 6 {
		t.Errorf("after the open period: %v, agent calls %d (want the probe to reach it)", out, len(a.received()))
	}
}
