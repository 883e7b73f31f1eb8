package dispatch

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"
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

type breakers struct {
	cfg BreakerConfig
	mu  sync.Mutex
	m   map[string]*breaker
}

type breaker struct {
	cb *gobreaker.CircuitBreaker[Result]
}

func newBreakers(cfg BreakerConfig) *breakers {
	if cfg.Failures == 0 {
		cfg.Failures = 5
	}
	if cfg.OpenFor <= 0 {
		cfg.OpenFor = 60 * time.Second
	}
	if cfg.Probes == 0 {
		cfg.Probes = 2
	}
	return &breakers{cfg: cfg, m: map[string]*breaker{}}
}

// get answers the breaker of a target URL, made on first use. The map grows
// with the number of distinct endpoints, which the listings bound.
func (b *breakers) get(url string) *breaker {
	b.mu.Lock()
	defer b.mu.Unlock()
	if br, ok := b.m[url]; ok {
		return br
	}
	failures := b.cfg.Failures
	br := &breaker{cb: gobreaker.NewCircuitBreaker[Result](gobreaker.Settings{
		Name:        url,
		MaxRequests: b.cfg.Probes,
		Timeout:     b.cfg.OpenFor,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= failures },
		// The caller giving up is not the agent failing.
		IsExcluded: func(err error) bool { return errors.Is(err, context.Canceled) },
	})}
	b.m[url] = br
	return br
}

func (b *breaker) run(fn func() (Result, error)) (Result, error) {
	res, err := b.cb.Execute(fn)
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return res, errors.Join(ErrOpen, err)
	}
	return res, err
}

func (b *breaker) state() string { return b.cb.State().String() }
