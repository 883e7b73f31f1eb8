// Package server composes Switchboard's HTTP surface: every service mounted once
// and served twice, as Connect RPC (Connect, gRPC, gRPC-Web) and as the REST
// mirror under /api, on one handler behind one set of middleware.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/jonboulle/clockwork"
	"github.com/klauspost/compress/gzhttp"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/gen/openapi"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/a2a"
	"github.com/switchboard-hq/switchboard/server/accounts"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/assistant"
	"github.com/switchboard-hq/switchboard/server/assistant/prompt"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/capabilities"
	"github.com/switchboard-hq/switchboard/server/capgate"
	"github.com/switchboard-hq/switchboard/server/chat"
	"github.com/switchboard-hq/switchboard/server/contacts"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/developer"
	"github.com/switchboard-hq/switchboard/server/documents"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/federation/audit"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/httpapi"
	"github.com/switchboard-hq/switchboard/server/idempotency"
	"github.com/switchboard-hq/switchboard/server/input"
	"github.com/switchboard-hq/switchboard/server/kanban"
	"github.com/switchboard-hq/switchboard/server/keys"
	"github.com/switchboard-hq/switchboard/server/mcp"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/queue"
	"github.com/switchboard-hq/switchboard/server/settings"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/store/engine"
	"github.com/switchboard-hq/switchboard/server/store/review"
	"github.com/switchboard-hq/switchboard/server/updates"
	"github.com/switchboard-hq/switchboard/server/webhooks"
	"github.com/switchboard-hq/switchboard/server/widgets"
	"github.com/switchboard-hq/switchboard/web"
)

// Config is what the server needs from its environment.
type Config struct {
	DB     *db.DB
	Logger *slog.Logger
	Limits gate.Limits
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
}

