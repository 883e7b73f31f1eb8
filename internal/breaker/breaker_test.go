package breaker

import (
	"testing"
	"time"
)

// clock is a fake clock the tests set.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// RULINGS "Shared chat and events" (the outbox) and document 2 "Circuit
// breaker states" (the store's dispatch): a breaker per target, 5 failures
// open it, it stays open 60 s, 2 successes close it: the defaults.
func TestThresholds(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	c := &clock{t0}
	const a, b = "https://a.example/hook", "https://b.example/hook"
	br := New(Config{}, c.now)
	call := func(url string, at time.Time, o Outcome) {
		t.Helper()
		c.t = at
		ticket, _, ok := br.Allow(url)
		if !ok {
			t.Fatalf("%s refused at %s", url, at.Sub(t0))
		}
		br.Record(ticket, o)
	}
	fail := func(url string, at time.Time) { t.Helper(); call(url, at, Failure) }
	succeed := func(url string, at time.Time) { t.Helper(); call(url, at, Success) }
	allow := func(url string, at time.Time) (bool, time.Time) {
		c.t = at
		_, until, ok := br.Allow(url)
		return ok, until
	}

	// A success in between resets the count: failures must be consecutive.
	for range 4 {
		fail(a, t0)
	}
	succeed(a, t0)
	for range 4 {
		fail(a, t0)
	}
	if br.State(a) != Closed {
		t.Fatal("4 consecutive failures opened the breaker")
	}
	fail(a, t0)
	if br.State(a) != Open {
		t.Fatal("5 consecutive failures left the breaker closed")
	}
	// Per URL: b is unaffected.
	if ok, _ := allow(b, t0); !ok {
		t.Fatal("another URL's breaker opened with a's")
	}
	// Open for 60 s from the fifth failure.
	if ok, until := allow(a, t0.Add(59*time.Second)); ok || !until.Equal(t0.Add(60*time.Second)) {
		t.Fatalf("at +59s: ok=%v until=%s, want refused until +60s", ok, until.Sub(t0))
	}
	// Half-open at +60 s; one failure there opens it for another 60 s.
	fail(a, t0.Add(60*time.Second))
	if ok, until := allow(a, t0.Add(61*time.Second)); ok || !until.Equal(t0.Add(120*time.Second)) {
		t.Fatalf("a half-open failure: ok=%v until=%s, want open until +120s", ok, until.Sub(t0))
	}
	// Half-open again: one success is not enough to close...
	succeed(a, t0.Add(120*time.Second))
	if br.State(a) != HalfOpen {
		t.Fatalf("after 1 half-open success state = %s, want half-open", br.State(a))
	}
	// ...two are.
	succeed(a, t0.Add(120*time.Second))
	if br.State(a) != Closed {
		t.Fatalf("after 2 half-open successes state = %s, want closed", br.State(a))
	}
	// Closed means counting from zero: 4 failures do not open it.
	for range 4 {
		fail(a, t0.Add(121*time.Second))
	}
	if br.State(a) != Closed {
		t.Fatal("failures before the close were still counted")
	}
}

// With CapProbes a half-open breaker lets Probes calls through at once and
// refuses the rest until one is recorded; an abandoned call frees its place
// without counting.
func TestCappedProbes(t *testing.T) {
	c := &clock{time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	br := New(Config{Failures: 1, OpenFor: time.Minute, Probes: 2, CapProbes: true}, c.now)
	const u = "http://agent.example/run"
	first, _, _ := br.Allow(u)
	br.Record(first, Failure)
	if br.State(u) != Open {
		t.Fatalf("state %s after the failure, want open", br.State(u))
	}
	c.t = c.t.Add(time.Minute)
	p1, _, ok1 := br.Allow(u)
	p2, _, ok2 := br.Allow(u)
	_, until, ok3 := br.Allow(u)
	if !ok1 || !ok2 || ok3 || !until.IsZero() {
		t.Fatalf("half-open: let %v %v %v (until %v), want the first two through and the third refused with no time", ok1, ok2, ok3, until)
	}
	br.Record(p1, Abandoned)
	p3, _, ok := br.Allow(u)
	if !ok {
		t.Fatal("an abandoned probe did not free its place")
	}
	br.Record(p2, Success)
	if br.State(u) != HalfOpen {
		t.Fatalf("one success: state %s, want half-open (the abandoned call did not count)", br.State(u))
	}
	br.Record(p3, Success)
	if br.State(u) != Closed {
		t.Fatalf("two successes: state %s, want closed", br.State(u))
	}
}

// A call let through before a change of state does not count in the new one:
// a slow failure that started while closed does not reopen a breaker that has
// since closed again.
func TestStaleCallsDoNotCount(t *testing.T) {
	c := &clock{time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	br := New(Config{Failures: 2, OpenFor: time.Minute, Probes: 1}, c.now)
	const u = "http://agent.example/run"
	slow, _, _ := br.Allow(u)
	for range 2 {
		tk, _, _ := br.Allow(u)
		br.Record(tk, Failure)
	}
	c.t = c.t.Add(time.Minute)
	probe, _, _ := br.Allow(u)
	br.Record(probe, Success)
	br.Record(slow, Failure)
	tk, _, _ := br.Allow(u)
	br.Record(tk, Failure)
	if br.State(u) != Closed {
		t.Fatalf("state %s: the stale failure counted towards opening the breaker again", br.State(u))
	}
}
