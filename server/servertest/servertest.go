// Package servertest starts a real Switchboard server on loopback for tests,
// over a fresh SQLite file (or PostgreSQL schema when SWITCHBOARD_TEST_POSTGRES
// is set), with an adjustable clock and helpers for REST and Connect callers.
package servertest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/jonboulle/clockwork"
	"golang.org/x/crypto/bcrypt"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/store"
)

// Clock is a settable clock; it starts at the real time. Timers made from it
// (the webhook dispatcher's) fire when Advance passes them.
type Clock struct{ *clockwork.FakeClock }

// Server is a running server and what a test needs to talk to it.
type Server struct {
	URL   string
	App   *server.App
	DB    *db.DB
	Clock *Clock
	// HTTP is a plain client with a timeout, speaking HTTP/1.1.
	HTTP *http.Client
	// H2C speaks cleartext HTTP/2, for the gRPC protocol.
	H2C *http.Client
	t   testing.TB
}

// Option changes the server's configuration.
type Option func(*server.Config)

// WithPrivateEndpoints lets outbound calls reach loopback, where tests run
// their receivers (docs/decisions.md "Store, federation, MCP, A2A").
func WithPrivateEndpoints() Option { return func(c *server.Config) { c.AllowPrivateEndpoints = true } }

// WithLimits sets the rate limits (tests lower them to reach them).
func WithLimits(l gate.Limits) Option { return func(c *server.Config) { c.Limits = l } }

// WithHeartbeat sets the chat stream's heartbeat period.
func WithHeartbeat(d time.Duration) Option { return func(c *server.Config) { c.Heartbeat = d } }

// WithStreamWriteTimeout sets the bound on each write to an event stream.
func WithStreamWriteTimeout(d time.Duration) Option {
	return func(c *server.Config) { c.StreamWriteTimeout = d }
}

// WithLogger sends the server's logs to l (they are discarded otherwise), for
// tests that check what is logged.
func WithLogger(l *slog.Logger) Option { return func(c *server.Config) { c.Logger = l } }

// WithSecretKey sets the instance key, for tests that open what the server
// sealed.
func WithSecretKey(key []byte) Option { return func(c *server.Config) { c.SecretKey = key } }

// WithoutSecretKey runs the server without an instance key (the default
// test server has a random one), as an instance that never configured it.
func WithoutSecretKey() Option { return func(c *server.Config) { c.SecretKey = nil } }

// WithReviewPolicy sets the store's review policy (docs/decisions.md "Store,
// federation, MCP, A2A").
func WithReviewPolicy(p store.ReviewPolicy) Option {
	return func(c *server.Config) { c.ReviewPolicy = p }
}

// WithLLM points the server at an OpenAI-compatible provider (a fake on
// loopback, such as llmtest's), with a chat, a transcription and an image
// model.
func WithLLM(baseURL string) Option {
	return func(c *server.Config) {
		c.LLM = llm.New(llm.Config{BaseURL: baseURL, Model: "test-model", TranscriptionModel: "test-stt", ImageModel: "test-image"})
	}
}

// WithLLMClient uses c as the provider (a model configuration of the
// test's own, such as chat without an image model).
func WithLLMClient(c *llm.Client) Option { return func(cfg *server.Config) { cfg.LLM = c } }

// WithDB serves d instead of a fresh database (a fixture the test opened).
func WithDB(d *db.DB) Option { return func(c *server.Config) { c.DB = d } }

// selfURL stands for the test server's own address until it is known.
const selfURL = "http://servertest.invalid"

// WithSelfPublicURL makes the server's public URL its own loopback address
// (an instance another test server calls back: federation).
func WithSelfPublicURL() Option { return func(c *server.Config) { c.Executions.PublicURL = selfURL } }

// WithCronSecret sets --cron-secret.
func WithCronSecret(secret string) Option {
	return func(c *server.Config) { c.CronSecret = secret }
}

// WithEconomyHoldLimit caps what a client may hold open on the ledger, in
// cents (--economy-hold-limit).
func WithEconomyHoldLimit(cents int64) Option {
	return func(c *server.Config) { c.EconomyHoldLimit = cents }
}

// WithMetricsToken serves GET /metrics on the server's address to
// "Authorization: Bearer token" (--metrics-token).
func WithMetricsToken(token string) Option { return func(c *server.Config) { c.MetricsToken = token } }

// WithRole runs the server as a hub ("hub") or standalone.
func WithRole(role string) Option { return func(c *server.Config) { c.Federation.Role = role } }

// WithNetwork sets the operator network's flags (--federation,
// --federation-allowlist, --federation-allow-private).
func WithNetwork(c network.Config) Option {
	return func(cfg *server.Config) { cfg.Federation.Network = c }
}