// services is every service implementation; each serves both transports.
type services struct {
	accounts *accounts.Service
	activity *activity.Service
	caps     *capabilities.Service
	chat     *chat.Service
	contacts *contacts.Service
	docs     *documents.Service
	events   *events.Service
	kanban   *kanban.Service
	keys     *keys.Service
	queue    *queue.Service
	settings *settings.Service
	store    *store.Service
	dev      *developer.Service
	review   *review.Service
	execs    *engine.Service
	updates  *updates.Service
	widgets  *widgets.Service
	handoff  *a2a.Handoff
	hub      *federation.Hub
	spoke    *federation.Spoke
	audit    *audit.Service
	network  *network.Service
	// assistant runs the assistant's action tags.
	assistant *assistant.Executor
	// conversation is the operator's chat with the assistant (and its tags).
	conversation *assistant.Service
	// prompt shows the admin the assistant's assembled prompt.
	prompt *prompt.Service
	// recorder writes the federation audit log (inbound and outbound).
	recorder *audit.Recorder
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
	tracing   *tracing
	mu        sync.Mutex
	closers   []func()
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

// New builds the whole HTTP handler and starts its background work.
func New(cfg Config) (*App, error) {
	if cfg.Clock == nil {
		return nil, errors.New("server: Config.Clock is required (business time for every service)")
	}
	cfg.defaults()
	// Rows are stamped from the same clock as everything else.
	cfg.DB.SetClock(cfg.now)
	table, err := contract.Load()
	if err != nil {
		return nil, err
	}
	upd, err := updates.New(cfg.now)
	if err != nil {
		return nil, err
	}
	resolver := &auth.Resolver{DB: cfg.DB.Client, Now: cfg.now}
	bus, err := events.New(events.Config{DB: cfg.DB, Now: cfg.now, Logger: cfg.Logger, Heartbeat: cfg.Heartbeat,
		WriteTimeout: cfg.StreamWriteTimeout, Lapsed: resolver.Lapsed})
	if err != nil {
		return nil, err
	}
	app := &App{Events: bus, closers: []func(){bus.Close}}
	if app.tracing, err = newTracing(cfg); err != nil {
		app.Close()
		return nil, err
	}
	if app.tracing != nil {
		// First in, so last out: the spans of everything else are flushed.
		app.closers = append([]func(){app.tracing.shutdown}, app.closers...)
	}
	egressPolicy := egress.Policy{AllowPrivate: cfg.AllowPrivateEndpoints}
	// The gate also limits guesses at the store's and the packs' passwords,
	// and the network's handshakes per calling origin.
	g := gate.New(table, resolver, cfg.Limits)
	storeSvc, err := newStore(cfg, egressPolicy, g)
	if err != nil {
		return nil, err
	}
	fed, err := newFederation(cfg, storeSvc, egressPolicy, app.tracing, g)
	if err != nil {
		app.Close()
		return nil, err
	}
	executions := newLifecycle(cfg, egressPolicy, storeSvc, fed)
	executions.Engine.Tracer = app.tracing.tracer()
	svc := services{
		hub: fed.hub, spoke: fed.spoke, audit: fed.audit, recorder: fed.recorder, network: fed.network,
		accounts: &accounts.Service{DB: cfg.DB, Now: cfg.now, BcryptCost: cfg.BcryptCost, Ended: bus.EndStreams},
		activity: &activity.Service{DB: cfg.DB.Client},
		chat:     &chat.Service{DB: cfg.DB, Now: cfg.now},
		contacts: &contacts.Service{DB: cfg.DB, Now: cfg.now},
		docs:     &documents.Service{DB: cfg.DB, Now: cfg.now},
		events:   &events.Service{Bus: bus},
		kanban:   &kanban.Service{DB: cfg.DB, Now: cfg.now},
		keys:     &keys.Service{DB: cfg.DB.Client, Now: cfg.now, Changed: resolver.Forget, Ended: bus.EndStreams},
		queue:    &queue.Service{DB: cfg.DB, Now: cfg.now, LLM: cfg.LLM},
		settings: &settings.Service{DB: cfg.DB, Now: cfg.now, Egress: egressPolicy},
		store:    storeSvc,
		review:   executions.Review,
		execs:    &engine.Service{Engine: executions.Engine, Global: fed.global()},
		updates:  upd,
		handoff:  &a2a.Handoff{DB: cfg.DB, Now: cfg.now},
		caps: &capabilities.Service{DB: cfg.DB, Now: cfg.now, Secrets: storeSvc.Secrets,
			Gate: &capgate.Resolver{DB: cfg.DB.Client}, Guesses: g},
	}
	// A request relay becomes a queue item; the item's moves go back to the
	// relay's sender (server/network).
	svc.network.Queue = svc.queue
	svc.queue.Removed = svc.network.ItemRemoved
	// A linked card's status and priority go to the peer's instance.
	svc.kanban.Changed = svc.network.CardChanged
	svc.widgets = &widgets.Service{DB: cfg.DB, Now: cfg.now, Queue: svc.queue, Egress: egressPolicy}
	svc.assistant = assistant.New(assistant.Services{Queue: svc.queue, Kanban: svc.kanban, Settings: svc.settings, Store: svc.store,
		Executions: svc.execs, Links: svc.kanban, Checklists: svc.kanban, Tasks: svc.queue, Relays: svc.network, Jobs: svc.network}, &capgate.Resolver{DB: cfg.DB.Client}, cfg.Logger)
	svc.assistant.LLM, svc.assistant.DB, svc.assistant.Now = cfg.LLM, cfg.DB, cfg.now
	svc.chat.Available = svc.assistant.Commands
	svc.conversation = &assistant.Service{Executor: svc.assistant, DB: cfg.DB, Now: cfg.now, LLM: cfg.LLM,
		Streams: llm.NewLimiter(llm.StreamsPerAccount)}
	// One prompt for the send and the admin's view: the groups, packs, kits,
	// briefing and the conversation's turns, within the budget.
	svc.prompt = &prompt.Service{Sources: prompt.Sources{DB: cfg.DB.Client, Now: cfg.now, Budget: cfg.ContextTokens,
		Commands: svc.assistant.Commands, Turns: svc.conversation.Turns}}
	svc.conversation.Prompt = svc.prompt.Sources.Prompt
	// An approved item for a store agent runs it when it moves to
	// in_progress; a relay's item reports its moves to the sender.
	svc.queue.Moved = func(ctx context.Context, tx *db.Tx, it *ent.QueueItem, from string) error {
		if err := svc.network.ItemMoved(ctx, tx, it, from); err != nil {
			return err
		}
		return svc.assistant.ItemMoved(ctx, tx, it, from)
	}
	svc.dev = &developer.Service{
		DB: cfg.DB, Now: cfg.now, Accounts: svc.accounts, Store: storeSvc, Egress: egressPolicy, Logger: cfg.Logger,
		// registerUrl is absolute when the instance knows its public address.
		BaseURL: cfg.Executions.PublicURL,
	}
	// A decision on a synced listing reaches its spoke through the outbox.
	svc.dev.Decided = svc.hub.EnqueueApproval
	svc.dev.CapabilityDecided = svc.hub.EnqueueCapabilityApproval
	if err := requireClocks(svc); err != nil {
		return nil, err
	}
	// The federation class counts per calling instance, not per address.
	g.CountFederationBy(federationCaller(federation.CallerInstance(svc.hub, svc.spoke), svc.network.CallerConnection))
	// After the gate on both transports: a key belongs to the admitted credential.
	keyed := idempotency.New(idempotency.Config{
		DB: cfg.DB, Table: table, Now: cfg.now, Logger: cfg.Logger, BodyLimit: cfg.BodyLimit,
	})

	door, err := newMCP(cfg, table, g, bus, svc)
	if err != nil {
		app.Close()
		return nil, err
	}
	// A trusted peer's mode_get is the door's own tool (POST /api/federation/mcp).
	svc.network.Tools = door.RunAs
	app.closers = append(app.closers, door.Close)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.Handle("GET /api/v2/docs", g.Identify(http.HandlerFunc(serveDocs)))

	services := mounts(svc)
	gw, err := newGateway(table, g, keyed, services)
	if err != nil {
		app.Close()
		return nil, err
	}
	// The Server-Sent Events twin of EventService.StreamEvents, under its
	// access rule; outside the gateway (and gzip, which would hold events back).
	mux.Handle("/api/v2/shared-chat/stream", g.Identify(g.Procedure(
		switchboardv1connect.EventServiceStreamEventsProcedure, onlyGET(g.Stream(bus.SSE())))))
	// The MCP door: an API key with the mcp scope, each tool's scopes on top.
	mux.Handle(mcp.Path, g.Identify(g.Endpoint(mcpAccess, door)))
	mux.Handle("GET "+mcp.CardPath, door.CardHandler(cfg.Executions.PublicURL))
	mountA2A(mux, cfg, g, bus, svc.queue, egressPolicy, door)
	// The operator network's check (?connectionId=) before the spoke's.
	mux.Handle("GET "+federation.WellKnownPath, svc.network.WellKnown(svc.spoke.WellKnown()))
	mux.Handle("POST "+federation.WebhookPath, svc.spoke.Webhook())
	// REST answers are gzipped when the client asks (Connect compresses its own).
	api := g.Identify(httpapi.LimitBody(cfg.BodyLimit, gzhttp.GzipHandler(gw)))
	mux.Handle("/api/", api)
	mountDocuments(mux, g, svc.docs, api)
	// The assistant's reply as Server-Sent Events, under SendChat's rule; a
	// stream lives past the server's write timeout (each write is bounded).
	mux.Handle("POST /api/chat/send", g.Identify(g.Procedure(switchboardv1connect.AssistantChatServiceSendChatProcedure,
		httpapi.LimitBody(cfg.BodyLimit, g.Stream(bus.Deadlines(svc.conversation.SSE()))))))
	// A recording for the assistant, admitted as SendChat's twin (session,
	// CSRF, its limit) with its own body limit above the server's.
	mux.Handle("POST /api/chat/voice", g.Identify(g.Procedure(switchboardv1connect.AssistantChatServiceSendChatProcedure,
		httpapi.LimitBody(assistant.VoiceBodyLimit, svc.conversation.Voice()))))

	names := mountConnect(mux, g, keyed, services,
		append(connectOptions(cfg, app.tracing), connect.WithInterceptors(g.RequiredPathFields())))
	reflector := grpcreflect.NewStaticReflector(names...)
	mux.Handle(grpcreflect.NewHandlerV1(reflector))
	mux.Handle(grpcreflect.NewHandlerV1Alpha(reflector))
	mux.Handle(grpchealth.NewHandler(grpchealth.NewStaticChecker(names...)))
	// The dashboard's files (GET and HEAD of "/" and of each built file); any
	// other path keeps the JSON 404.
	site, err := web.New()
	if err != nil {
		app.Close()
		return nil, err
	}
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if site.Serves(r) {
			site.ServeHTTP(w, r)
			return
		}
		httpapi.WriteREST(w, r, notFound(r))
	}))
	// The federation guard and audit log stand before every inbound federation
	// route, whichever way the mux reaches it (paths are matched cleaned).
	app.Handler = httpapi.Observe(cfg.Logger,
		svc.recorder.Middleware(federation.InboundPaths, apiAsWritten(mux, api)))
	hooks := fed.hooks
	hooks.Run()
	app.closers = append(app.closers, hooks.Close)
	// Set before the handler serves: process_retries runs on this dispatcher.
	svc.audit.Retry = processRetries(hooks)
	// The engine and the review lifecycle, wired to each other by their owner.
	executions.Start(context.Background())
	app.closers = append(app.closers, executions.Close)
	beats, stopBeats := context.WithCancel(context.Background())
	go svc.spoke.Run(beats, cfg.Clock)
	go svc.recorder.Run(beats, cfg.Clock)
	go svc.network.RunPatterns(beats, cfg.Clock)
	app.closers = append(app.closers, stopBeats)
	app.Review, app.Engine, app.Assistant = executions.Review, executions.Engine, svc.assistant
	// Closed before the lifecycle (closers run last first): an item's agent
	// run in flight ends while the engine can still finish it.
	app.closers = append(app.closers, svc.assistant.Close)
	return app, nil
}

