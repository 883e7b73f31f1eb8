package webhooks

import (
	"sync"
	"time"
)

// breakers keeps one circuit breaker per target URL, on the injected clock.
// gobreaker and its kin read the wall clock, which would make the 60-s open
// period untestable without waiting it out and would disagree with the retry
// schedule, which runs on the injected clock; the state machine is small.
type breakers struct {
	mu sync.Mutex
	m  map[string]*breaker
}

type breakerState int

const (
	closed breakerState = iota
	open
	halfOpen
)

type breaker struct {
	state     breakerState
	failures  int // consecutive, while closed
	successes int // consecutive, while half-open
	openUntil time.Time
}

func newBreakers() *breakers { return &breakers{m: map[string]*breaker{}} }

// allow says whether a delivery to url may go now; when not, until is when
// the breaker half-opens.
func (b *breakers) allow(url string, now time.Time) (ok bool, until time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	br := b.m[url]
	if br == nil || br.state != open {
		return true, time.Time{}
	}
	if now.Before(br.openUntil) {
		return false, br.openUntil
	}
	br.state, br.successes = halfOpen, 0
	return true, time.Time{}
}

// record counts the outcome of a delivery that allow let through.
func (b *breakers) record(url string, ok bool, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	br := b.m[url]
	if br == nil {
		if ok {
			return // closed with no failures: nothing to remember
		}
		br = &breaker{}
		b.m[url] = br
	}
	switch {
	case ok && br.state == halfOpen:
		br.successes++
		if br.successes >= breakerSuccesses {
			delete(b.m, url) // closed, counts cleared
		}
	case ok:
		delete(b.m, url)
	case br.state == halfOpen:
		br.state, br.openUntil = open, now.Add(breakerOpen)
	case br.state == closed:
		br.failures++
		if br.failures >= breakerFailures {
			br.state, br.openUntil, br.failures = open, now.Add(breakerOpen), 0
		}
	}
}

// state reads a breaker, for tests.
func (b *breakers) state(url string) breakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	if br := b.m[url]; br != nil {
		return br.state
	}
	return closed
}
