package webhooks

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/internal/alarm"
	"github.com/switchboard-hq/switchboard/internal/breaker"
	"github.com/switchboard-hq/switchboard/internal/egress"
)

// maxLanes bounds how many targets one dispatcher delivers to at once; each
// target gets one delivery at a time, so its breaker sees outcomes in order.
const maxLanes = 16

// batch bounds how many due rows one pass reads.
const batch = 200

// Config is what a Dispatcher needs.
type Config struct {
	DB *ent.Client
	// Clock is the server's clock (required): rows are stamped and compared
	// with its time, in UTC, and the dispatcher sleeps on its timers.
	Clock  clockwork.Clock
	Logger *slog.Logger
	// Egress decides which addresses targets may resolve to.
	Egress egress.Policy
	// Credential answers the header a federation row carries for its
	// instance when it is sent; found is false once the instance is gone
	// (the row is then cancelled). Nil cancels every federation row.
	Credential func(ctx context.Context, instanceID string) (header, value string, found bool, err error)
	// FederationRetries is the retry schedule of federation rows
	// (--federation-retry-schedule); Retries when empty.
	FederationRetries []time.Duration
	// Audit records every attempt of a federation row as an outbound
	// FederationAuditLog row (its transport); nil records none.
	Audit Auditor
	// Peer says which federation rows go to the operator network's peers
	// (by instance id); those follow PeerEgress (--federation-allow-private)
	// rather than Egress. Nil: none do.
	Peer       func(instanceID string) bool
	PeerEgress egress.Policy
}

// Dispatcher delivers due rows until it is closed.
type Dispatcher struct {
	db     *ent.Client
	now    func() time.Time
	log    *slog.Logger
	client *http.Client
	// federation sends federation rows: client's rules, audited; peer
	// those of the operator network, on PeerEgress's rules, audited.
	federation, peer *http.Client
	isPeer           func(instanceID string) bool
	breakers         *breaker.Set

	alarm  *alarm.Alarm
	done   chan struct{}
	ctx    context.Context // cancelled by Close: ends attempts in flight
	cancel context.CancelFunc
	lanes  sync.WaitGroup

	mu     sync.Mutex
	busy   map[string]bool // target URLs with a lane running
	idle   *sync.Cond      // signalled (on mu) when a lane ends
	closed bool

	credential        func(ctx context.Context, instanceID string) (header, value string, found bool, err error)
	federationRetries []time.Duration

	// counted and fires are for the metrics: attempts by outcome, and
	// passes that found due rows.
	counted [outcomes]atomic.Uint64
	fires   alarm.Fires
}

// Fires is how many passes found due rows (the metrics' timer count).
func (d *Dispatcher) Fires() uint64 { return d.fires.Count() }

// Start starts a dispatcher; Close stops it.
func Start(cfg Config) *Dispatcher {
	d := New(cfg)
	d.Run()
	return d
}

// New makes a dispatcher that sends nothing on its own until Run; Attempt
// works already. It lets the services that attempt their rows at once be
// built with it before the credential they give it is complete.
func New(cfg Config) *Dispatcher {
	if cfg.Clock == nil {
		panic("webhooks: Config.Clock is required (the server's clock)")
	}
	clock := cfg.Clock
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &Dispatcher{
		db: cfg.DB, now: func() time.Time { return clock.Now().UTC() }, log: cfg.Logger,
		client: cfg.Egress.Client(Timeout), breakers: breaker.New(breaker.Config{Failures: breakerFailures, OpenFor: breakerOpen, Probes: breakerSuccesses}, clock.Now),
		alarm: alarm.New(clock), done: make(chan struct{}),
		ctx: ctx, cancel: cancel, busy: map[string]bool{},
		credential: cfg.Credential, federationRetries: cfg.FederationRetries,
	}
	d.idle = sync.NewCond(&d.mu)
	d.federation, d.peer, d.isPeer = d.client, cfg.PeerEgress.Client(Timeout), cfg.Peer
	if cfg.Audit != nil {
		d.federation = &http.Client{Timeout: d.client.Timeout, CheckRedirect: d.client.CheckRedirect,
			Transport: cfg.Audit.Transport(d.client.Transport)}
		d.peer = &http.Client{Timeout: d.peer.Timeout, CheckRedirect: d.peer.CheckRedirect,
			Transport: cfg.Audit.Transport(d.peer.Transport)}
	}
	if len(d.federationRetries) == 0 {
		d.federationRetries = Retries
	}
	return d
}