// WithTracing exports the server's spans to the OTLP/HTTP receiver at
// endpoint, in batches of at most 20 ms (tests wait for them).
func WithTracing(endpoint string) Option {
	return func(c *server.Config) {
		c.Tracing = server.TracingConfig{OTLPEndpoint: endpoint, BatchTimeout: 20 * time.Millisecond}
	}
}

// New starts a server for the test and stops it when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	return start(t, time.Now().UTC().Truncate(time.Millisecond), nil, opts...)
}

// Replicas starts n servers on one database, as n replicas behind a load
// balancer (RULINGS "Replicas and operations"): each has its own handle on
// the database, its own replica id and its own clock, and the clocks start
// at the same instant. A test that moves one replica's clock and not
// another's ages the other's row in the replicas' registry, as a crash does.
func Replicas(t testing.TB, n int, opts ...Option) []*Server {
	t.Helper()
	dsn := dbtest.DSN(t)
	at := time.Now().UTC().Truncate(time.Millisecond)
	out := make([]*Server, n)
	for i := range out {
		out[i] = start(t, at, dbtest.OpenDSN(t, dsn), opts...)
	}
	return out
}

// start starts a server whose clock reads at, on d (a fresh database when
// nil).
func start(t testing.TB, at time.Time, d *db.DB, opts ...Option) *Server {
	t.Helper()
	clock := &Clock{clockwork.NewFakeClockAt(at)}
	if d == nil {
		d = dbtest.Open(t)
	}
	cfg := server.Config{
		DB:         d,
		Logger:     slog.New(slog.DiscardHandler),
		BcryptCost: bcrypt.MinCost,
		Clock:      clock,
		// High enough that only the rate-limit tests reach a limit.
		Limits: gate.Limits{PerKey: 100000, Auth: 100000, Heavy: 100000, Federation: 100000, Secret: 100000},
		// A fresh instance key per server: credentials sealed by one test
		// server open nowhere else.
		SecretKey: randomKey(t),
	}
	for _, o := range opts {
		o(&cfg)
	}
	// Listening before the handler exists gives the address a public URL needs.
	ts := httptest.NewUnstartedServer(nil)
	if cfg.Executions.PublicURL == selfURL {
		cfg.Executions.PublicURL = "http://" + ts.Listener.Addr().String()
	}
	h, err := server.New(cfg)
	if err != nil {
		ts.Close()
		t.Fatalf("server.New: %v", err)
	}
	ts.Config.Handler = h
	ts.Config.Protocols = new(http.Protocols)
	ts.Config.Protocols.SetHTTP1(true)
	ts.Config.Protocols.SetUnencryptedHTTP2(true)
	ts.Config.ReadHeaderTimeout = 10 * time.Second
	ts.Start()
	t.Cleanup(ts.Close)
	// Runs before ts.Close: ends open streams so that Close need not wait for them.
	t.Cleanup(h.Close)
	h2c := &http.Transport{Protocols: new(http.Protocols)}
	h2c.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(h2c.CloseIdleConnections)
	return &Server{
		URL: ts.URL, App: h, DB: cfg.DB, Clock: clock, t: t,
		HTTP: &http.Client{Timeout: 30 * time.Second},
		H2C:  &http.Client{Timeout: 30 * time.Second, Transport: h2c},
	}
}

func randomKey(t testing.TB) []byte {
	k := make([]byte, secrets.KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatalf("instance key: %v", err)
	}
	return k
}

// From is the same server as seen by clients whose connections start at
// addr, another loopback address (Linux routes all of 127.0.0.0/8 to lo):
// the gate counts some limits per client IP (forwarding headers are not
// trusted), so a test of them needs more than one client address. Callers,
// accounts (SignUp) and Connect clients (Client) made from it use addr.
func (s *Server) From(addr string) *Server {
	s.t.Helper()
	ip := net.ParseIP(addr)
	if ip == nil || !ip.IsLoopback() {
		s.t.Fatalf("From(%q): not a loopback address", addr)
	}
	dial := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 10 * time.Second}).DialContext
	h1 := &http.Transport{DialContext: dial}
	h2c := &http.Transport{DialContext: dial, Protocols: new(http.Protocols)}
	h2c.Protocols.SetUnencryptedHTTP2(true)
	s.t.Cleanup(h1.CloseIdleConnections)
	s.t.Cleanup(h2c.CloseIdleConnections)
	c := *s
	c.HTTP = &http.Client{Timeout: 30 * time.Second, Transport: h1}
	c.H2C = &http.Client{Timeout: 30 * time.Second, Transport: h2c}
	return &c
}

// Response is a REST answer, read whole.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value.
func (r *Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v\n%s", err, r.Body)
	}
	return m
}

// Caller makes plain HTTP requests with one set of credentials.
type Caller struct {
	s      *Server
	client *http.Client
	header http.Header
}

