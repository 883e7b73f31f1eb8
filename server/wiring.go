package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/periodic"
	"github.com/switchboard-hq/switchboard/internal/replica"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/internal/timers"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/a2a"
	"github.com/switchboard-hq/switchboard/server/accounts"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/assistant"
	"github.com/switchboard-hq/switchboard/server/assistant/prompt"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/board"
	"github.com/switchboard-hq/switchboard/server/calendar"
	"github.com/switchboard-hq/switchboard/server/capabilities"
	"github.com/switchboard-hq/switchboard/server/capgate"
	"github.com/switchboard-hq/switchboard/server/chat"
	"github.com/switchboard-hq/switchboard/server/contacts"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/dashboard"
	"github.com/switchboard-hq/switchboard/server/developer"
	"github.com/switchboard-hq/switchboard/server/documents"
	"github.com/switchboard-hq/switchboard/server/economy"
	"github.com/switchboard-hq/switchboard/server/economy/disputes"
	economyoperator "github.com/switchboard-hq/switchboard/server/economy/operator"
	economypeer "github.com/switchboard-hq/switchboard/server/economy/peer"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/federation/audit"
	"github.com/switchboard-hq/switchboard/server/federation/hub"
	"github.com/switchboard-hq/switchboard/server/federation/spoke"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/groups"
	"github.com/switchboard-hq/switchboard/server/idempotency"
	"github.com/switchboard-hq/switchboard/server/inbound"
	"github.com/switchboard-hq/switchboard/server/kanban"
	"github.com/switchboard-hq/switchboard/server/keys"
	"github.com/switchboard-hq/switchboard/server/learnings"
	"github.com/switchboard-hq/switchboard/server/mcp"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/network/operator"
	"github.com/switchboard-hq/switchboard/server/network/peers"
	"github.com/switchboard-hq/switchboard/server/network/relays"
	"github.com/switchboard-hq/switchboard/server/onboarding"
	"github.com/switchboard-hq/switchboard/server/profiles"
	"github.com/switchboard-hq/switchboard/server/queue"
	"github.com/switchboard-hq/switchboard/server/reputation"
	"github.com/switchboard-hq/switchboard/server/settings"
	"github.com/switchboard-hq/switchboard/server/sprite"
	"github.com/switchboard-hq/switchboard/server/store"
	storeadmin "github.com/switchboard-hq/switchboard/server/store/admin"
	"github.com/switchboard-hq/switchboard/server/store/engine"
	"github.com/switchboard-hq/switchboard/server/store/lifecycle"
	"github.com/switchboard-hq/switchboard/server/store/payments"
	"github.com/switchboard-hq/switchboard/server/store/review"
	"github.com/switchboard-hq/switchboard/server/updates"
	"github.com/switchboard-hq/switchboard/server/webhooks"
	"github.com/switchboard-hq/switchboard/server/widgets"
)

