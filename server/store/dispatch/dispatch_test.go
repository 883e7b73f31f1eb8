package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/switchboard-hq/switchboard/internal/breaker"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/money"
)

// Document 2, "Circuit breaker states": 5 failures open the breaker, which
// fast-rejects (the agent is not called); after the interval it half-opens;
// 2 successes close it; a failure while half-open reopens it. Keyed per URL.
func TestBreakerStates(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if failing.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write([]byte(`{"output":"ok"}`))
	}))
	defer srv.Close()
	// The fast-reject phase runs on a breaker open for a minute, so a slow
	// machine cannot half-open it between two statements; the half-open phase
	// below runs on a short one.
	d := New(Config{Egress: egress.Policy{AllowPrivate: true}, Timeout: 2 * time.Second, Breaker: breaker.Config{OpenFor: time.Minute}})
	c := Call{URL: srv.URL + "/a", ExecutionID: "ex1", Input: "hi"}
	other := Call{URL: srv.URL + "/b", ExecutionID: "ex2", Input: "hi"}
	failing.Store(true)
	failFive := func(d *Dispatcher) {
		t.Helper()
		for i := range 5 {
			var se *StatusError
			if _, err := d.Send(t.Context(), c); !errors.As(err, &se) || se.Code != 500 {
				t.Fatalf("failure %d: %v", i+1, err)
			}
		}
	}
	failFive(d)
	if got := d.State(c.URL); got != "open" {
		t.Fatalf("after 5 failures: %s", got)
	}
	before := calls.Load()
	if _, err := d.Send(t.Context(), c); !errors.Is(err, ErrOpen) || calls.Load() != before {
		t.Fatalf("open breaker: err %v, agent called %d times more", err, calls.Load()-before)
	}
	if d.State(other.URL) != "closed" {
		t.Errorf("another URL's breaker: %s", d.State(other.URL))
	}
	// The half-open phase runs on a fake clock moved past the open period.
	const open = time.Minute
	clock := clockwork.NewFakeClock()
	d = New(Config{Egress: egress.Policy{AllowPrivate: true}, Timeout: 2 * time.Second, Breaker: breaker.Config{OpenFor: open}, Now: clock.Now})
	failFive(d)
	clock.Advance(open - time.Millisecond)
	if got := d.State(c.URL); got != "open" {
		t.Fatalf("just before the interval: %s", got)
	}
	// Half-open after the interval; a failed probe reopens.
	clock.Advance(time.Millisecond)
	if got := d.State(c.URL); got != "half-open" {
		t.Fatalf("after the interval: %s", got)
	}
	if _, err := d.Send(t.Context(), c); err == nil || d.State(c.URL) != "open" {
		t.Fatalf("failed probe: %v, state %s", err, d.State(c.URL))
	}
	clock.Advance(open)
	failing.Store(false)
	if _, err := d.Send(t.Context(), c); err != nil || d.State(c.URL) != "half-open" {
		t.Fatalf("first probe: %v, state %s", err, d.State(c.URL))
	}
	if _, err := d.Send(t.Context(), c); err != nil || d.State(c.URL) != "closed" {
		t.Fatalf("second probe: %v, state %s", err, d.State(c.URL))
	}
	// A conformance probe bypasses the breaker: it sees the agent itself.
	failing.Store(true)
	for range 6 {
		_, _ = d.Send(t.Context(), c)
	}
	failing.Store(false)
	if res, err := d.Send(t.Context(), Call{URL: c.URL, ExecutionID: "probe", Input: "x", Test: true}); err != nil || res.Output != "ok" {
		t.Errorf("probe through an open breaker: %v %v", res, err)
	}
}

