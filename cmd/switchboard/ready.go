package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/httpapi"
)

// readyCache is how long an answer of /readyz's database check stands: a
// balancer polling every replica costs one cheap query a second each.
const readyCache = time.Second

// front is what serve serves: /healthz and /readyz, then the app. A replica
// started with --migrate=false on a database whose schema is not this
// build's has no app yet, since the app's start-up work reads tables that may
// not exist: every other route answers 503 until the schema is current, and
// the app is built the first time /readyz or the poll finds it so
// (docs/decisions.md, "Replicas and operations").
type front struct {
	db     *db.DB
	logger *slog.Logger
	// build makes the app; built runs once it serves.
	build func() (*server.App, error)
	built func(*server.App)

	app      atomic.Pointer[server.App]
	draining atomic.Bool

	mu      sync.Mutex // one check (and build) at a time
	checked time.Time
	status  error
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	switch {
	case get && r.URL.Path == "/healthz":
		// Liveness: the process answers, whatever the schema.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
		return
	case get && r.URL.Path == "/readyz":
		if err := f.ready(r.Context()); err != nil {
			httpapi.WriteREST(w, r, &apperr.Error{Kind: apperr.KindUnavailable, Message: "not ready: " + err.Error()})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{\"status\":\"ready\"}\n"))
		return
	}
	app := f.app.Load()
	if app == nil {
		f.mu.Lock()
		why := f.status
		f.mu.Unlock()
		msg := "the server is not ready"
		if why != nil {
			msg += ": " + why.Error()
		}
		httpapi.WriteREST(w, r, &apperr.Error{Kind: apperr.KindUnavailable, Message: msg})
		return
	}
	app.ServeHTTP(w, r)
}

// ready is nil when the replica takes traffic: not shutting down, the
// database answers and carries this build's schema (checked at most once a
// readyCache), and the app is built (now, if the schema has just become
// current).
func (f *front) ready(ctx context.Context) error {
	if f.draining.Load() {
		return errors.New("the server is shutting down")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.checked.IsZero() && time.Since(f.checked) < readyCache {
		return f.status
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	err := f.db.SchemaStatus(ctx)
	if errors.Is(err, db.ErrSchemaNotCurrent) {
		err = fmt.Errorf("%w; run switchboard migrate", err)
	}
	if err == nil && f.app.Load() == nil && !f.draining.Load() {
		var app *server.App
		if app, err = f.build(); err == nil {
			f.app.Store(app)
			f.built(app)
		}
	}
	f.checked, f.status = time.Now(), err
	return err
}

// await checks every readyCache until the app is built or ctx ends, so that
// a replica waiting for `switchboard migrate` starts serving without anyone
// asking /readyz.
func (f *front) await(ctx context.Context) {
	t := time.NewTicker(readyCache)
	defer t.Stop()
	for f.app.Load() == nil && !f.draining.Load() {
		if err := f.ready(ctx); err != nil && !errors.Is(err, db.ErrSchemaNotCurrent) {
			f.logger.Warn("waiting for the database", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// close closes the app, if there is one.
func (f *front) close() {
	if app := f.app.Load(); app != nil {
		app.Close()
	}
}

// onceCloser lets the listener be closed at the start of a shutdown and
// again by http.Server.Shutdown, which would report the second close.
type onceCloser struct {
	net.Listener
	once sync.Once
	err  error
}

func (l *onceCloser) Close() error {
	l.once.Do(func() { l.err = l.Listener.Close() })
	return l.err
}
