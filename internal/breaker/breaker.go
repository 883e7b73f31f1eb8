// Package breaker keeps one circuit breaker per target on an injected clock:
// consecutive failures open a target's breaker, which refuses calls for a
// while, then half-opens and lets calls through as probes, whose successes
// close it and whose failure opens it again. The outbox's deliveries and the
// store's dispatch share it. sony/gobreaker and its kin read the wall clock
// and have no hook for another, so their open period could follow neither the
// tests' fake clock nor the retry schedule that runs on the injected one; the
// state machine is small.
package breaker

import (
	"sync"
	"time"
)

// Config tunes the breakers; a zero field takes its default.
type Config struct {
	Failures uint32        // consecutive failures that open a breaker: 5
	OpenFor  time.Duration // how long it refuses before it half-opens: 60 s
	Probes   uint32        // half-open successes that close it: 2
	// CapProbes lets at most Probes calls through at once while half-open
	// (the rest are refused until one is recorded); without it every call
	// then goes through and counts.
	CapProbes bool
}

// State is where a target's breaker stands.
type State int

const (
	Closed State = iota
	Open
	HalfOpen
)

func (s State) String() string {
	return [...]string{Closed: "closed", Open: "open", HalfOpen: "half-open"}[s]
}

// Outcome is what became of a call let through.
type Outcome int

const (
	Success Outcome = iota
	Failure
	// Abandoned: the caller gave up (its own cancellation), which says
	// nothing of the target.
	Abandoned
)

// Set holds the breakers, one per target, made on first use; the map grows
// with the number of distinct targets, which their owners bound (listings,
// subscriptions, connections). Safe for concurrent use.
type Set struct {
	cfg Config
	now func() time.Time
	mu  sync.Mutex
	m   map[string]*breaker
}

type breaker struct {
	state     State
	failures  uint32 // consecutive, while closed
	successes uint32 // while half-open
	inFlight  uint32 // probes let through and not yet recorded, while half-open
	openUntil time.Time
	// generation changes with every change of state, so a call let through
	// in an earlier state does not count in the new one.
	generation uint64
}

// New makes a Set on the clock now.
func New(cfg Config, now func() time.Time) *Set {
	if cfg.Failures == 0 {
		cfg.Failures = 5
	}
	if cfg.OpenFor <= 0 {
		cfg.OpenFor = 60 * time.Second
	}
	if cfg.Probes == 0 {
		cfg.Probes = 2
	}
	return &Set{cfg: cfg, now: now, m: map[string]*breaker{}}
}

// Ticket is a call Allow let through; Record it once.
type Ticket struct {
	b   *breaker
	gen uint64
}

// Allow lets a call to target through, or refuses it; a refusal by an open
// breaker says until when (zero for a half-open one busy with its probes).
func (s *Set) Allow(target string) (t Ticket, until time.Time, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.get(target)
	s.current(b)
	switch {
	case b.state == Open:
		return Ticket{}, b.openUntil, false
	case b.state == HalfOpen && s.cfg.CapProbes && b.inFlight >= s.cfg.Probes:
		return Ticket{}, time.Time{}, false
	case b.state == HalfOpen:
		b.inFlight++
	}
	return Ticket{b: b, gen: b.generation}, time.Time{}, true
}

// Record counts the outcome of a call Allow let through.
func (s *Set) Record(t Ticket, o Outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := t.b
	if b == nil || t.gen != b.generation {
		return
	}
	if b.state == HalfOpen {
		b.inFlight--
	}
	switch {
	case o == Abandoned:
	case o == Success && b.state == HalfOpen:
		b.successes++
		if b.successes >= s.cfg.Probes {
			s.set(b, Closed)
		}
	case o == Success:
		b.failures = 0
	case b.state == HalfOpen:
		s.set(b, Open)
	default:
		b.failures++
		if b.failures >= s.cfg.Failures {
			s.set(b, Open)
		}
	}
}

// State answers where target's breaker stands now.
func (s *Set) State(target string) State {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.get(target)
	s.current(b)
	return b.state
}

// get answers target's breaker; s.mu is held.
func (s *Set) get(target string) *breaker {
	b, ok := s.m[target]
	if !ok {
		b = &breaker{}
		s.m[target] = b
	}
	return b
}

// current half-opens an open breaker whose period has ended; s.mu is held.
func (s *Set) current(b *breaker) {
	if b.state == Open && !s.now().Before(b.openUntil) {
		s.set(b, HalfOpen)
	}
}

func (s *Set) set(b *breaker, st State) {
	b.state, b.failures, b.successes, b.inFlight = st, 0, 0, 0
	b.generation++
	if st == Open {
		b.openUntil = s.now().Add(s.cfg.OpenFor)
	}
}