// federationParts are the two sides of federation, of which only one
// serves, by role, and the audit log they share.
type federationParts struct {
	hub      *federation.Hub
	spoke    *federation.Spoke
	audit    *audit.Service
	recorder *audit.Recorder
	// network is the operator network's connections.
	network *network.Service
	// credential is what the outbox adds to a federation delivery: a hub
	// presents each spoke's secret, a spoke its platform token.
	credential func(ctx context.Context, instanceID string) (header, value string, found bool, err error)
	// hooks is the outbox's dispatcher, made here because the operator
	// network attempts its rows on it at once; New runs it.
	hooks *webhooks.Dispatcher
}

// newFederation builds the hub and spoke sides of federation.
func newFederation(cfg Config, st *store.Service, policy egress.Policy, tr *tracing, g *gate.Gate) (*federationParts, error) {
	role := cfg.Federation.Role
	if role == "" {
		role = "standalone"
	}
	if !slices.Contains(vocab.Values("instance_role"), role) {
		return nil, fmt.Errorf("server: role must be one of %s, not %q", strings.Join(vocab.Values("instance_role"), ", "), role)
	}
	f := &federationParts{audit: &audit.Service{DB: cfg.DB.Client, Hub: role == "hub"}}
	f.recorder = &audit.Recorder{DB: cfg.DB.Client, Now: cfg.now, Logger: cfg.Logger,
		Self: cfg.Executions.PublicURL, Retention: cfg.Federation.AuditRetention}
	f.hub = federation.NewHub(federation.Hub{DB: cfg.DB, Now: cfg.now, Secrets: st.Secrets, Egress: policy,
		Serving: role == "hub", StaleAfter: cfg.Federation.StaleAfter, Policy: st.Policy,
		PublicURL: strings.TrimSuffix(cfg.Executions.PublicURL, "/"), Audit: f.recorder, ClientOptions: tr.clientOptions()})
	f.recorder.Caller = f.hub.CallerName
	f.spoke = federation.NewSpoke(federation.Spoke{DB: cfg.DB, Now: cfg.now, Secrets: st.Secrets, Egress: policy,
		Logger: cfg.Logger, Role: role, PublicURL: cfg.Executions.PublicURL, Version: apiVersion,
		Interval: cfg.Federation.HeartbeatInterval, Audit: f.recorder})
	f.hooks = webhooks.New(webhooks.Config{
		DB: cfg.DB.Client, Clock: cfg.Clock, Logger: cfg.Logger, Egress: policy,
		// Read at each attempt, once the parts below are built.
		Credential:        func(ctx context.Context, id string) (string, string, bool, error) { return f.credential(ctx, id) },
		FederationRetries: cfg.Federation.RetrySchedule, Audit: f.recorder,
		Peer: network.Owns, PeerEgress: egress.Policy{AllowPrivate: cfg.Federation.Network.AllowPrivate},
	})
	f.network = network.New(network.Service{DB: cfg.DB, Now: cfg.now, Secrets: st.Secrets, Logger: cfg.Logger,
		PublicURL: cfg.Executions.PublicURL, Config: cfg.Federation.Network, Audit: f.recorder, ClientOptions: tr.clientOptions(),
		Limiter: g, Outbox: f.hooks})
	instances := f.spoke.Credential
	if role == "hub" {
		instances = f.hub.Credential
	}
	// The operator network's acks carry the connection's peer token.
	f.credential = func(ctx context.Context, id string) (string, string, bool, error) {
		if network.Owns(id) {
			return f.network.Credential(ctx, id)
		}
		return instances(ctx, id)
	}
	// The store reaches the hub's store through the spoke side; a hub's own
	// store is the global store.
	st.Hub = role == "hub"
	if !st.Hub {
		st.Global = f.spoke
	}
	return f, nil
}

