// Package gate decides, for both transports alike, who may call what: it
// resolves credentials, applies the rate limits (docs/decisions.md "Rate limits") and
// admits a request to a procedure according to the contract's access rules.
// Connect reaches it through a wrapper keyed by procedure path, REST through a
// grpc-gateway middleware keyed by the matched route; the decision is Admit.
package gate

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-chi/httprate"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/metrics"
	"github.com/switchboard-hq/switchboard/internal/replica"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/httpapi"
)

// Limits are requests per minute; zero takes the documented default
// (docs/decisions.md "Rate limits").
type Limits struct {
	PerKey     int // 120: every API request, per key (or session user, or client IP)
	Auth       int // 10: login, signup, setup, per client IP
	Heavy      int // 20: store executions, A2A sends, MCP marketplace tools, per client IP
	Federation int // 30: per calling instance (per client IP without one)
	Cron       int // 10: the cron route (--cron-secret), per client IP
	// Secret is 10: attempts at one guessable secret (a pack's access
	// password, a listing's unlock) across clients; each attempt also
	// counts in the client's Auth window (Guess).
	Secret int
	// StreamsPerKey (50) and MCPSessionsPerKey (50) are caps on what is
	// open at once, not rates (streams.go).
	StreamsPerKey     int
	MCPSessionsPerKey int
}

func (l Limits) withDefaults() Limits {
	def := func(v, d int) int {
		if v > 0 {
			return v
		}
		return d
	}
	return Limits{PerKey: def(l.PerKey, 120), Auth: def(l.Auth, 10), Heavy: def(l.Heavy, 20), Federation: def(l.Federation, 30), Cron: def(l.Cron, 10),
		Secret: def(l.Secret, 10), StreamsPerKey: def(l.StreamsPerKey, 50), MCPSessionsPerKey: def(l.MCPSessionsPerKey, 50)}
}

const window = time.Minute

// Gate holds the access table, the credential resolver and the limiters.
// It limits guesses at secrets for the services (auth.Guesses).
type Gate struct {
	table    *contract.Table
	resolver *auth.Resolver
	general  limiter
	classes  map[string]limiter
	// secrets counts the attempts at each guessable secret (Guess).
	secrets limiter
	// instance names the calling instance for the federation class.
	instance CallerInstance
	// streams and sessions are the caps on what is open at once (streams.go).
	streams, sessions *slots
	// streamsOpen counts every open stream (StreamsOpen).
	streamsOpen atomic.Int64
	// checks are the credential checks of public procedures whose handlers
	// read a credential of their own (Check).
	checks map[string]Check
}

// Check refuses a request whose credential a public procedure does not take:
// the operator network's switch (403), the role's (404), then the platform
// token, the peer's federation token or the hub's secret (401). It reads the
// credentials only, never the body.
type Check func(ctx context.Context) error

// Check makes Admit run check for each named procedure before the request's
// body or query is read (RULINGS "Credentials before bodies": the switch,
// then the credential, then the body), whatever order its handler reads
// them in. reads names the credentials check reads: they must be those the
// procedure's rule in the contract names besides the key and the session
// (which the gate resolves itself), so the contract (and the OpenAPI made
// from it) and the check cannot disagree. A procedure the contract lacks or
// a disagreement is a wiring mistake, and panics, as a mux does on a wrong
// pattern. Call it before serving.
func (g *Gate) Check(reads []switchboardv1.Credential, check Check, procedures ...string) {
	if g.checks == nil {
		g.checks = map[string]Check{}
	}
	for _, name := range procedures {
		p, ok := g.table.ByName(name)
		if !ok {
			panic("gate: Check names " + name + ", which is no procedure of the contract")
		}
		if named := ownCredentials(p.Rule.GetCredentials()); !sameSet(named, reads) {
			panic(fmt.Sprintf("gate: %s: its check reads %v, its rule in the contract names %v", name, reads, named))
		}
		g.checks[name] = check
	}
}

// ownCredentials are the credentials of a rule that a procedure's check
// reads: all but the key and the session.
func ownCredentials(all []switchboardv1.Credential) []switchboardv1.Credential {
	return slices.DeleteFunc(slices.Clone(all), func(c switchboardv1.Credential) bool {
		return c == switchboardv1.Credential_CREDENTIAL_KEY || c == switchboardv1.Credential_CREDENTIAL_SESSION
	})
}