// Anonymous calls with no credentials.
func (s *Server) Anonymous() *Caller {
	return &Caller{s: s, client: s.HTTP, header: http.Header{}}
}

// WithKey calls with "Authorization: Bearer key".
func (s *Server) WithKey(key string) *Caller {
	c := s.Anonymous()
	c.header.Set("Authorization", "Bearer "+key)
	return c
}

// Header is the caller's credentials, for requests built by hand.
func (c *Caller) Header() http.Header { return c.header }

// Do sends a request; body is marshalled as JSON unless it is a string or nil.
func (c *Caller) Do(method, path string, body any, hdr ...string) *Response {
	c.s.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.s.t.Fatalf("marshal body: %v", err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, c.s.URL+path, rd)
	if err != nil {
		c.s.t.Fatalf("new request: %v", err)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := c.client.Do(req)
	if err != nil {
		c.s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		c.s.t.Fatalf("read %s %s: %v", method, path, err)
	}
	return &Response{Status: res.StatusCode, Header: res.Header, Body: data}
}

// Account is a signed-up account with a logged-in session.
type Account struct {
	ID, Username, Email, Password string
	// Session calls with the session cookie and a same-origin Origin header.
	Session *Caller
	// Jar holds the session cookie, for Connect clients.
	Jar http.CookieJar
}

// Password is the password every helper-made account gets.
const Password = "correct horse battery"

// SignUp makes an account (the first one through /api/setup, so it is the owner)
// and logs it in.
func (s *Server) SignUp(username string) *Account {
	s.t.Helper()
	email := username + "@example.com"
	path := "/api/signup"
	body := map[string]any{"username": username, "email": email, "password": Password, "name": strings.ToUpper(username[:1]) + username[1:]}
	if n, err := s.DB.User.Query().Count(context.Background()); err != nil {
		s.t.Fatalf("count users: %v", err)
	} else if n == 0 {
		path = "/api/setup"
		body["acceptedTerms"] = true
	}
	res := s.Anonymous().Do(http.MethodPost, path, body)
	if res.Status != http.StatusCreated {
		s.t.Fatalf("sign up %s: %d %s", username, res.Status, res.Body)
	}
	id, _ := res.JSON(s.t)["user"].(map[string]any)["id"].(string)
	jar, _ := cookiejar.New(nil)
	sess := &Caller{s: s, client: &http.Client{Timeout: 30 * time.Second, Jar: jar, Transport: s.HTTP.Transport}, header: http.Header{}}
	sess.header.Set("Origin", s.URL)
	if res := sess.Do(http.MethodPost, "/api/auth/login", map[string]any{"username": username, "password": Password}); res.Status != http.StatusOK {
		s.t.Fatalf("log in %s: %d %s", username, res.Status, res.Body)
	}
	return &Account{ID: id, Username: username, Email: email, Password: Password, Session: sess, Jar: jar}
}

// NewKey creates an API key for the account through the REST endpoint.
func (a *Account) NewKey(label string, scopes ...string) string {
	a.Session.s.t.Helper()
	if scopes == nil {
		scopes = []string{}
	}
	res := a.Session.Do(http.MethodPost, "/api/v2/keys", map[string]any{"label": label, "scopes": scopes})
	if res.Status != http.StatusCreated {
		a.Session.s.t.Fatalf("create key: %d %s", res.Status, res.Body)
	}
	key, _ := res.JSON(a.Session.s.t)["apiKey"].(string)
	return key
}

// BearerInterceptor adds an API key to every Connect call.
func BearerInterceptor(key string) connect.Interceptor { return bearer(key) }

// bearer sets the Authorization header on unary calls and client streams.
type bearer string

func (b bearer) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		req.Header().Set("Authorization", "Bearer "+string(b))
		return next(ctx, req)
	}
}

func (b bearer) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		conn.RequestHeader().Set("Authorization", "Bearer "+string(b))
		return conn
	}
}

func (b bearer) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}

// Protocols are the ways a client can call a Connect handler, by name: the
// Connect protocol in JSON and in binary, gRPC and gRPC-Web.
func Protocols() map[string][]connect.ClientOption {
	return map[string][]connect.ClientOption{
		"connect+json":  {connect.WithProtoJSON()},
		"connect+proto": nil,
		"grpc":          {connect.WithGRPC()},
		"grpcweb":       {connect.WithGRPCWeb()},
	}
}

// Client picks the HTTP client a protocol needs (gRPC needs HTTP/2).
func (s *Server) Client(protocol string) *http.Client {
	if protocol == "grpc" {
		return s.H2C
	}
	return s.HTTP
}

// Ensure the generated package is linked so descriptors are registered even in
// tests that only use REST.
var _ = switchboardv1.File_switchboard_v1_settings_proto