// services is every service implementation; each serves both transports.
// Each is built whole by its constructor, in the order of what it needs
// (house.build): none is changed afterwards, and what one service must learn
// of another's changes it learns from the subscription table
// (subscriptions.go).
type services struct {
	accounts *accounts.Service
	activity *activity.Service
	caps     *capabilities.Service
	chat     *chat.Service
	contacts *contacts.Service
	calendar *calendar.Service
	now      *calendar.Now
	waiting  *dashboard.Service
	docs     *documents.Service
	events   *events.Service
	kanban   *kanban.Service
	board    *board.Service
	keys     *keys.Service
	queue    *queue.Service
	settings *settings.Service
	store    *store.Service
	dev      *developer.Service
	portal   *developer.Portal
	review   *review.Service
	execs    *engine.Service
	updates  *updates.Service
	widgets  *widgets.Service
	handoff  *a2a.Handoff
	// Teams and projects (TeamService, ProjectService) over one core,
	// which hears the queue's and the network's events.
	groups   *groups.Core
	teams    *groups.Teams
	projects *groups.Projects
	// The task economy over one core, split by who calls: the operator's
	// contracts, a peer's moves, the admin's disputes.
	economy      *economy.Core
	economyOps   *economyoperator.Service
	economyPeer  *economypeer.Service
	economyAdmin *disputes.Service
	// The job market: applying to jobs and awarding them, which hears the
	// board's posts and closes.
	economyJobs   *economy.Jobs
	economyMarket *economyoperator.Market
	netCore       *network.Core
	// Behavior signals, learnings and the admin's workflows.
	learnings *learnings.Service
	// profiles is the profile pages of users and teams (ProfileService).
	profiles *profiles.Service
	// The hub's and the spoke's sides, split by who calls them; hub and
	// spoke hold the state they share.
	hub        *hub.Core
	platform   *hub.Platform
	hubAdmin   *hub.Admin
	remote     *hub.Remote
	spoke      *spoke.Core
	spokeAdmin *spoke.Admin
	inbound    *spoke.Inbound
	audit      *audit.Service
	// The operator network, split by who calls: the operator's
	// connections and exchange, the peers' (untrusted) calls, the relays.
	network *operator.Service
	peers   *peers.Service
	relays  *relays.Service
	// assistant runs the assistant's action tags.
	assistant *assistant.Executor
	// conversation is the operator's chat with the assistant (and its tags).
	conversation *assistant.Service
	// prompt shows the admin the assistant's assembled prompt.
	prompt *prompt.Service
	// recorder writes the federation audit log (inbound and outbound).
	recorder *audit.Recorder
	// a2a is the A2A endpoint's tasks.
	a2a *a2a.Service

	// inboundHooks is the inbound webhooks: their settings and deliveries.
	inboundHooks *inbound.Service

	// storeAdmin is the admin's agent activity and the instance's agents.
	storeAdmin *storeadmin.Service
	// onboarding is the intro and the checklist "Getting started", which
	// hears the actions that complete its steps; sprite the assistant's
	// figure's settings.
	onboarding *onboarding.Service
	sprite     *sprite.Service
}

// house is everything New composes: the contract, the gate and the services,
// and the background parts behind them.
type house struct {
	cfg      Config
	table    *contract.Table
	resolver *auth.Resolver
	bus      *events.Bus
	gate     *gate.Gate
	keyed    *idempotency.Guard
	// replica is this process among those sharing the database: its id
	// names what it holds there, and its lease (--timer-lease) bounds how
	// long a dead replica's holdings count.
	replica  *replica.Registry
	egress   egress.Policy
	tracing  *tracing
	svc      services
	door     *mcp.Server
	hooks    *webhooks.Dispatcher
	lifetime *lifecycle.Owner
	// credential is what the outbox adds to a federation delivery: a hub
	// presents each spoke's secret, a spoke its platform token, the operator
	// network its connection's peer token.
	credential func(ctx context.Context, instanceID string) (header, value string, found bool, err error)
}

// build constructs every part in the order of what it needs; app collects
// what must be closed, so a failure part-way is closed by the caller.
func (h *house) build(app *App) error {
	cfg := h.cfg
	var err error
	if h.table, err = contract.Load(); err != nil {
		return err
	}
	// First in, so closed last: this replica's slots and claims count until
	// everything that holds them has stopped.
	if h.replica, err = replica.Start(context.Background(), cfg.Clock, cfg.DB.Client, cfg.TimerLease,
		func(ctx context.Context, err error) { cfg.Logger.ErrorContext(ctx, "replica: renew", "err", err) }); err != nil {
		return err
	}
	app.Replica = h.replica
	app.closers = append(app.closers, h.replica.Close)
	h.resolver = &auth.Resolver{DB: cfg.DB.Client, Now: cfg.now}
	if h.bus, err = events.New(events.Config{DB: cfg.DB, Now: cfg.now, Logger: cfg.Logger, Heartbeat: cfg.Heartbeat,
		WriteTimeout: cfg.StreamWriteTimeout, Lapsed: h.resolver.Lapsed}); err != nil {
		return err
	}
	app.Events = h.bus
	app.closers = append(app.closers, h.bus.Close)
	app.drainers = append(app.drainers, h.bus.Drain)
	if h.tracing, err = newTracing(cfg); err != nil {
		return err
	}
	app.tracing = h.tracing
	if h.tracing != nil {
		// First in, so last out: the spans of everything else are flushed.
		app.closers = append([]func(){h.tracing.shutdown}, app.closers...)
	}
	h.egress = egress.Policy{AllowPrivate: cfg.AllowPrivateEndpoints, Flag: "--allow-private-endpoints"}
	// The gate also limits guesses at the store's and the packs' passwords,
	// and the network's handshakes per calling origin.
	h.gate = gate.New(gate.Config{Table: h.table, Resolver: h.resolver, Limits: cfg.Limits,
		DB: cfg.DB, Now: cfg.now, Replica: h.replica})
	for _, step := range []func(*App) error{h.buildFederation, h.buildServices, h.buildDoors} {
		if err := step(app); err != nil {
			return err
		}
	}
	return requireClocks(h.svc)
}

