package idempotency

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/replica"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/httpapi"
)

// Config is what a Guard needs.
type Config struct {
	DB    *db.DB
	Table *contract.Table
	// Now is the server's clock: claims, leases and the 24 hours.
	Now    func() time.Time
	Logger *slog.Logger
	// BodyLimit is the request body limit; a larger body is left to the
	// handler to refuse, unclaimed.
	BodyLimit int64
	// Replica is this process among the replicas: its claims name it, and a
	// claim whose replica is dead is not waited for.
	Replica *replica.Registry
}

// Guard is the Idempotency-Key middleware for both transports; it runs after
// the gate, whose principal names the key's credential.
type Guard struct {
	db      *db.DB
	table   *contract.Table
	now     func() time.Time
	log     *slog.Logger
	limit   int64
	replica *replica.Registry
}

// New makes a Guard.
func New(cfg Config) *Guard {
	return &Guard{db: cfg.DB, table: cfg.Table, now: cfg.Now, log: cfg.Logger, limit: cfg.BodyLimit, replica: cfg.Replica}
}

// Connect wraps the Connect handlers: the procedure is the request path.
func (g *Guard) Connect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := g.table.ByName(r.URL.Path)
		if !ok || len(r.Header.Values(Header)) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		g.serve(w, r, p, next, httpapi.WriteError)
	})
}

// Gateway is the grpc-gateway middleware: the procedure is the matched route.
func (g *Guard) Gateway(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		if len(r.Header.Values(Header)) == 0 {
			next(w, r, params)
			return
		}
		var p *contract.Procedure
		pat, ok := runtime.HTTPPattern(r.Context())
		if ok {
			p, ok = g.table.ByRoute(r.Method, pat.String())
		}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next(w, r, params) })
		if !ok { // the gate has refused unknown routes already
			h.ServeHTTP(w, r)
			return
		}
		g.serve(w, r, p, h, httpapi.WriteREST)
	}
}

type errorWriter func(http.ResponseWriter, *http.Request, error)

// serve runs a request that names a key.
func (g *Guard) serve(w http.ResponseWriter, r *http.Request, p *contract.Procedure, next http.Handler, fail errorWriter) {
	switch p.Idempotency {
	case contract.IdempotencyIgnored:
		next.ServeHTTP(w, r)
		return
	case contract.IdempotencyRefused:
		fail(w, r, apperr.Invalid("this endpoint does not take %s: %s", Header, p.IdempotencyNote))
		return
	}
	req, err := g.describe(r, p)
	if err != nil {
		fail(w, r, err)
		return
	}
	body, whole := readBody(r, g.limit)
	if !whole {
		next.ServeHTTP(w, r) // too large or unreadable: the handler refuses it
		return
	}
	req.fingerprint = fingerprint(p.Name, r, body)
	c, stored, err := g.claim(r.Context(), req)
	switch {
	case err != nil:
		fail(w, r, err)
	case stored != nil:
		replay(w, answer{status: stored.Status, contentType: stored.ContentType,
			encoding: stored.ContentEncoding, body: stored.Body})
	default:
		g.run(w, r, c, next)
	}
}

// describe checks the key and names whose it is.
func (g *Guard) describe(r *http.Request, p *contract.Procedure) (request, error) {
	key, err := parseKey(r.Header)
	if err != nil {
		return request{}, err
	}
	if grpcFamily(r) {
		return request{}, apperr.Invalid("%s is taken over REST and the Connect protocol, not gRPC", Header)
	}
	principal, _ := auth.PrincipalFrom(r.Context())
	scope, err := scopeOf(principal)
	if err != nil {
		return request{}, err
	}
	return request{scope: scope, key: key, procedure: p.Name}, nil
}

// run calls the handler under the claim, records its answer, stores it, and
// only then sends it, so a retry that finds the record done gets this answer.
func (g *Guard) run(w http.ResponseWriter, r *http.Request, c *claimed, next http.Handler) {
	var over atomic.Bool // transactions after the handler returned are not its change
	ctx := db.WithTxHook(r.Context(), func(ctx context.Context, tx *ent.Tx) error {
		if over.Load() {
			return nil
		}
		return c.mark(ctx, tx)
	})
	rec := &recorder{w: w}
	defer func() {
		if p := recover(); p != nil {
			over.Store(true)
			g.release(r.Context(), c)
			panic(p)
		}
	}()
	next.ServeHTTP(rec, r.WithContext(ctx))
	over.Store(true)
	a := rec.answer()
	g.finish(r.Context(), c, a)
	send(w, a)
}

// readBody reads the whole body within limit and puts it back for the
// handler; whole is false when it is larger or unreadable, and the handler
// then reads the same bytes and error the guard met.
func readBody(r *http.Request, limit int64) (body []byte, whole bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	orig := r.Body
	data, err := io.ReadAll(io.LimitReader(orig, limit+1))
	switch {
	case err != nil:
		r.Body = readCloser{io.MultiReader(bytes.NewReader(data), errReader{err}), orig}
		return nil, false
	case int64(len(data)) > limit:
		r.Body = readCloser{io.MultiReader(bytes.NewReader(data), orig), orig}
		return nil, false
	}
	r.Body = readCloser{bytes.NewReader(data), orig}
	return data, true
}

type readCloser struct {
	io.Reader
	io.Closer
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