func sameSet(a, b []switchboardv1.Credential) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

var _ auth.Guesses = (*Gate)(nil)

// CallerInstance names the instance a federation request comes from (the
// instance of a hub's platform token, the hub of a spoke's
// X-Federation-Token); "" when the request presents no credential this
// instance knows.
type CallerInstance func(ctx context.Context, r *http.Request) string

// CountFederationBy makes the federation class count per calling instance,
// as named by f; a request that names none (an anonymous call of a public
// route such as discover) is counted per client IP. Call it before serving.
func (g *Gate) CountFederationBy(f CallerInstance) { g.instance = f }

// Config is what a Gate needs.
type Config struct {
	Table    *contract.Table
	Resolver *auth.Resolver
	Limits   Limits
	// DB holds the rate counters and the stream slots, shared by every
	// replica (ratecount.go, streams.go).
	DB *db.DB
	// Now is the server's clock: the rate windows.
	Now func() time.Time
	// Replica is this process among the replicas: its stream slots are its
	// own, and a dead replica's stop counting.
	Replica *replica.Registry
}

// New makes a Gate.
func New(cfg Config) *Gate {
	limits := cfg.Limits.withDefaults()
	c := newCounters(cfg.DB, cfg.Now)
	mk := func(n int) limiter { return limiter{c: c, limit: n} }
	return &Gate{
		table:    cfg.Table,
		resolver: cfg.Resolver,
		general:  mk(limits.PerKey),
		classes: map[string]limiter{
			"auth": mk(limits.Auth), "heavy": mk(limits.Heavy), "federation": mk(limits.Federation),
			"cron": mk(limits.Cron),
		},
		secrets:  mk(limits.Secret),
		streams:  newSlots(cfg, kindStream, limits.StreamsPerKey),
		sessions: newSlots(cfg, kindMCPSession, limits.MCPSessionsPerKey),
	}
}

// Identify is middleware for all API traffic (REST and Connect): it refuses a
// path, query or read header that is not text, resolves the presented
// credentials and applies the per-key limit, setting the three X-RateLimit
// headers on every response.
func (g *Gate) Identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkText(r); err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		creds, err := g.resolver.Resolve(r.Context(), r)
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		r = r.WithContext(auth.WithClient(auth.WithCredentials(r.Context(), creds), clientIP(r)))
		if err := refusal(g.general.onLimit(w, r, identity(r, creds))); err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// identity is what the per-key limit counts by.
func identity(r *http.Request, c *auth.Credentials) string {
	switch {
	case c.Key != nil:
		return "key:" + c.Key.KeyID
	case c.Session != nil && !c.KeyPresented:
		return "user:" + c.Session.UserID
	}
	return "ip:" + clientIP(r)
}

// clientIP is the peer address. Forwarding headers are not trusted: the server
// does not know which proxies, if any, stand in front of it.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return httprate.CanonicalizeIP(host)
}

// Admit decides whether the identified request may call p, applies p's rate
// class, and returns the context carrying the admitted Principal.
func (g *Gate) Admit(w http.ResponseWriter, r *http.Request, p *contract.Procedure) (context.Context, error) {
	ctx := r.Context()
	creds := auth.CredentialsFrom(ctx)
	if err := g.Charge(w, r, p.RateClass); err != nil {
		return nil, err
	}
	if check := g.checks[p.Name]; check != nil {
		if err := check(ctx); err != nil {
			return nil, err
		}
	}
	if p.Public && (p.AcceptKey || p.AcceptSess) {
		// A public procedure that also names credentials (the store
		// lifecycle: its sweep needs none, its confirm does) admits everyone;
		// the handler learns whom the credential rule admits, or why not.
		principal, err := decide(r, &contract.Procedure{AcceptKey: p.AcceptKey, AcceptSess: p.AcceptSess, Scope: p.Scope, Scopes: p.Scopes}, creds)
		if err != nil {
			return auth.WithRefusal(ctx, err), nil
		}
		return auth.WithPrincipal(ctx, described(principal, r)), nil
	}
	principal, err := decide(r, p, creds)
	if err != nil {
		return nil, err
	}
	if principal != nil {
		ctx = auth.WithPrincipal(ctx, described(principal, r))
	}
	return ctx, nil
}