// buildFederation builds the store, both sides of federation (only one
// serves, by role), the operator network, and the engine with the review
// lifecycle between them.
func (h *house) buildFederation(*App) error {
	cfg, s := h.cfg, &h.svc
	role := cfg.Federation.Role
	if role == "" {
		role = "standalone"
	}
	if !slices.Contains(vocab.Values("instance_role"), role) {
		return fmt.Errorf("server: role must be one of %s, not %q", strings.Join(vocab.Values("instance_role"), ", "), role)
	}
	isHub := role == "hub"
	box, policy, err := storeSecrets(cfg)
	if err != nil {
		return err
	}
	s.recorder = &audit.Recorder{DB: cfg.DB.Client, Now: cfg.now, Logger: cfg.Logger, Self: cfg.Executions.PublicURL,
		Retention: cfg.Federation.AuditRetention, Caller: federation.CallerName(cfg.DB.Client, isHub)}
	s.spoke = spoke.NewCore(spoke.Core{DB: cfg.DB, Now: cfg.now, Secrets: box, Egress: h.egress,
		Logger: cfg.Logger, Role: role, PublicURL: cfg.Executions.PublicURL, Version: apiVersion,
		Interval: cfg.Federation.HeartbeatInterval, Audit: s.recorder})
	s.store = &store.Service{DB: cfg.DB, Now: cfg.now, Egress: h.egress, Policy: policy, BcryptCost: cfg.BcryptCost,
		Guesses: h.gate, Secrets: box, Hub: isHub}
	// The store reaches the hub's store through the spoke side; a hub's own
	// store is the global store.
	s.spokeAdmin = spoke.NewAdmin(s.spoke)
	if !isHub {
		s.store.Global = s.spokeAdmin
	}
	s.hub = hub.NewCore(hub.Core{DB: cfg.DB, Now: cfg.now, Secrets: box, Egress: h.egress,
		Serving: isHub, StaleAfter: cfg.Federation.StaleAfter, Policy: policy,
		PublicURL: strings.TrimSuffix(cfg.Executions.PublicURL, "/"), Audit: s.recorder, ClientOptions: h.tracing.clientOptions()})
	s.hubAdmin, s.remote = hub.NewAdmin(s.hub), hub.NewRemote(s.hub)
	s.queue = &queue.Service{DB: cfg.DB, Now: cfg.now, LLM: cfg.LLM}
	s.settings = &settings.Service{DB: cfg.DB, Now: cfg.now, Egress: h.egress}
	// The outbox's dispatcher, made before the operator network, which
	// attempts its rows on it at once; start runs it.
	h.hooks = webhooks.New(webhooks.Config{
		DB: cfg.DB.Client, Clock: cfg.Clock, Logger: cfg.Logger, Egress: h.egress,
		// Read at each attempt, once the parts below are built.
		Credential:        func(ctx context.Context, id string) (string, string, bool, error) { return h.credential(ctx, id) },
		FederationRetries: cfg.Federation.RetrySchedule, Audit: s.recorder,
		Peer: network.Owns, PeerEgress: egress.Policy{AllowPrivate: cfg.Federation.Network.AllowPrivate, Flag: network.PrivateFlag},
	})
	core := network.NewCore(network.Core{DB: cfg.DB, Now: cfg.now, Secrets: box, Logger: cfg.Logger,
		PublicURL: cfg.Executions.PublicURL, Config: cfg.Federation.Network, Audit: s.recorder,
		ClientOptions: h.tracing.clientOptions(), Limiter: h.gate, Queue: s.queue, Outbox: h.hooks,
		// A trusted peer's mode_get is the MCP door's own answer.
		Mode: mcp.ModeOf(cfg.DB.Client, s.settings)})
	s.network, s.peers, s.relays = operator.New(core), peers.New(core), relays.New(core)
	s.netCore = core
	instances := s.spoke.Credential
	if isHub {
		instances = s.hub.Credential
	}
	h.credential = func(ctx context.Context, id string) (string, string, bool, error) {
		if network.Owns(id) {
			return s.relays.Credential(ctx, id)
		}
		return instances(ctx, id)
	}
	// The engine reaches the hub's spokes through the remote side, built
	// before it; the sides that run executions for a peer (the hub's
	// platform, the spoke's inbound) are built after it.
	h.lifetime = newLifecycle(cfg, h.egress, box, s.hub, s.remote, s.spokeAdmin, h.tracing)
	s.review = h.lifetime.Review
	s.platform = hub.NewPlatform(s.hub, h.lifetime.Engine, h.lifetime.Review)
	s.inbound = spoke.NewInbound(s.spoke, h.lifetime.Engine)
	s.execs = &engine.Service{Engine: h.lifetime.Engine, Global: global(s.hub, s.spokeAdmin)}
	s.storeAdmin = &storeadmin.Service{DB: cfg.DB, Now: cfg.now, Store: s.store}
	return nil
}

