package server

import (
	"context"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/store/dispatch"
	"github.com/switchboard-hq/switchboard/server/store/engine"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// ExecutionConfig tunes the store's execution engine.
type ExecutionConfig struct {
	// PublicURL is the instance's address as agents reach it, for the
	// callback URL sent with each task and the quote's approveUrl; empty
	// leaves them relative.
	PublicURL string
	// CallTimeout bounds one agent call; 30 s when zero.
	CallTimeout time.Duration
	// BreakerOpenFor is how long an open breaker fast-rejects; 60 s when
	// zero.
	BreakerOpenFor time.Duration
	// SweepEvery is the timeout sweep's period on the clock; 1 s when zero.
	SweepEvery time.Duration
	// Finished is called inside the transaction that ends an execution.
	Finished func(ctx context.Context, tx *ent.Tx, ex *ent.Execution) error
}

// newEngine builds the execution engine beside the store service (sharing
// its instance key).
func newEngine(cfg Config, policy egress.Policy, st *store.Service) *engine.Engine {
	x := cfg.Executions
	return &engine.Engine{
		DB:    cfg.DB,
		Clock: cfg.Clock,
		Dispatch: dispatch.New(dispatch.Config{Egress: policy, Timeout: x.CallTimeout,
			Breaker: dispatch.BreakerConfig{OpenFor: x.BreakerOpenFor}}),
		Secrets:    st.Secrets,
		Payments:   payments.Ledger{Now: cfg.now},
		PublicURL:  strings.TrimSuffix(x.PublicURL, "/"),
		Logger:     cfg.Logger,
		Finished:   x.Finished,
		SweepEvery: x.SweepEvery,
	}
}

// chainFinished runs the engine's Finished hooks in order (the review
// lifecycle's delivery, then one the configuration adds); nil ones are
// skipped.
func chainFinished(hooks ...func(ctx context.Context, tx *ent.Tx, ex *ent.Execution) error) func(ctx context.Context, tx *ent.Tx, ex *ent.Execution) error {
	return func(ctx context.Context, tx *ent.Tx, ex *ent.Execution) error {
		for _, h := range hooks {
			if h == nil {
				continue
			}
			if err := h(ctx, tx, ex); err != nil {
				return err
			}
		}
		return nil
	}
}