// "Execution contract": bodies by inputFormat and the probe flag.
func TestBodies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		c    Call
		want string
	}{
		{Call{Input: "hi", ExecutionID: "e"}, `{"message":"hi"}`},
		{Call{Input: "hi", ExecutionID: "e", Format: FormatJSON, Test: true}, `{"executionId":"e","task":"hi","test":true}`},
		{Call{Input: "hi", ExecutionID: "e", Format: FormatA2A}, `{"id":"e","jsonrpc":"2.0","method":"tasks/send","params":{"id":"e","message":{"parts":[{"text":"hi","type":"text"}],"role":"user"}}}`},
	} {
		b, err := Body(tc.c)
		if err != nil || string(b) != tc.want {
			t.Errorf("Body(%+v) = %s, %v; want %s", tc.c, b, err, tc.want)
		}
	}
	if _, err := Body(Call{Format: "xml"}); err == nil {
		t.Error("unknown format accepted")
	}
}

// The probe's headers on the wire, and the verdict.
func TestProbeAndConforms(t *testing.T) {
	t.Parallel()
	var hdr http.Header
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr = r.Header.Clone()
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &body)
		w.Write([]byte(`{"jsonrpc":"2.0","id":"p","result":{"status":{"state":"completed","message":{"parts":[{"type":"text","text":"pong"}]}}}}`))
	}))
	defer srv.Close()
	d := New(Config{Egress: egress.Policy{AllowPrivate: true}})
	res, err := d.Send(context.Background(), Call{URL: srv.URL, ExecutionID: "p", Input: "ping", Format: FormatA2A, Test: true,
		AuthMethod: AuthAPIKey, Credential: "k"})
	if ok, hint := Conforms(res, err); !ok || res.Output != "pong" {
		t.Fatalf("probe: %v %v %q", res, err, hint)
	}
	if hdr.Get(HeaderTest) != "true" || body["test"] != true || hdr.Get(HeaderAPIKey) != "k" || hdr.Get(HeaderSource) != "marketplace" {
		t.Errorf("probe request: %v %v", hdr, body)
	}
	if ok, hint := Conforms(Result{Kind: KindOutput}, nil); ok || hint == "" {
		t.Error("an empty output conforms")
	}
	if ok, _ := Conforms(Result{}, &StatusError{Code: 404}); ok {
		t.Error("a 404 conforms")
	}
	// The guard refuses loopback unless allowed.
	strict := New(Config{})
	if _, err := strict.Send(context.Background(), Call{URL: srv.URL, ExecutionID: "p", Input: "x"}); !egress.Refused(err) {
		t.Errorf("loopback without AllowPrivate: %v", err)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format string
		status int
		body   string
		kind   Kind
		output string
		amount money.Cents
	}{
		{FormatText, 200, `plain words`, KindOutput, "plain words", 0},
		{FormatText, 200, `{"response":"r"}`, KindOutput, "r", 0},
		{FormatJSON, 200, `{"output":{"a":1}}`, KindOutput, `{"a":1}`, 0},
		{FormatJSON, 200, `{"price_quote":{"amount":3.5,"currency":"usd"}}`, KindQuote, "", 350},
		{FormatJSON, 200, `{"price_quote":{"amount":2.125}}`, KindQuote, "", 213}, // rounded half away from zero
		{FormatJSON, 200, `{"status":"accepted"}`, KindAccepted, "", 0},
		{FormatJSON, 202, ``, KindAccepted, "", 0},
		{FormatA2A, 200, `{"jsonrpc":"2.0","result":{"status":{"state":"working"}}}`, KindAccepted, "", 0},
		{FormatA2A, 200, `{"jsonrpc":"2.0","result":{"artifacts":[{"parts":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}]}}`, KindOutput, "x\ny", 0},
	} {
		res, err := Parse(tc.format, tc.status, []byte(tc.body))
		if err != nil || res.Kind != tc.kind || res.Output != tc.output || (tc.amount > 0 && (res.Quote == nil || res.Quote.Amount != tc.amount)) {
			t.Errorf("Parse(%s, %s) = %+v, %v", tc.format, tc.body, res, err)
		}
	}
	for _, bad := range []string{`{"jsonrpc":"2.0","error":{"code":-32601}}`, `{"price_quote":{"amount":-1}}`, `{"price_quote":{"amount":0.004}}`, `{"jsonrpc":"2.0","result":{"status":{"state":"failed"}}}`} {
		if _, err := Parse(FormatA2A, 200, []byte(bad)); err == nil {
			t.Errorf("Parse(%s) accepted", bad)
		}
	}
}