// buildServices builds the operator's services and the assistant over them.
func (h *house) buildServices(*App) error {
	cfg, s := h.cfg, &h.svc
	var err error
	if s.updates, err = updates.New(cfg.now); err != nil {
		return err
	}
	s.accounts = &accounts.Service{DB: cfg.DB, Now: cfg.now, BcryptCost: cfg.BcryptCost}
	s.activity = &activity.Service{DB: cfg.DB.Client}
	s.contacts = &contacts.Service{DB: cfg.DB, Now: cfg.now}
	s.calendar = &calendar.Service{DB: cfg.DB, Now: cfg.now}
	s.now = &calendar.Now{DB: cfg.DB, Now: cfg.now}
	s.waiting = &dashboard.Service{DB: cfg.DB, Now: cfg.now}
	s.docs = &documents.Service{DB: cfg.DB, Now: cfg.now}
	s.learnings = &learnings.Service{DB: cfg.DB, Now: cfg.now}
	s.events = &events.Service{Bus: h.bus}
	s.kanban = &kanban.Service{DB: cfg.DB, Now: cfg.now}
	s.board = &board.Service{DB: cfg.DB, Now: cfg.now, CronSecret: cfg.CronSecret}
	s.keys = &keys.Service{DB: cfg.DB, Now: cfg.now}
	s.inboundHooks = &inbound.Service{DB: cfg.DB, Now: cfg.now, LLM: cfg.LLM, Logger: cfg.Logger, Secrets: s.store.Secrets, PublicURL: cfg.Executions.PublicURL,
		BodyLimit: cfg.BodyLimit, Queue: s.queue}
	s.handoff = &a2a.Handoff{DB: cfg.DB, Now: cfg.now}
	s.groups = &groups.Core{DB: cfg.DB, Now: cfg.now, Queue: s.queue, Relays: s.relays, Notify: s.network,
		Billing:   payments.Ledger{Now: cfg.now},
		PublicURL: cfg.Executions.PublicURL, Platform: s.hub.Serving, Logger: cfg.Logger}
	s.teams, s.projects = groups.New(s.groups)
	s.onboarding = &onboarding.Service{DB: cfg.DB, Now: cfg.now, Projects: s.groups, Logger: cfg.Logger}
	s.sprite = &sprite.Service{DB: cfg.DB, Now: cfg.now}
	s.economy = &economy.Core{DB: cfg.DB, Now: cfg.now, Queue: s.queue, Projects: s.groups, Relays: s.relays, Net: s.netCore,
		Reputation: reputation.Recalculate, HoldLimit: money.Cents(cfg.EconomyHoldLimit), Logger: cfg.Logger}
	s.economyJobs = economy.NewJobs(s.economy)
	s.economyOps, s.economyPeer, s.economyAdmin = economyoperator.New(s.economy), economypeer.New(s.economy, s.economyJobs), disputes.New(s.economy)
	s.economyMarket = economyoperator.NewMarket(s.economy, s.economyJobs)
	// A peer's token shows it what the network sees.
	s.profiles = &profiles.Service{DB: cfg.DB, Peer: s.peers.OptionalPeer("profiles")}
	s.caps = &capabilities.Service{DB: cfg.DB, Now: cfg.now, Secrets: s.store.Secrets,
		Gate: &capgate.Resolver{DB: cfg.DB.Client}, Guesses: h.gate}
	s.widgets = &widgets.Service{DB: cfg.DB, Now: cfg.now, Queue: s.queue, Egress: h.egress}
	s.assistant = assistant.New(assistant.Config{Services: assistant.Services{Queue: s.queue, Kanban: s.kanban,
		Settings: s.settings, Store: s.store, Executions: s.execs, Links: s.kanban, Checklists: s.kanban, Tasks: s.queue,
		Relays: s.relays, Jobs: s.network, Projects: s.projects, Teams: s.teams, Economy: s.economyOps}, Gate: &capgate.Resolver{DB: cfg.DB.Client}, Logger: cfg.Logger,
		LLM: cfg.LLM, DB: cfg.DB, Now: cfg.now})
	s.chat = &chat.Service{DB: cfg.DB, Now: cfg.now, Available: s.assistant.Commands}
	// One prompt for the send and the admin's view: the groups, packs, kits,
	// briefing and the conversation's turns, within the budget.
	s.prompt = &prompt.Service{Sources: prompt.Sources{DB: cfg.DB.Client, Now: cfg.now, Budget: cfg.ContextTokens,
		Commands: s.assistant.Commands, Turns: assistant.Turns(cfg.DB)}}
	s.conversation = &assistant.Service{Executor: s.assistant, DB: cfg.DB, Now: cfg.now, LLM: cfg.LLM,
		Streams: llm.NewLimiter(llm.StreamsPerAccount), Prompt: s.prompt.Sources.Prompt}
	s.dev = &developer.Service{
		DB: cfg.DB, Now: cfg.now, Accounts: s.accounts, Store: s.store, Egress: h.egress, Logger: cfg.Logger,
		// registerUrl is absolute when the instance knows its public address.
		BaseURL: cfg.Executions.PublicURL,
	}
	// The portal lists the instances a developer's tokens registered as the hub's admin sees them.
	s.portal = developer.NewPortal(s.dev, s.hubAdmin)
	s.a2a = &a2a.Service{DB: cfg.DB, Queue: s.queue, Bus: h.bus, Egress: h.egress, Charge: h.gate.Charge,
		OpenStream: h.gate.OpenStream}
	return nil
}