// Run starts sending due rows in the background, once.
func (d *Dispatcher) Run() {
	running.Lock()
	running.set[d] = struct{}{}
	running.Unlock()
	go d.run()
}

// Wake makes the dispatcher look for due rows now.
func (d *Dispatcher) Wake() { d.alarm.Wake() }

// Close stops the dispatcher: attempts in flight are abandoned (their rows
// are due again at once, for the next dispatcher) and Close returns once
// every lane has stopped. Rows stay in the database.
func (d *Dispatcher) Close() {
	running.Lock()
	delete(running.set, d)
	running.Unlock()
	if !d.alarm.Stop() {
		return // closed already
	}
	d.mu.Lock()
	d.closed = true // no new lanes from Retry
	d.idle.Broadcast()
	d.mu.Unlock()
	d.cancel()
	<-d.done
	d.lanes.Wait()
	d.client.CloseIdleConnections()
}

func (d *Dispatcher) run() {
	defer close(d.done)
	for d.ctx.Err() == nil {
		next := d.pass()
		wait := Lease // looks again now and then for rows other replicas wrote
		if !next.IsZero() {
			wait = min(wait, next.Sub(d.now()))
		}
		if !d.alarm.Sleep(wait) {
			return
		}
	}
}

// pass starts a lane for every target with due rows and no lane running, and
// answers when the next row not yet due will be (zero when none).
func (d *Dispatcher) pass() time.Time {
	ctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
	defer cancel()
	now := d.now()
	due, err := d.db.WebhookDelivery.Query().
		Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending), webhookdelivery.NextAttemptAtLTE(now)).
		Order(ent.Asc(webhookdelivery.FieldNextAttemptAt), ent.Asc(webhookdelivery.FieldID)).
		Limit(batch).All(ctx)
	if err != nil {
		if d.ctx.Err() == nil {
			d.log.Error("webhooks: read due deliveries", "err", err)
		}
		return now.Add(time.Second) // try again shortly
	}
	if len(due) > 0 {
		d.fires.Add()
	}
	byURL, order := byTarget(due)
	d.mu.Lock()
	for _, url := range order {
		if d.busy[url] || len(d.busy) >= maxLanes {
			continue // a finishing lane wakes the loop
		}
		d.busy[url] = true
		d.lanes.Add(1)
		go d.lane(url, byURL[url])
	}
	d.mu.Unlock()

	next, err := d.db.WebhookDelivery.Query().
		Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending), webhookdelivery.NextAttemptAtGT(now)).
		Order(ent.Asc(webhookdelivery.FieldNextAttemptAt)).First(ctx)
	switch {
	case ent.IsNotFound(err):
		return time.Time{}
	case err != nil:
		if d.ctx.Err() == nil {
			d.log.Error("webhooks: read next delivery", "err", err)
		}
		return now.Add(time.Second)
	}
	return next.NextAttemptAt
}

// byTarget groups rows by URL, keeping their order, and lists the URLs in
// the order their first row came.
func byTarget(rows []*ent.WebhookDelivery) (map[string][]*ent.WebhookDelivery, []string) {
	byURL := map[string][]*ent.WebhookDelivery{}
	var order []string
	for _, row := range rows {
		if _, ok := byURL[row.URL]; !ok {
			order = append(order, row.URL)
		}
		byURL[row.URL] = append(byURL[row.URL], row)
	}
	return byURL, order
}

// lane delivers one target's due rows in order, then wakes the loop.
func (d *Dispatcher) lane(url string, rows []*ent.WebhookDelivery) {
	defer d.release(url)
	for _, row := range rows {
		if d.ctx.Err() != nil {
			return
		}
		d.attempt(row, false)
	}
}

// release ends url's lane and wakes the loop and whoever waits for the lane.
func (d *Dispatcher) release(url string) {
	d.mu.Lock()
	delete(d.busy, url)
	d.idle.Broadcast()
	d.mu.Unlock()
	d.lanes.Done()
	d.Wake()
}
