// Package lifecycle owns the store's execution engine and its review
// lifecycle together: it builds both, wires each to the other in one place,
// starts their background work and stops it.
//
// The two depend on each other: the engine calls the review lifecycle inside
// the transactions that create and finish an execution (to open the
// requester's queue item and deliver the result), and the review lifecycle
// calls the engine to capture or release a payment hold and to requeue and
// kick a denied task. The Owner's own methods stand between them, so neither
// is changed after it is built.
package lifecycle

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/store/dispatch"
	"github.com/switchboard-hq/switchboard/server/store/engine"
	"github.com/switchboard-hq/switchboard/server/store/payments"
	"github.com/switchboard-hq/switchboard/server/store/review"
)

// Hook runs inside the transaction that creates or finishes an execution.
type Hook func(ctx context.Context, tx *db.Tx, ex *ent.Execution) error

// Config is what the engine and the review lifecycle need.
type Config struct {
	DB     *db.DB
	Now    func() time.Time
	Clock  clockwork.Clock
	Logger *slog.Logger
	Egress egress.Policy
	// Secrets opens agent credentials; nil when the instance has no key.
	Secrets *secrets.Box
	// PublicURL prefixes the callback and approve URLs ("" leaves them
	// relative).
	PublicURL string
	// CallTimeout bounds one agent call; BreakerOpenFor is how long an open
	// breaker fast-rejects; SweepEvery is the timeout sweep's period. Each
	// takes its package's default when zero.
	CallTimeout, BreakerOpenFor, SweepEvery time.Duration
	// Finished runs after the review lifecycle's delivery, inside the
	// transaction that ends an execution; nil for none.
	Finished Hook
	// Remote runs the listings synced from other instances (a hub's
	// spokes); nil for none.
	Remote engine.Remote
}

// Owner holds the engine and the review lifecycle, wired to each other.
type Owner struct {
	Engine *engine.Engine
	Review *review.Service
	// Timer auto-confirms reviews whose window ended; set by Start.
	Timer    *review.Timer
	finished Hook
	clock    clockwork.Clock
}

// New builds the engine and the review lifecycle; Start starts them.
func New(cfg Config) *Owner {
	o := &Owner{finished: cfg.Finished, clock: cfg.Clock}
	o.Engine = &engine.Engine{
		DB:    cfg.DB,
		Clock: cfg.Clock,
		Dispatch: dispatch.New(dispatch.Config{Egress: cfg.Egress, Timeout: cfg.CallTimeout,
			Breaker: dispatch.BreakerConfig{OpenFor: cfg.BreakerOpenFor}, Now: cfg.Now}),
		Secrets:    cfg.Secrets,
		Payments:   payments.Ledger{Now: cfg.Now},
		PublicURL:  strings.TrimSuffix(cfg.PublicURL, "/"),
		Logger:     cfg.Logger,
		Finished:   o.executionFinished,
		Created:    o.executionCreated,
		SweepEvery: cfg.SweepEvery,
		Remote:     cfg.Remote,
	}
	o.Review = &review.Service{
		DB: cfg.DB, Now: cfg.Now, Log: cfg.Logger,
		Payments: o.Engine, Requeue: o.Engine.Requeue, Kick: o.Engine.Kick,
	}
	return o
}

// executionCreated opens the requester's queue item of a marketplace task.
func (o *Owner) executionCreated(ctx context.Context, tx *db.Tx, ex *ent.Execution) error {
	return o.Review.Created(ctx, tx, ex)
}

// executionFinished delivers the result for review, then runs the
// configured hook.
func (o *Owner) executionFinished(ctx context.Context, tx *db.Tx, ex *ent.Execution) error {
	if err := o.Review.Finished(ctx, tx, ex); err != nil {
		return err
	}
	if o.finished == nil {
		return nil
	}
	return o.finished(ctx, tx, ex)
}

// Start starts the review windows' timer (it reads the open windows from the
// database, so a restarted server confirms what was left open) and the
// engine's recovery and timeout sweep.
func (o *Owner) Start(ctx context.Context) {
	o.Timer = o.Review.StartTimer(o.clock)
	o.Engine.Start(ctx)
}

// Close stops the engine, then the timer: the reverse of the order they
// depend on one another.
func (o *Owner) Close() {
	o.Engine.Stop()
	if o.Timer != nil {
		o.Timer.Close()
	}
}