// buildDoors builds what stands beside the API: the idempotency guard, the
// MCP door, and the federation audit service on the outbox's dispatcher.
func (h *house) buildDoors(app *App) error {
	cfg, s := h.cfg, &h.svc
	// After the gate on both transports: a key belongs to the admitted credential.
	h.keyed = idempotency.New(idempotency.Config{
		DB: cfg.DB, Table: h.table, Now: cfg.now, Logger: cfg.Logger, BodyLimit: cfg.BodyLimit, Replica: h.replica,
	})
	var err error
	if h.door, err = mcp.New(mcp.Config{
		Services: mcp.Services{
			Queue: s.queue, Contacts: s.contacts, Kanban: s.kanban, Settings: s.settings,
			Activity: s.activity, Chat: s.chat, Store: s.store, Review: s.review,
			Executions: s.execs, Capabilities: s.caps, Network: s.network, Relays: s.relays, Teams: s.teams,
			Now: s.now, Calendar: s.calendar,
		},
		Table: h.table, DB: cfg.DB.Client, Logger: cfg.Logger, BodyLimit: cfg.BodyLimit,
		Charge: h.gate.Charge, OpenStream: h.gate.OpenStream, OpenSession: h.gate.OpenMCPSession, Now: cfg.now,
		// An install on any replica reaches this one's sessions through the
		// bus's store_changed (the dashboard's event of the installs).
		Hear: func(userID string, fn func(ctx context.Context)) {
			h.bus.Hear(userID, fn, string(vocab.StreamEventStoreChanged))
		},
	}); err != nil {
		return err
	}
	app.closers = append(app.closers, h.door.Close)
	app.drainers = append(app.drainers, h.door.Drain)
	// Keys that expire, or end on another replica: the bus's heartbeat check.
	h.bus.Watch(events.Watcher{Open: h.door.OpenCredentials, End: h.door.EndStreams})
	// process_retries runs on this dispatcher.
	s.audit = &audit.Service{DB: cfg.DB.Client, Hub: s.hub.Serving, Retry: processRetries(h.hooks)}
	// The federation class counts per calling instance, not per address.
	h.gate.CountFederationBy(federationCaller(federation.CallerInstance(s.hub, s.spoke), s.peers.CallerConnection))
	// Credentials before bodies, for the routes whose handlers read their own.
	checkCredentials(h.gate, *s)
	return nil
}

