package webhooks

import (
	"testing"
	"time"
)

// RULINGS "Shared chat and events": a breaker per target URL, 5 failures
// open it, it stays open 60 s, 2 successes close it.
func TestBreakerThresholds(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	const a, b = "https://a.example/hook", "https://b.example/hook"
	br := newBreakers()
	fail := func(url string, at time.Time) {
		t.Helper()
		if ok, _ := br.allow(url, at); !ok {
			t.Fatalf("%s refused at %s", url, at.Sub(t0))
		}
		br.record(url, false, at)
	}
	succeed := func(url string, at time.Time) {
		t.Helper()
		if ok, _ := br.allow(url, at); !ok {
			t.Fatalf("%s refused at %s", url, at.Sub(t0))
		}
		br.record(url, true, at)
	}

	// A success in between resets the count: failures must be consecutive.
	for range 4 {
		fail(a, t0)
	}
	succeed(a, t0)
	for range 4 {
		fail(a, t0)
	}
	if br.state(a) != closed {
		t.Fatal("4 consecutive failures opened the breaker")
	}
	fail(a, t0)
	if br.state(a) != open {
		t.Fatal("5 consecutive failures left the breaker closed")
	}
	// Per URL: b is unaffected.
	if ok, _ := br.allow(b, t0); !ok {
		t.Fatal("another URL's breaker opened with a's")
	}
	// Open for 60 s from the fifth failure.
	if ok, until := br.allow(a, t0.Add(59*time.Second)); ok || !until.Equal(t0.Add(60*time.Second)) {
		t.Fatalf("at +59s: ok=%v until=%s, want refused until +60s", ok, until.Sub(t0))
	}
	// Half-open at +60 s; one failure there opens it for another 60 s.
	fail(a, t0.Add(60*time.Second))
	if ok, until := br.allow(a, t0.Add(61*time.Second)); ok || !until.Equal(t0.Add(120*time.Second)) {
		t.Fatalf("a half-open failure: ok=%v until=%s, want open until +120s", ok, until.Sub(t0))
	}
	// Half-open again: one success is not enough to close...
	succeed(a, t0.Add(120*time.Second))
	if br.state(a) != halfOpen {
		t.Fatalf("after 1 half-open success state = %d, want half-open", br.state(a))
	}
	// ...two are.
	succeed(a, t0.Add(120*time.Second))
	if br.state(a) != closed {
		t.Fatalf("after 2 half-open successes state = %d, want closed", br.state(a))
	}
	// Closed means counting from zero: 4 failures do not open it.
	for range 4 {
		fail(a, t0.Add(121*time.Second))
	}
	if br.state(a) != closed {
		t.Fatal("failures before the close were still counted")
	}
}
