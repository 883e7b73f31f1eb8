// Package lifecycle owns the store's execution engine and its review
// lifecycle together: it builds both, wires each to the other in one place,
// starts their background work and stops it.
//
// The review lifecycle calls the engine to capture or release a payment hold
// and to requeue and kick a denied task; the engine reaches the review
// lifecycle only through its domain events (engine.ExecutionCreated,
// engine.ExecutionFinished), subscribed in server/subscriptions.go. Neither
// is changed after it is built.
package lifecycle

import (
	"context"
	"github.com/switchboard-hq/switchboard/internal/timers"
	"log/slog"
	"strings"
	"time"

	"github.com/jonboulle/clockwork"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/breaker"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/store/dispatch"
	"github.com/switchboard-hq/switchboard/server/store/engine"
	"github.com/switchboard-hq/switchboard/server/store/payments"
	"github.com/switchboard-hq/switchboard/server/store/review"
)

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
	// FeeCheck asks a joined spoke's hub to validate a settlement's fee; nil
	// for none (review.Service.FeeCheck).
	FeeCheck func(ctx context.Context, ex *ent.Execution) *payments.HubCheck
	// Global reviews the caller's global executions through the hub; nil on
	// a hub (review.Service.Global).
	Global func(ctx context.Context, userID string, req *switchboardv1.StoreLifecycleRequest) (*switchboardv1.StoreLifecycleResponse, error)
	// Remote runs the listings synced from other instances (a hub's
	// spokes); nil for none.
	Remote engine.Remote
	// Tracer starts the spans of dispatches; nil for none.
	Tracer trace.Tracer
}

// Owner holds the engine and the review lifecycle, wired to each other.
type Owner struct {
	Engine *engine.Engine
	Review *review.Service
	// Timer auto-confirms reviews whose window ended; set by Start.
	Timer *review.Timer
	clock clockwork.Clock
}

// New builds the engine and the review lifecycle; Start starts them.
func New(cfg Config) *Owner {
	o := &Owner{clock: cfg.Clock}
	o.Engine = &engine.Engine{
		DB:    cfg.DB,
		Clock: cfg.Clock,
		Dispatch: dispatch.New(dispatch.Config{Egress: cfg.Egress, Timeout: cfg.CallTimeout,
			Breaker: breaker.Config{OpenFor: cfg.BreakerOpenFor}, Now: cfg.Now}),
		Secrets:    cfg.Secrets,
		Payments:   payments.Ledger{Now: cfg.Now},
		PublicURL:  strings.TrimSuffix(cfg.PublicURL, "/"),
		Logger:     cfg.Logger,
		SweepEvery: cfg.SweepEvery,
		Remote:     cfg.Remote,
		Tracer:     cfg.Tracer,
	}
	o.Review = &review.Service{
		DB: cfg.DB, Now: cfg.Now, Log: cfg.Logger,
		Payments: o.Engine, Requeue: o.Engine.Requeue, Kick: o.Engine.Kick,
		FeeCheck: cfg.FeeCheck, Global: cfg.Global,
	}
	return o
}

// Start starts the review windows' timer (it reads the open windows from the
// database, so a restarted server confirms what was left open) and the
// engine's recovery and timeout sweep.
func (o *Owner) Start(ctx context.Context, set *timers.Set) {
	o.Timer = o.Review.StartTimer(set)
	o.Engine.Start(ctx, set)
}

// Close stops the engine, then the timer: the reverse of the order they
// depend on one another.
func (o *Owner) Close() {
	o.Engine.Stop()
	if o.Timer != nil {
		o.Timer.Close()
	}
}