// start starts the background work: the outbox's dispatcher, the engine and its review timer, the
// spoke's heartbeat, the audit log's retention and the network's patterns.
func (h *house) start(app *App) {
	s := h.svc
	// Every durable timer is registered in one Set and runs under its
	// lease, so each fires once across replicas; closing the Set (last
	// started, first closed) stops them all and releases the leases.
	set := timers.New(timers.Config{DB: h.cfg.DB.Client, Clock: h.cfg.Clock, Logger: h.cfg.Logger,
		Holder: h.replica.ID(), Lease: h.replica.Lease()})
	app.Timers = set
	h.hooks.Run()
	set.Own(webhooks.TimerName)
	app.closers = append(app.closers, h.hooks.Close)
	h.lifetime.Start(context.Background(), set)
	app.closers = append(app.closers, h.lifetime.Close)
	failed := func(what string) func(ctx context.Context, err error) {
		return func(ctx context.Context, err error) { h.cfg.Logger.ErrorContext(ctx, what, "error", err) }
	}
	periodic.Start(set, h.cfg.Clock, h.cfg.DB.Client, s.spokeAdmin.Heartbeat(), failed("federation heartbeat"))
	periodic.Start(set, h.cfg.Clock, h.cfg.DB.Client, s.recorder.Sweeper(), failed("federation audit retention"))
	periodic.Start(set, h.cfg.Clock, h.cfg.DB.Client, s.network.Patterns(), failed("network patterns"))
	app.Review, app.Engine, app.Assistant = h.lifetime.Review, h.lifetime.Engine, s.assistant
	app.Economy = s.economy.StartTimer(set)
	app.Digests = s.relays.StartDigests(set)
	app.Learnings = s.learnings.StartTimers(set, h.cfg.Clock, failed("learnings: daily timer"))
	app.BoardScan = periodic.Start(set, h.cfg.Clock, h.cfg.DB.Client, periodic.Timer{Name: board.TimerName, Every: board.Every, Run: s.board.ScanAll},
		failed("board scan"))
	if s.hub.Serving {
		// Only the managed platform bills teams.
		app.Renewals = s.groups.StartRenewals(set)
	}
	app.closers = append(app.closers, set.Close)
	// Closed before the lifecycle (closers run last first): an item's agent
	// run in flight ends while the engine can still finish it.
	app.closers = append(app.closers, s.assistant.Close)
}

// storeSecrets is the instance key's box (nil without a key) and the store's
// review policy (zero-gate when unset).
func storeSecrets(cfg Config) (*secrets.Box, store.ReviewPolicy, error) {
	policy := cfg.ReviewPolicy
	if policy == "" {
		policy = store.ZeroGate
	}
	if _, err := store.ParsePolicy(string(policy)); err != nil {
		return nil, "", fmt.Errorf("server: %w", err)
	}
	if len(cfg.SecretKey) == 0 {
		return nil, policy, nil
	}
	box, err := secrets.New(cfg.SecretKey)
	if err != nil {
		return nil, "", fmt.Errorf("server: %w", err)
	}
	return box, policy, nil
}

// global runs the hub's listings for the store's execute on an instance
// that is not a hub; nil on a hub.
func global(h *hub.Core, s *spoke.Admin) func(ctx context.Context, userID, id, input string) (*switchboardv1.ExecuteStoreAgentResponse, error) {
	if h.Serving {
		return nil
	}
	return s.ExecuteGlobal
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