// global runs the hub's listings for the store's execute on an instance
// that is not a hub; nil on a hub.
func (f *federationParts) global() func(ctx context.Context, userID, id, input string) (*switchboardv1.ExecuteStoreAgentResponse, error) {
	if f.hub.Serving {
		return nil
	}
	return f.spoke.ExecuteGlobal
}

// processRetries is the admin's process_retries on the dispatcher, counted.
func processRetries(d *webhooks.Dispatcher) func(context.Context) (*switchboardv1.RunFederationAuditActionResponse, error) {
	return func(ctx context.Context) (*switchboardv1.RunFederationAuditActionResponse, error) {
		p, err := d.Retry(ctx)
		if err != nil {
			return nil, err
		}
		return &switchboardv1.RunFederationAuditActionResponse{
			Processed: int32(p.Sent()), Delivered: int32(p.Delivered), RetryPending: int32(p.RetryPending),
			RetryExhausted: int32(p.RetryExhausted), Deferred: int32(p.Deferred), Cancelled: int32(p.Cancelled),
		}, nil
	}
}

// onlyGET answers other methods 405 like every known REST path.
func onlyGET(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet { // HEAD too: a stream has no headers-only form
			httpapi.WriteREST(w, r, &apperr.Error{Kind: apperr.KindMethodNotAllowed,
				Message: "method " + r.Method + " is not allowed on " + r.URL.Path})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// newStore builds the store service with the instance key, if any.
func newStore(cfg Config, policy egress.Policy, guesses auth.Guesses) (*store.Service, error) {
	svc := &store.Service{DB: cfg.DB, Now: cfg.now, Egress: policy, Policy: cfg.ReviewPolicy, BcryptCost: cfg.BcryptCost,
		Guesses: guesses}
	if svc.Policy == "" {
		svc.Policy = store.ZeroGate
	}
	if _, err := store.ParsePolicy(string(svc.Policy)); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if len(cfg.SecretKey) > 0 {
		box, err := secrets.New(cfg.SecretKey)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		svc.Secrets = box
	}
	return svc, nil
}

func connectOptions(cfg Config, tr *tracing) []connect.HandlerOption {
	// Tracing outermost: its spans see the mapped errors' codes.
	opts := tr.handlerOptions()
	opts = append(opts,
		// Errors outermost, so the input check's refusals are mapped too.
		connect.WithInterceptors(httpapi.ConnectErrors(), input.Interceptor()),
		connect.WithReadMaxBytes(int(cfg.BodyLimit)),
		connect.WithCodec(httpapi.RPCProtoCodec{}),
	)
	for _, c := range httpapi.RPCJSONCodecs() {
		opts = append(opts, connect.WithCodec(c))
	}
	return opts
}

// strictQueryOnce installs the strict query parser: grpc-gateway keeps it in a
// package variable (its option sets that variable when a mux applies it), so it
// is applied once per process, not per server, which would race in tests.
var strictQueryOnce sync.Once

func newGateway(table *contract.Table, g *gate.Gate, keyed *idempotency.Guard, mounts []mount) (*runtime.ServeMux, error) {
	none := func(string) (string, bool) { return "", false }
	opts := []runtime.ServeMuxOption{
		runtime.WithMarshalerOption(runtime.MIMEWildcard, httpapi.RESTMarshaler{}),
		runtime.WithErrorHandler(httpapi.GatewayError),
		runtime.WithRoutingErrorHandler(httpapi.GatewayRoutingError),
		runtime.WithMiddlewares(g.Gateway, keyed.Gateway),
		runtime.WithForwardResponseOption(restStatus(table)),
		// Services read nothing from gRPC metadata and send none as headers.
		runtime.WithIncomingHeaderMatcher(none),
		runtime.WithOutgoingHeaderMatcher(none),
	}
	strictQueryOnce.Do(func() { opts = append(opts, runtime.SetQueryParameterParser(httpapi.StrictQuery{})) })
	gw := runtime.NewServeMux(opts...)
	if err := registerGateway(gw, mounts); err != nil {
		return nil, err
	}
	return gw, nil
}

// restStatus answers a successful REST call with the status its RPC declares
// (rest_status), such as 201 for creations, or, for an RPC whose status
// depends on the outcome (rest_created_field), 201 when the answer's field
// says it created something.
func restStatus(table *contract.Table) func(context.Context, http.ResponseWriter, proto.Message) error {
	return func(ctx context.Context, w http.ResponseWriter, m proto.Message) error {
		name, ok := runtime.RPCMethod(ctx)
		if !ok {
			return nil
		}
		p, ok := table.ByName(name)
		switch {
		case !ok:
		case p.CreatedField != nil:
			if m.ProtoReflect().Descriptor() == p.CreatedField.ContainingMessage() && m.ProtoReflect().Get(p.CreatedField).Bool() {
				w.WriteHeader(http.StatusCreated)
			}
		case p.RESTStatus != http.StatusOK:
			w.WriteHeader(p.RESTStatus)
		}
		return nil
	}
}

func serveDocs(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("Access-Control-Allow-Origin", "*")
	_, _ = w.Write(openapi.JSON)
}

// apiAsWritten hands an API path that is not in clean form (an empty segment,
// as in /api/v2/kanban//checklist/1) to the API as written, where the route's
// rules refuse it with an error body, instead of ServeMux's bare 307 to the
// cleaned path (docs/decisions.md "Errors").
func apiAsWritten(mux *http.ServeMux, api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; strings.HasPrefix(p, "/api/") && cleanPath(p) != p {
			api.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// cleanPath is the form ServeMux redirects to: path.Clean, keeping a
// trailing slash.
func cleanPath(p string) string {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// mcpAccess is the MCP door's rule (docs/decisions.md "MCP").
var mcpAccess = contract.KeyRule(mcp.Path, "mcp", "")

// newMCP builds the MCP door over the same services the API mounts, and
// hooks it to the changes it must follow: installs (its tool and prompt
// lists) and ended or lapsed keys (its sessions).
func newMCP(cfg Config, table *contract.Table, g *gate.Gate, bus *events.Bus, svc services) (*mcp.Server, error) {
	door, err := mcp.New(mcp.Config{
		Services: mcp.Services{
			Queue: svc.queue, Contacts: svc.contacts, Kanban: svc.kanban, Settings: svc.settings,
			Activity: svc.activity, Chat: svc.chat, Store: svc.store, Review: svc.review,
			Executions: svc.execs, Capabilities: svc.caps, Network: svc.network,
		},
		Table: table, DB: cfg.DB.Client, Logger: cfg.Logger, BodyLimit: cfg.BodyLimit,
		Charge: g.Charge, OpenStream: g.OpenStream, OpenSession: g.OpenMCPSession, Now: cfg.now,
	})
	if err != nil {
		return nil, err
	}
	svc.store.Installed = door.Changed
	svc.caps.Installed = door.Changed
	streams := svc.keys.Ended
	svc.keys.Ended = func(creds ...auth.Credential) {
		streams(creds...)
		door.EndStreams(creds...)
	}
	// Keys that expire, or end on another replica: the bus's heartbeat check.
	bus.Watch(events.Watcher{Open: door.OpenCredentials, End: door.EndStreams})
	return door, nil
}

// apiVersion is the API's version, as the OpenAPI document and the agent
// card report it.
const apiVersion = "2.0.0"

// mountA2A mounts the A2A endpoint behind the gate (its own rule: a key with
// the a2a scope) and the public agent card; the queue tells it when an item
// behind a task is removed.
func mountA2A(mux *http.ServeMux, cfg Config, g *gate.Gate, bus *events.Bus, q *queue.Service, policy egress.Policy, door *mcp.Server) {
	svc := &a2a.Service{DB: cfg.DB, Queue: q, Bus: bus, Egress: policy, Charge: g.Charge, OpenStream: g.OpenStream}
	// Both records that outlive an item learn how it ended: an A2A task and
	// a received relay (its sender is told through the outbox).
	relays := q.Removed
	q.Removed = func(ctx context.Context, tx *db.Tx, it *ent.QueueItem, rejected bool) error {
		if err := svc.Removed(ctx, tx, it, rejected); err != nil {
			return err
		}
		if relays == nil {
			return nil
		}
		return relays(ctx, tx, it, rejected)
	}
	mux.Handle(a2a.Path, g.Identify(g.Endpoint(a2a.Rule, httpapi.LimitBody(cfg.BodyLimit, svc))))
	mux.Handle("GET "+a2a.CardPath, &a2a.Card{Version: apiVersion, PublicURL: cfg.Executions.PublicURL, MCPTools: door.ToolNames})
}

// mountDocuments mounts the two document routes that are not RPCs, each
// admitted as its procedure's twin (session, CSRF, the per-key limit): the
// multipart upload under CreateDocument with its own body limit above the
// server's (the JSON create goes on to the gateway), and the raw bytes under
// GetDocumentContent.
func mountDocuments(mux *http.ServeMux, g *gate.Gate, docs *documents.Service, api http.Handler) {
	upload := g.Identify(g.Procedure(switchboardv1connect.DocumentServiceCreateDocumentProcedure,
		httpapi.LimitBody(documents.UploadBodyLimit, docs.Upload())))
	mux.Handle("POST /api/documents", documents.Multipart(upload, api))
	mux.Handle("GET /api/documents/{id}/raw", g.Identify(g.Procedure(
		switchboardv1connect.DocumentServiceGetDocumentContentProcedure, docs.Raw())))
}

// federationCaller names the caller the federation rate class counts: the
// calling instance (platform token, a hub's secret), else the operator
// network's connection; empty falls back to the client address.
func federationCaller(instance, connection func(context.Context, *http.Request) string) func(context.Context, *http.Request) string {
	return func(ctx context.Context, r *http.Request) string {
		if k := instance(ctx, r); k != "" {
			return k
		}
		return connection(ctx, r)
	}
}
