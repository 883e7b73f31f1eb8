// Package server composes Switchboard's HTTP surface: every service mounted once
// and served twice, as Connect RPC (Connect, gRPC, gRPC-Web) and as the REST
// mirror under /api, on one handler behind one set of middleware.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
	"golang.org/x/crypto/bcrypt"

	"github.com/switchboard-hq/switchboard/internal/alarm"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/internal/metrics"
	"github.com/switchboard-hq/switchboard/internal/replica"
	"github.com/switchboard-hq/switchboard/internal/timers"
	"github.com/switchboard-hq/switchboard/server/assistant"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/httpapi"
	"github.com/switchboard-hq/switchboard/server/learnings"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/store/engine"
	"github.com/switchboard-hq/switchboard/server/store/review"
)

// Config is what the server needs from its environment.
type Config struct {
	DB     *db.DB
	Logger *slog.Logger
	Limits gate.Limits
	// EconomyHoldLimit is the most a client may hold open on the ledger
	// across its contracts, in cents (--economy-hold-limit); 0 is no limit.
	EconomyHoldLimit int64
	// CronSecret is --cron-secret, the credential of POST
	// /api/cron/cortex-scan; empty closes the route (404).
	CronSecret string
	// BodyLimit caps request bodies; DefaultBodyLimit when zero.
	BodyLimit int64
	// BcryptCost for password hashes; bcrypt.DefaultCost when zero.
	BcryptCost int
	// Clock is business time for every service (timestamps, windows), for the
	// created_at and updated_at of every row written through DB, and the
	// timers background work sleeps on (webhook retries). Required: New fails
	// without it. The binary passes the real clock; tests a fake one they move.
	Clock clockwork.Clock
	// now is Clock's time in UTC, the one reader every service is given.
	now func() time.Time
	// AllowPrivateEndpoints lets outbound calls (webhook targets) reach
	// private, loopback and link-local addresses.
	AllowPrivateEndpoints bool
	// Heartbeat is the chat stream's heartbeat period.
	Heartbeat time.Duration
	// StreamWriteTimeout bounds each write to an event stream
	// (events.DefaultWriteTimeout when zero).
	StreamWriteTimeout time.Duration
	// LLM is the configured language model, nil when there is none. Its
	// chat, transcription and image models travel with it (--llm-model,
	// --llm-transcription-model, --llm-image-model).
	LLM *llm.Client
	// ContextTokens is the assistant's prompt budget (--llm-context-tokens),
	// known with or without a provider (the admin's prompt view assembles
	// without one); llm.DefaultContextTokens when zero.
	ContextTokens int
	// SecretKey is the instance key that seals stored secrets (store agent
	// credentials); without one, listings that need a credential are refused.
	SecretKey []byte
	// ReviewPolicy is the store's review policy; zero-gate when empty.
	ReviewPolicy store.ReviewPolicy
	// Executions tunes the store's execution engine (public URL for
	// callbacks, call timeout, breaker interval, finish hook).
	Executions ExecutionConfig
	// Federation is this instance's role and the timings of its membership.
	Federation FederationConfig
	// Tracing is --otlp-endpoint; off when its endpoint is empty.
	Tracing TracingConfig
	// TimerLease is --timer-lease: how long a replica that stopped renewing
	// its row is still taken for alive (what it holds in the database counts
	// that long after a crash), and how long a durable timer's lease lasts
	// unless renewed (internal/timers); replica.DefaultLease when zero.
	TimerLease time.Duration
	// Metrics is this server's registry (GET /metrics), one per server: the
	// binary serves the same on --debug-addr. New makes one when nil.
	Metrics *metrics.Metrics
	// MetricsToken is --metrics-token: when set, the main address also
	// serves GET /metrics to "Authorization: Bearer <token>".
	MetricsToken string
}

// FederationConfig is --role and the federation timings (flags, so tests
// can make them short).
type FederationConfig struct {
	// Role is "standalone" (default) or "hub".
	Role string
	// HeartbeatInterval is how often a joined spoke sends a heartbeat.
	HeartbeatInterval time.Duration
	// StaleAfter is how long a hub waits for a heartbeat before listing a
	// spoke as stale.
	StaleAfter time.Duration
	// RetrySchedule is the outbox's delays between attempts of a federation
	// delivery; the documented 30 s, 2 min, 8 min when empty.
	RetrySchedule []time.Duration
	// AuditRetention is how long federation audit rows are kept
	// (--audit-retention); audit.DefaultRetention when zero.
	AuditRetention time.Duration
	// Network is the operator network's switch (--federation,
	// --federation-allowlist, --federation-allow-private).
	Network network.Config
}