// described is the admitted principal with what services may know of the
// request besides its message (the agent's name, the transport), so that no
// service reads a header. Each request resolves its own principal.
func described(p *auth.Principal, r *http.Request) *auth.Principal {
	if p != nil {
		p.Agent = r.Header.Get(auth.AgentHeader)
		p.REST = contract.IsREST(r.URL.Path)
	}
	return p
}

// Charge counts one request of r's client against a rate class (none when
// class is empty or unknown) and refuses it over the class's limit. Admit
// charges a procedure's class; a protocol door charges the class of what the
// body asks for (an MCP tool that runs a store agent is heavy).
func (g *Gate) Charge(w http.ResponseWriter, r *http.Request, class string) error {
	if l, ok := g.classes[class]; ok {
		return refusal(l.onLimit(w, r, g.client(r, class)))
	}
	return nil
}

// Count counts one request against a rate class under key, a name the
// handler learns only from the body (the calling origin of a handshake), and
// refuses it over the class's limit; an unknown class counts nothing. The
// window and limit are the class's; the keys are apart from its client-IP
// ones, so such a count never spends an address's budget.
func (g *Gate) Count(ctx context.Context, class, key string) error {
	l, ok := g.classes[class]
	if !ok {
		return nil
	}
	// onLimit reads only the request's context; the class's headers are not
	// this answer's (the error carries Retry-After).
	return refusal(l.onLimit(headerSink{}, (&http.Request{}).WithContext(ctx), class+":key:"+key))
}

// headerSink is a response writer that keeps nothing.
type headerSink struct{}

func (headerSink) Header() http.Header         { return http.Header{} }
func (headerSink) Write(b []byte) (int, error) { return len(b), nil }
func (headerSink) WriteHeader(int)             {}

// client is whom a class counts r against: the calling instance for the
// federation class when it names one, else the client IP.
func (g *Gate) client(r *http.Request, class string) string {
	if class == "federation" && g.instance != nil {
		if id := g.instance(r.Context(), r); id != "" {
			return "federation:instance:" + id
		}
	}
	return classKey(class, clientIP(r))
}

// classKey is the counter of a rate class for one client address.
func classKey(class, ip string) string { return class + ":" + ip }

// Guess counts one attempt at a secret that can be guessed and is no login's
// password (auth.Guesses): first in the auth class's window of the client
// (auth.ClientFrom), the one logins, signups and setups count in, then in the
// secret's own window across clients. Every attempt counts, right or wrong,
// before the secret is compared, as a login does: over either window the
// attempt is refused whatever the password, so a refusal never tells which
// guess was right, and concurrent guesses cannot pass a check that would
// count them only once they were found wrong. An attempt the client's window
// refuses is not counted against the secret's.
func (g *Gate) Guess(ctx context.Context, secret string) error {
	// The limiters read only the request's context, and write their headers
	// to a response that is dropped: the per-key headers stay the answer's.
	r := (&http.Request{}).WithContext(ctx)
	w := headerSink{}
	if err := refusal(g.classes["auth"].onLimit(w, r, classKey("auth", auth.ClientFrom(ctx)))); err != nil {
		return err
	}
	return refusal(g.secrets.onLimit(w, r, "secret:"+secret))
}

func decide(r *http.Request, p *contract.Procedure, c *auth.Credentials) (*auth.Principal, error) {
	if p.Public {
		// A public procedure ignores a bad key but still knows a good caller.
		if c.Key != nil {
			return c.Key, nil
		}
		return c.Session, nil
	}
	if c.KeyPresented {
		if c.KeyErr != nil {
			return nil, keyRefusal(c)
		}
		if !p.AcceptKey {
			return nil, apperr.Forbidden("API keys cannot call this endpoint; it needs a dashboard session")
		}
		if !slices.ContainsFunc(p.Scopes, c.Key.HasScope) {
			var e *apperr.Error
			if len(p.Scopes) > 1 {
				e = apperr.Forbidden("API key lacks a scope for this endpoint: it needs one of %q", p.Scopes)
			} else {
				e = apperr.Forbidden("API key lacks the %q scope", p.Scope)
			}
			e.Cause = ErrMissingScope // a Bearer door names the scope in its challenge
			return nil, e
		}
		return c.Key, nil
	}
	if p.AcceptSess && c.Session != nil {
		if !sameOriginOrConnect(r) {
			return nil, apperr.Forbidden("cross-site request refused: send a same-origin Origin header or the Connect-Protocol-Version header")
		}
		return c.Session, nil
	}
	if p.AcceptKey {
		return nil, apperr.Unauthenticated("missing API key: send \"Authorization: Bearer <API key>\"")
	}
	return nil, apperr.Unauthenticated("not logged in: POST /api/auth/login first")
}

