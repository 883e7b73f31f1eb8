// Package metrics owns the server's Prometheus metrics (RULINGS "Replicas and
// operations"): every family is prefixed switchboard_ and lives in a registry
// of one server's own, so that many servers in one process (tests) never
// share a counter. Parts of the server report in two ways: what they count
// themselves (the outbox's outcomes, a timer's fires, open streams) is read
// at scrape time through the functions given to Metrics; what happens in a
// request (its procedure, protocol and code) or an event (an execution's
// status) is counted as it happens.
package metrics

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

const namespace = "switchboard"

// Metrics is one server's registry and the families it counts itself. The
// methods of a nil *Metrics do nothing, so a part built without metrics
// (a unit test's) needs no guard.
type Metrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	executions *prometheus.CounterVec
	timers     *timers
}

// New makes an empty registry with the families counted as they happen.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "requests_total",
			Help: "Requests answered, by procedure, protocol and code (the Connect code on Connect and gRPC, the HTTP status otherwise).",
		}, []string{"procedure", "protocol", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "request_duration_seconds",
			Help: "How long requests took to answer, by procedure and protocol (a stream: until its handler returned).",
			// From a cached read to a store agent's call (its timeout is 30 s).
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"procedure", "protocol"}),
		executions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "executions_total",
			Help: "Store executions reaching a status: created (their first status) and finished (their last).",
		}, []string{"status"}),
		timers: &timers{pushed: map[string]uint64{}, pulled: map[string]func() uint64{}},
	}
	m.timers.desc = prometheus.NewDesc(namespace+"_timers_fired_total",
		"Passes of each durable timer that found something due and did it, on this replica.", []string{"timer"}, nil)
	m.reg.MustRegister(m.requests, m.duration, m.executions, m.timers)
	return m
}

// Handler serves the registry in the Prometheus text format (or what the
// scraper negotiates). A family that fails to read (the outbox's depth while
// the database is down) is left out, and the rest are served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Register adds collectors of the server's parts; one server registers
// each family once (a second server on the same Metrics is an error).
func (m *Metrics) Register(cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// ExecutionReached counts a store execution reaching status.
func (m *Metrics) ExecutionReached(status string) {
	if m == nil {
		return
	}
	m.executions.WithLabelValues(status).Inc()
}

// TimerFired counts one pass of the named timer that did work. Name is
// stable across releases (the timer's row name where it has one).
func (m *Metrics) TimerFired(name string) {
	if m == nil {
		return
	}
	m.timers.mu.Lock()
	defer m.timers.mu.Unlock()
	m.timers.pushed[name]++
}

// Timer reads the named timer's count of passes that did work at each
// scrape, for a timer that counts them itself (alarm.Loop.Fires).
func (m *Metrics) Timer(name string, fires func() uint64) {
	if m == nil {
		return
	}
	m.timers.mu.Lock()
	defer m.timers.mu.Unlock()
	m.timers.pulled[name] = fires
}

// timers is timers_fired_total: the counts pushed by TimerFired plus those
// read from the timers that keep their own, so that either way of counting
// gives one family.
type timers struct {
	desc   *prometheus.Desc
	mu     sync.Mutex
	pushed map[string]uint64
	pulled map[string]func() uint64
}

func (t *timers) Describe(ch chan<- *prometheus.Desc) { ch <- t.desc }

func (t *timers) Collect(ch chan<- prometheus.Metric) {
	t.mu.Lock()
	counts := make(map[string]uint64, len(t.pushed)+len(t.pulled))
	for name, n := range t.pushed {
		counts[name] += n
	}
	pulled := make(map[string]func() uint64, len(t.pulled))
	for name, f := range t.pulled {
		pulled[name] = f
	}
	t.mu.Unlock()
	for name, f := range pulled {
		counts[name] += f()
	}
	for name, n := range counts {
		ch <- prometheus.MustNewConstMetric(t.desc, prometheus.CounterValue, float64(n), name)
	}
}

// Counts is a counter family with one label whose values a part counts
// itself, read at each scrape (the outbox's outcomes).
func Counts(name, help, label string, read func() map[string]uint64) prometheus.Collector {
	return &counts{desc: prometheus.NewDesc(namespace+"_"+name, help, []string{label}, nil), read: read}
}

type counts struct {
	desc *prometheus.Desc
	read func() map[string]uint64
}

func (c *counts) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *counts) Collect(ch chan<- prometheus.Metric) {
	for v, n := range c.read() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(n), v)
	}
}

// Gauge is a gauge read at each scrape.
func Gauge(name, help string, read func() float64) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help}, read)
}

// queryTimeout bounds a gauge's query at scrape time: a slow database makes
// the family missing from one scrape, never a scrape that hangs.
const queryTimeout = 2 * time.Second

// Query is a gauge read from the database at each scrape (the outbox's
// depth); a failed read leaves it out of that scrape and is logged.
func Query(name, help string, logger *slog.Logger, read func(ctx context.Context) (int, error)) prometheus.Collector {
	return &query{desc: prometheus.NewDesc(namespace+"_"+name, help, nil, nil), log: logger, read: read}
}

type query struct {
	desc *prometheus.Desc
	log  *slog.Logger
	read func(ctx context.Context) (int, error)
}

func (q *query) Describe(ch chan<- *prometheus.Desc) { ch <- q.desc }

func (q *query) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	n, err := q.read(ctx)
	if err != nil {
		q.log.Warn("metrics: gauge not read", "metric", q.desc.String(), "error", err)
		ch <- prometheus.NewInvalidMetric(q.desc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(q.desc, prometheus.GaugeValue, float64(n))
}

// Pool is the db_pool_* families of the server's connection pool.
func Pool(db *sql.DB) prometheus.Collector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(namespace+"_db_pool_"+name, help, nil, nil)
	}
	return &pool{db: db, descs: [...]*prometheus.Desc{
		d("max_open_connections", "The pool's limit of open connections (0: none)."),
		d("open_connections", "Connections open, in use or idle."),
		d("in_use_connections", "Connections in use."),
		d("idle_connections", "Idle connections."),
		d("wait_count_total", "Times a caller waited for a connection."),
		d("wait_duration_seconds_total", "Time callers spent waiting for a connection."),
	}}
}

type pool struct {
	db    *sql.DB
	descs [6]*prometheus.Desc
}

func (p *pool) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range p.descs {
		ch <- d
	}
}

func (p *pool) Collect(ch chan<- prometheus.Metric) {
	s := p.db.Stats()
	g, c := prometheus.GaugeValue, prometheus.CounterValue
	for i, v := range [...]struct {
		kind prometheus.ValueType
		n    float64
	}{
		{g, float64(s.MaxOpenConnections)}, {g, float64(s.OpenConnections)}, {g, float64(s.InUse)},
		{g, float64(s.Idle)}, {c, float64(s.WaitCount)}, {c, s.WaitDuration.Seconds()},
	} {
		ch <- prometheus.MustNewConstMetric(p.descs[i], v.kind, v.n)
	}
}

// Bearer serves next only to a request carrying "Authorization: Bearer
// token", compared in constant time; refuse answers the others (the
// server's 401 in its error shape).
func Bearer(token string, next http.Handler, refuse http.HandlerFunc) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			refuse(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
