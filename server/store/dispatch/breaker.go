package dispatch

import (
	"context"
	"errors"
	"sync"
	"time"
)

// BreakerConfig tunes the per-target breakers (docs/decisions.md
// "Store limits"): Failures consecutive failures open it, it fast-rejects for
// OpenFor, then half-opens and lets Probes calls through; that many
// successes close it, a failure opens it again.
type BreakerConfig struct {
	Failures uint32        // 5 when zero
	OpenFor  time.Duration // 60 s when zero; tests shorten it
	Probes   uint32        // 2 when zero
}

// breakers keeps one breaker per target URL on the injected clock.
// sony/gobreaker, used here before, reads the wall clock and has no hook for
// another, so its open period could not follow the clock the rest of the
// server runs on; the state machine is small (the webhooks' breaker made the
// same choice).
type breakers struct {
	cfg BreakerConfig
	now func() time.Time
	mu  sync.Mutex
	m   map[string]*breaker
}

type breakerState int

const (
	closed breakerState = iota
	open
	halfOpen
)

var stateNames = [...]string{closed: "closed", open: "open", halfOpen: "half-open"}

type breaker struct {
	cfg *BreakerConfig
	now func() time.Time

	mu        sync.Mutex
	state     breakerState
	failures  uint32 // consecutive, while closed
	successes uint32 // while half-open
	inFlight  uint32 // probes running, while half-open
	openUntil time.Time
	// generation changes on every state change, so a call that started in
	// an earlier state does not count in the new one.
	generation uint64
}

func newBreakers(cfg BreakerConfig, now func() time.Time) *breakers {
	if cfg.Failures == 0 {
		cfg.Failures = 5
	}
	if cfg.OpenFor <= 0 {
		cfg.OpenFor = 60 * time.Second
	}
	if cfg.Probes == 0 {
		cfg.Probes = 2
	}
	if now == nil {
		now = time.Now //nolint:forbidigo // a Dispatcher made without the server's clock: package tests
	}
	return &breakers{cfg: cfg, now: now, m: map[string]*breaker{}}
}

// get answers the breaker of a target URL, made on first use. The map grows
// with the number of distinct endpoints, which the listings bound.
func (b *breakers) get(url string) *breaker {
	b.mu.Lock()
	defer b.mu.Unlock()
	if br, ok := b.m[url]; ok {
		return br
	}
	br := &breaker{cfg: &b.cfg, now: b.now}
	b.m[url] = br
	return br
}

// current moves an open breaker whose period ended to half-open; the caller
// holds mu.
func (b *breaker) current() {
	if b.state == open && !b.now().Before(b.openUntil) {
		b.set(halfOpen)
	}
}

func (b *breaker) set(s breakerState) {
	b.state, b.failures, b.successes, b.inFlight = s, 0, 0, 0
	b.generation++
	if s == open {
		b.openUntil = b.now().Add(b.cfg.OpenFor)
	}
}

// admit lets a call through or refuses it; ok answers its generation.
func (b *breaker) admit() (gen uint64, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.current()
	switch {
	case b.state == open:
		return 0, false
	case b.state == halfOpen && b.inFlight >= b.cfg.Probes:
		return 0, false
	case b.state == halfOpen:
		b.inFlight++
	}
	return b.generation, true
}

func (b *breaker) record(gen uint64, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if gen != b.generation {
		return
	}
	// The caller giving up is not the agent failing.
	if errors.Is(err, context.Canceled) {
		if b.state == halfOpen {
			b.inFlight--
		}
		return
	}
	switch {
	case err == nil && b.state == halfOpen:
		b.successes++
		if b.successes >= b.cfg.Probes {
			b.set(closed)
		}
	case err == nil:
		b.failures = 0
	case b.state == halfOpen:
		b.set(open)
	default:
		b.failures++
		if b.failures >= b.cfg.Failures {
			b.set(open)
		}
	}
}

func (b *breaker) run(fn func() (Result, error)) (Result, error) {
	gen, ok := b.admit()
	if !ok {
		return Result{}, ErrOpen
	}
	res, err := fn()
	b.record(gen, err)
	return res, err
}

func (b *breaker) stateName() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.current()
	return stateNames[b.state]
}