// keyRefusal is why a presented key admits no one; a bearer token that
// resolved to no usable key is marked ErrUnusableKey, while a header that
// carries no bearer token at all (another scheme) is only unauthenticated.
func keyRefusal(c *auth.Credentials) error {
	if c.Bearer == "" {
		return c.KeyErr
	}
	e := *c.KeyErr
	e.Cause = ErrUnusableKey
	return &e
}

// sameOriginOrConnect is the CSRF rule for session callers (docs/decisions.md
// "Accounts, keys, sessions"): reads pass; a change needs the Connect protocol header (a
// browser cannot send it cross-site without a preflight we never grant), a gRPC
// content type (likewise), or an Origin naming this very host.
func sameOriginOrConnect(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	if r.Header.Get("Connect-Protocol-Version") != "" || strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

// Connect wraps the Connect handlers: the procedure is the request path.
func (g *Gate) Connect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := g.table.ByName(r.URL.Path)
		if !ok {
			httpapi.UnknownProcedure(w, r)
			return
		}
		metrics.Route(r.Context(), p.Name, metrics.Connect)
		ctx, err := g.Admit(w, r, p)
		if err != nil {
			httpapi.WriteError(w, r, err)
			return
		}
		if p.Descriptor != nil && p.Descriptor.IsStreamingServer() {
			// A streaming procedure holds a stream slot while it runs.
			release, err := g.OpenStream(ctx)
			if err != nil {
				httpapi.WriteError(w, r, err)
				return
			}
			defer release()
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// Procedure admits a plain HTTP handler as the named procedure (its Connect
// path), such as the Server-Sent Events twin of a streaming RPC: same access
// rule, REST-shaped refusals. An unknown name is refused (fail closed).
func (g *Gate) Procedure(name string, next http.Handler) http.Handler {
	p, known := g.table.ByName(name)
	if !known {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			httpapi.WriteREST(w, r, apperr.Forbidden("route %s %s has no access rule", r.Method, r.URL.Path))
		})
	}
	return g.Endpoint(p, next)
}

// Endpoint admits a plain HTTP handler under an access rule of its own, for
// the protocol doors that are not RPCs of the contract (MCP, A2A): same
// credentials, scopes and rate classes, REST-shaped refusals.
func (g *Gate) Endpoint(p *contract.Procedure, next http.Handler) http.Handler {
	return g.endpoint(p, false, next)
}

// endpoint is Endpoint, answering Bearer challenges when bearer is set
// (BearerEndpoint).
func (g *Gate) endpoint(p *contract.Procedure, bearer bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if bearer {
			w = &challenging{ResponseWriter: w}
		}
		metrics.Route(r.Context(), p.Name, metrics.HTTP)
		ctx, err := g.Admit(w, r, p)
		if err != nil {
			if bearer {
				setChallenge(w.Header(), p, err)
			}
			httpapi.WriteREST(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// Gateway is the grpc-gateway middleware: the procedure is the matched route. A
// route missing from the access table is refused (fail closed).
func (g *Gate) Gateway(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		pat, ok := runtime.HTTPPattern(r.Context())
		var p *contract.Procedure
		if ok {
			p, ok = g.table.ByRoute(r.Method, pat.String())
		}
		if !ok {
			httpapi.WriteREST(w, r, apperr.Forbidden("route %s %s has no access rule", r.Method, r.URL.Path))
			return
		}
		metrics.Route(r.Context(), p.Name, metrics.REST)
		ctx, err := g.Admit(w, r, p)
		if err == nil {
			err = emptyPathParam(p, params)
		}
		if err == nil {
			err = checkPath(p, params)
		}
		if err != nil {
			httpapi.WriteREST(w, r, err)
			return
		}
		next(w, r.WithContext(ctx), params)
	}
}
