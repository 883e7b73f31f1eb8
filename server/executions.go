package server

import (
	"context"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/federation/hub"
	"github.com/switchboard-hq/switchboard/server/federation/spoke"
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
	// Finished is called inside the transaction that ends an execution,
	// after the product's own subscribers (tests watch executions end).
	Finished func(ctx context.Context, tx *db.Tx, ex *ent.Execution) error
}

// newLifecycle builds the store's execution engine and review lifecycle
// beside the store service (sharing its instance key). A joined spoke asks
// its hub's validate-payment before settling its own listings' payments, and
// reviews its users' global executions through the hub; a hub reviews its
// spokes' users' global executions itself.
func newLifecycle(cfg Config, policy egress.Policy, box *secrets.Box, hub *hub.Core, remote *hub.Remote, spoke *spoke.Admin, tr *tracing) *lifecycle.Owner {
	x := cfg.Executions
	lc := lifecycle.Config{
		DB: cfg.DB, Now: cfg.now, Clock: cfg.Clock, Logger: cfg.Logger, Egress: policy,
		Secrets: box, PublicURL: x.PublicURL, Tracer: tr.tracer(),
		CallTimeout: x.CallTimeout, BreakerOpenFor: x.BreakerOpenFor, SweepEvery: x.SweepEvery,
		Remote: remote, FeeCheck: spoke.CheckFee,
	}
	if !hub.Serving {
		lc.Global = spoke.ReviewGlobal
	}
	return lifecycle.New(lc)
}
