package server

import (
	"context"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/store/lifecycle"
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
	Finished func(ctx context.Context, tx *db.Tx, ex *ent.Execution) error
}

// newLifecycle builds the store's execution engine and review lifecycle
// beside the store service (sharing its instance key).
// A hub runs listings synced from its spokes by dispatching to them; a spoke
// sends the results of its hub's dispatches back when they end. Both sides
// get the engine here, so the hub takes results and the spoke executions.
func newLifecycle(cfg Config, policy egress.Policy, st *store.Service, fed *federationParts) *lifecycle.Owner {
	x := cfg.Executions
	// A spoke returns its hub's dispatches; a hub delivers its spokes' users'
	// global executions; then the configured hook.
	hooks := []lifecycle.Hook{fed.spoke.Finished, fed.hub.Finished}
	if x.Finished != nil {
		hooks = append(hooks, x.Finished)
	}
	finished := func(ctx context.Context, tx *db.Tx, ex *ent.Execution) error {
		for _, h := range hooks {
			if err := h(ctx, tx, ex); err != nil {
				return err
			}
		}
		return nil
	}
	o := lifecycle.New(lifecycle.Config{
		DB: cfg.DB, Now: cfg.now, Clock: cfg.Clock, Logger: cfg.Logger, Egress: policy,
		Secrets: st.Secrets, PublicURL: x.PublicURL,
		CallTimeout: x.CallTimeout, BreakerOpenFor: x.BreakerOpenFor, SweepEvery: x.SweepEvery,
		Finished: finished, Remote: fed.hub,
	})
	fed.hub.Engine, fed.spoke.Engine = o.Engine, o.Engine
	// A hub reviews its spokes' users' global executions with the review
	// lifecycle; elsewhere, a review of a global execution goes to the hub.
	fed.hub.Review = o.Review
	if !fed.hub.Serving {
		o.Review.Global = fed.spoke.ReviewGlobal
	}
	// A joined spoke asks its hub's validate-payment before settling its
	// own listings' payments.
	o.Review.FeeCheck = fed.spoke.CheckFee
	return o
}