func (c *Config) defaults() {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.BodyLimit <= 0 {
		c.BodyLimit = httpapi.DefaultBodyLimit
	}
	if c.ContextTokens <= 0 {
		c.ContextTokens = llm.DefaultContextTokens
	}
	if c.BcryptCost == 0 {
		c.BcryptCost = bcrypt.DefaultCost
	}
	clock := c.Clock
	c.now = func() time.Time { return clock.Now().UTC() }
	if c.Heartbeat <= 0 {
		c.Heartbeat = 30 * time.Second
	}
	if c.Metrics == nil {
		c.Metrics = metrics.New()
	}
}

// App is the whole HTTP surface plus the background work behind it (event
// fan-out, webhook delivery). Close stops that work; call it once the HTTP
// server has stopped taking requests.
type App struct {
	http.Handler
	// Events is the shared-chat event bus.
	Events *events.Bus
	// Review is the store's review lifecycle (the engine's Finished hook).
	Review *review.Service
	// Engine runs store executions (hooks for the review lifecycle).
	Engine *engine.Engine
	// Assistant runs the assistant's action tags.
	Assistant *assistant.Executor
	// Economy is the task economy's timer (delivered contracts closing
	// themselves, review windows ending): tests Wake it after moving the
	// clock.
	Economy *alarm.Loop
	// Digests tells the quiet-hours and linked-card digests when they are
	// due: tests Wake it after moving the clock.
	Digests *alarm.Loop
	// Learnings are the daily analysis and the signals' retention: tests
	// Wake them after moving the clock.
	Learnings *learnings.Timers
	// Renewals renews platform teams' plans (a hub only; nil elsewhere):
	// tests Wake it after moving the clock.
	Renewals *alarm.Loop
	// BoardScan is the board scan every 6 hours (internal/periodic, once
	// across replicas): tests Wake it after moving the clock.
	BoardScan *alarm.Loop
	// Timers is the registry of the durable timers, each run under its
	// lease (once across replicas); Drain releases the leases.
	Timers *timers.Set
	// Replica is this process among the replicas sharing the database: its
	// ID names the rows it holds, its Lease is --timer-lease.
	Replica *replica.Registry
	tracing *tracing
	mu      sync.Mutex
	closers []func()
	// drainers end the open streams with a reconnect hint (Drain).
	drainers []func()
	drained  bool
}

// Drain prepares a replica's shutdown once its listener has closed: every
// open stream ends with a reconnect hint (SSE streams, the chat's, A2A's and
// MCP's GET stream, get a retry: and an event: reconnect; Connect streams end
// unavailable) and new ones are refused, and the durable timers stop with
// their leases released, so another replica takes them at once rather than
// when they lapse; requests in flight go on until Close. Calling it again
// does nothing.
func (a *App) Drain(ctx context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.drained {
		return
	}
	a.drained = true
	for _, drain := range a.drainers {
		drain()
	}
	if a.Timers != nil {
		a.Timers.Drain()
	}
	_ = ctx
}

// Close stops the background work, last started first, and ends the open
// event streams. It may be called more than once, and concurrently (the HTTP
// server's shutdown hook and a deferred call).
func (a *App) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	a.closers = nil
}

// New builds the whole HTTP handler and starts its background work: the
// parts, built whole in the order of what they need (wiring.go); the one
// subscription table (subscriptions.go); the routes (routes.go, mount.go).
func New(cfg Config) (*App, error) {
	if cfg.Clock == nil {
		return nil, errors.New("server: Config.Clock is required (business time for every service)")
	}
	cfg.defaults()
	// Rows are stamped from the same clock as everything else.
	cfg.DB.SetClock(cfg.now)
	app := &App{}
	h := &house{cfg: cfg}
	if err := h.build(app); err != nil {
		app.Close()
		return nil, err
	}
	cfg.DB.Subscribe(subscriptions(h)...)
	handler, err := h.routes()
	if err != nil {
		app.Close()
		return nil, err
	}
	app.Handler = handler
	h.start(app)
	if err := h.measure(app); err != nil {
		app.Close()
		return nil, err
	}
	return app, nil
}
