// Package mcp is the Model Context Protocol door at /api/mcp, on the official
// Go SDK: Streamable HTTP (POST, and GET for the server's own stream) plus
// the documented bare bodies ({method, params} without jsonrpc, answered with
// the bare result). Every tool calls the same service method as the API, with
// the same validation, isolation, activity and events; a tool needs the
// `mcp` scope (the gate) and the scopes of the procedures it calls.
//
// Each account has its own SDK server, because its tool list is its own (one
// marketplace_{slug} tool per installed store agent): when an install changes
// the list, the SDK tells that account's open sessions with
// notifications/tools/list_changed.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/contract"
)

// Path is where the door is mounted.
const Path = "/api/mcp"

// Version is the server's version as the server card and initialize report
// it (docs/decisions.md "MCP").
const Version = "1.4.0"

// SessionTimeout closes a session no request has used for this long.
const SessionTimeout = 30 * time.Minute

// Services are the service implementations the tools call: the same values
// the API mounts.
type Services struct {
	Queue        switchboardv1connect.QueueServiceHandler
	Contacts     switchboardv1connect.ContactServiceHandler
	Kanban       switchboardv1connect.KanbanServiceHandler
	Settings     switchboardv1connect.SettingsServiceHandler
	Activity     switchboardv1connect.ActivityServiceHandler
	Chat         switchboardv1connect.SharedChatServiceHandler
	Store        switchboardv1connect.StoreServiceHandler
	Review       switchboardv1connect.StoreReviewServiceHandler
	Executions   switchboardv1connect.StoreExecutionServiceHandler
	Capabilities switchboardv1connect.CapabilityServiceHandler
	Network      Network
	Relays       Relays
	// Teams answers entity_resolve's team_members (groups.Service).
	Teams switchboardv1connect.TeamServiceHandler
	// Now is the Now order briefing_get lists what awaits approval in.
	Now switchboardv1connect.NowServiceHandler
	// Calendar answers entity_resolve's calendar events (calendar.Service).
	Calendar Calendar
}

// Calendar finds an account's calendar events by words.
type Calendar interface {
	Matching(ctx context.Context, userID, query string) ([]*switchboardv1.CalendarEvent, error)
}

// Config is what the door needs.
type Config struct {
	Services
	// Table gives the scopes and rate classes of the procedures tools call.
	Table *contract.Table
	// DB reads an account's installed store agents and packs.
	DB     *ent.Client
	Logger *slog.Logger
	// BodyLimit caps a request body (the server's limit).
	BodyLimit int64
	// Charge counts a request against a rate class (the gate's Charge).
	Charge func(w http.ResponseWriter, r *http.Request, class string) error
	// OpenStream and OpenSession take a slot of the caller's streams (a
	// GET stream) and MCP sessions (gate.Gate.OpenStream, OpenMCPSession),
	// or answer the 429 to send instead; nil counts nothing.
	OpenStream  func(ctx context.Context) (release func(), err error)
	OpenSession func(ctx context.Context) (release func(), err error)
	// Now is business time (the briefing's windows).
	Now func() time.Time
	// Hear calls fn on this replica whenever an account's installs change,
	// on whichever replica (the event bus's store_changed); nil hears
	// nothing, and Changed must be called instead.
	Hear func(userID string, fn func(ctx context.Context))
}

// Server is the MCP door: an http.Handler for Path.
type Server struct {
	cfg      Config
	tools    []*tool
	byName   map[string]*tool
	sessions *sdk.StreamableHTTPHandler
	bare     *sdk.StreamableHTTPHandler

	mu       sync.Mutex
	accounts map[string]*account
	briefed  map[string]time.Time // last briefing per account
	keyOf    map[string]string    // session id → the key that opened it
	slots    map[string]func()    // session id → gives back its session slot
	streams  map[*getStream]bool  // the open GET streams (drain.go)
	draining bool                 // Drain has run
}

// account is one account's SDK server and the store tools it holds now.
type account struct {
	server  *sdk.Server
	mu      sync.Mutex
	store   map[string]*tool                  // marketplace_{slug} by tool name
	prompts map[string]*ent.CapabilityInstall // installed packs by prompt name
}

// New builds the door. A session lives until its client ends it, it idles
// past SessionTimeout, its key stops admitting (EndStreams) or Close.
func New(cfg Config) (*Server, error) {
	if cfg.Table == nil || cfg.DB == nil || cfg.Charge == nil || cfg.Now == nil || cfg.BodyLimit <= 0 {
		return nil, errors.New("mcp: Config needs Table, DB, Charge, Now and BodyLimit")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, accounts: map[string]*account{}, briefed: map[string]time.Time{}, keyOf: map[string]string{},
		slots: map[string]func(){}}
	s.tools = staticTools(s)
	s.byName = map[string]*tool{}
	for _, t := range s.tools {
		if err := t.bind(cfg.Table); err != nil {
			return nil, err
		}
		s.byName[t.name] = t
	}
	opts := &sdk.StreamableHTTPOptions{
		Logger:              cfg.Logger,
		MaxRequestBodyBytes: cfg.BodyLimit,
		// A client that goes away without ending its session does not
		// leave it open for ever.
		SessionTimeout: SessionTimeout,
		// The SDK's DNS-rebinding check (a loopback listener refuses a
		// request whose Host is not loopback) stays on.
	}
	s.sessions = sdk.NewStreamableHTTPHandler(s.serverFor, opts)
	bare := *opts
	bare.Stateless, bare.JSONResponse = true, true
	s.bare = sdk.NewStreamableHTTPHandler(s.serverFor, &bare)
	return s, nil
}

// principalKey is where the admitted caller travels through the SDK, which
// detaches a session's handlers from the HTTP request's context but hands
// each call the token info of the request that carried it; clientKey is
// where the caller's address travels beside it (the gate counts guesses at
// passwords by it, auth.ClientFrom).
const (
	principalKey = "principal"
	clientKey    = "client"
)

// Serve serves Path; a refusal before the SDK answers is returned for the
// transport to write. The gate has admitted the caller (an API key with the
// mcp scope).
func (s *Server) Serve(w http.ResponseWriter, r *http.Request) error {
	p, err := auth.RequirePrincipal(r.Context())
	if err != nil {
		return err
	}
	if r.Method == http.MethodPost {
		body, err := s.readBody(r)
		if err != nil {
			return err
		}
		msg := probe(body)
		if err := s.chargeCalls(w, r, msg.calls); err != nil {
			return err
		}
		if msg.bare {
			return s.serveBare(w, r, msg)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	release, err := s.take(r)
	if err != nil {
		return err
	}
	if r.Method == http.MethodGet {
		var done func()
		w, r, done = s.drainable(w, r)
		defer done()
	}
	sw := &sessionWriter{ResponseWriter: w, opened: func(id string) { s.noteSession(id, p.KeyID) }}
	withCaller(p, auth.ClientFrom(r.Context()), s.sessions).ServeHTTP(sw, r)
	switch {
	case release != nil && r.Method == http.MethodGet:
		release() // the stream has ended
	case release != nil:
		s.holdSession(r.Context(), p.UserID, sw.id, release)
	case r.Method == http.MethodDelete && sw.status == http.StatusNoContent:
		// Given back now, not when the closed session's watcher runs: the
		// client may open the next one at once.
		s.endSession(r.Header.Get("Mcp-Session-Id"))
	}
	return nil
}

// take takes the slot r needs (RULINGS "Security details"): a stream slot
// for the GET stream, held while it is served, and a session slot for a POST
// without a session id, which makes a session (held until it closes); other
// requests need none (release is nil).
func (s *Server) take(r *http.Request) (release func(), err error) {
	switch {
	case r.Method == http.MethodGet && s.cfg.OpenStream != nil:
		return s.cfg.OpenStream(r.Context())
	case r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && s.cfg.OpenSession != nil:
		return s.cfg.OpenSession(r.Context())
	}
	return nil, nil
}

// holdSession keeps a session slot for as long as the session the request
// made lives (until DELETE, the idle timeout, its key ending or Close); a
// request that made none, or one already closed (an initialize that failed),
// gives it back at once.
func (s *Server) holdSession(ctx context.Context, userID, id string, release func()) {
	var live *sdk.ServerSession
	if a, err := s.account(ctx, userID); err == nil && id != "" {
		for ss := range a.server.Sessions() {
			if ss.ID() == id {
				live = ss
			}
		}
	}
	if live == nil {
		release()
		return
	}
	s.mu.Lock()
	s.slots[id] = release
	s.mu.Unlock()
	go func() {
		_ = live.Wait()
		s.endSession(id)
	}()
}

// endSession gives back the slot of session id, once. The slot is a row in
// the database, so giving it back takes a moment: a DELETE and the session's
// watcher may both end it, and the entry stays until release returns so that
// whichever comes second waits in release (a sync.Once) for the row to go,
// and the client may open its next session at once.
func (s *Server) endSession(id string) {
	s.mu.Lock()
	release := s.slots[id]
	s.mu.Unlock()
	if release != nil {
		release()
	}
	s.mu.Lock()
	delete(s.slots, id)
	s.mu.Unlock()
}

// noteSession records which key opened a session. Every so often it forgets
// the sessions that have ended (closed by the client, or idle past
// SessionTimeout), so the record stays the size of the live sessions.
func (s *Server) noteSession(id, keyID string) {
	s.mu.Lock()
	s.keyOf[id] = keyID
	prune := len(s.keyOf)%256 == 0
	servers := s.serversLocked()
	s.mu.Unlock()
	if !prune {
		return
	}
	live := map[string]bool{}
	for _, srv := range servers {
		for ss := range srv.Sessions() {
			live[ss.ID()] = true
		}
	}
	s.mu.Lock()
	for sid := range s.keyOf {
		if !live[sid] && sid != id {
			delete(s.keyOf, sid)
		}
	}
	s.mu.Unlock()
}

// serversLocked is every account's SDK server; s.mu is held.
func (s *Server) serversLocked() []*sdk.Server {
	out := make([]*sdk.Server, 0, len(s.accounts))
	for _, a := range s.accounts {
		out = append(out, a.server)
	}
	return out
}

// Close closes every open session, ending their streams, so that a server
// shutting down is not held by them.
func (s *Server) Close() {
	s.mu.Lock()
	servers := s.serversLocked()
	s.mu.Unlock()
	for _, srv := range servers {
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	}
}

// OpenCredentials lists, once each, the keys of the open sessions, for the
// event bus's heartbeat check (a key that expires, or is deactivated on
// another replica, is caught there; see EndStreams).
func (s *Server) OpenCredentials() []auth.Credential {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	var out []auth.Credential
	for _, key := range s.keyOf {
		if !seen[key] {
			seen[key] = true
			out = append(out, auth.Credential{KeyID: key})
		}
	}
	return out
}

// EndStreams closes the sessions opened with credentials that stopped
// admitting their holder (a deleted or deactivated key), ending their streams.
func (s *Server) EndStreams(creds ...auth.Credential) {
	ended := map[string]bool{}
	for _, c := range creds {
		if c.KeyID != "" {
			ended[c.KeyID] = true
		}
	}
	s.mu.Lock()
	servers := s.serversLocked()
	closing := map[string]bool{}
	for id, key := range s.keyOf {
		if ended[key] {
			closing[id] = true
			delete(s.keyOf, id)
		}
	}
	s.mu.Unlock()
	if len(closing) == 0 {
		return
	}
	for _, srv := range servers {
		for ss := range srv.Sessions() {
			if closing[ss.ID()] {
				_ = ss.Close()
			}
		}
	}
}

// sessionWriter notes the session id the SDK hands out with a new session,
// and the answer's status.
type sessionWriter struct {
	http.ResponseWriter
	opened func(id string)
	seen   bool
	id     string
	status int
}

func (w *sessionWriter) WriteHeader(code int) {
	w.note()
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionWriter) Write(b []byte) (int, error) {
	w.note()
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *sessionWriter) note() {
	if !w.seen {
		w.seen = true
		if id := w.Header().Get("Mcp-Session-Id"); id != "" {
			w.id = id
			w.opened(id)
		}
	}
}

// Flush keeps the SDK's event stream flowing through the wrapper.
func (w *sessionWriter) Flush() {
	w.note()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// withCaller hands the admitted caller and its address to the SDK as the
// request's token info. The SDK binds a session to the TokenInfo's UserID
// (here the key), so no other key can use a session id it learns.
func withCaller(p *auth.Principal, client string, next http.Handler) http.Handler {
	info := &sdkauth.TokenInfo{UserID: p.KeyID, Scopes: p.Scopes, Extra: map[string]any{principalKey: p, clientKey: client}}
	return sdkauth.RequireBearerToken(func(context.Context, string, *http.Request) (*sdkauth.TokenInfo, error) {
		return info, nil
	}, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
}

// readBody reads a POST body whole: the door checks it is text (valid
// UTF-8; a NUL inside a JSON string is refused by the tools' own check) and
// looks at which tools it calls before the SDK decodes it.
func (s *Server) readBody(r *http.Request) ([]byte, error) {
	limit := s.cfg.BodyLimit
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, apperr.Invalid("the request body could not be read")
	}
	if int64(len(body)) > limit {
		return nil, apperr.TooLarge("request body exceeds %d bytes", limit)
	}
	if !utf8.Valid(body) {
		return nil, apperr.Invalid("body is not valid UTF-8 text")
	}
	return body, nil
}

// serverFor is the SDK server of the request's account.
func (s *Server) serverFor(r *http.Request) *sdk.Server {
	p, ok := auth.PrincipalFrom(r.Context())
	if !ok {
		return nil
	}
	a, err := s.account(r.Context(), p.UserID)
	if err != nil {
		s.cfg.Logger.ErrorContext(r.Context(), "mcp: load account tools", "err", err)
		return nil
	}
	return a.server
}

func (s *Server) account(ctx context.Context, userID string) (*account, error) {
	s.mu.Lock()
	a, ok := s.accounts[userID]
	s.mu.Unlock()
	if ok {
		return a, nil
	}
	// Built and filled outside the lock, published once complete; a
	// concurrent first request may build one too, and the first published wins.
	a = &account{store: map[string]*tool{}, prompts: map[string]*ent.CapabilityInstall{}}
	a.server = sdk.NewServer(&sdk.Implementation{Name: "switchboard", Title: "Switchboard", Version: Version},
		&sdk.ServerOptions{
			Instructions: "Switchboard is the operator's command center: their task queue, board, contacts, " +
				"settings and agent store. Items you add wait for the operator's approval.",
			Logger:       s.cfg.Logger,
			Capabilities: serverCapabilities(),
		})
	for _, t := range s.tools {
		a.server.AddTool(t.sdkTool(), t.handler(s))
	}
	addResources(s, a.server)
	if err := s.syncAccount(ctx, a, userID); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.accounts[userID]; ok {
		return prev, nil
	}
	s.accounts[userID] = a
	if s.cfg.Hear != nil {
		// From now on this replica's sessions of the account follow its
		// installs, made here or on another replica.
		s.cfg.Hear(userID, func(ctx context.Context) { s.Changed(ctx, userID) })
	}
	return a, nil
}

// serverCapabilities is what initialize advertises and the server card shows:
// declared once, not inferred by the SDK from what an account has registered,
// so the two cannot differ. The values are those the SDK infers (logging is
// its default), except that prompts are advertised before an account's first
// pack too, so its sessions hear of the prompt that install adds.
func serverCapabilities() *sdk.ServerCapabilities {
	return &sdk.ServerCapabilities{
		Logging:   &sdk.LoggingCapabilities{}, //nolint:staticcheck // deprecated, not gone: clients still set levels (the conformance suite's logging-set-level)
		Tools:     &sdk.ToolCapabilities{ListChanged: true},
		Resources: &sdk.ResourceCapabilities{ListChanged: true},
		Prompts:   &sdk.PromptCapabilities{ListChanged: true},
	}
}

// Changed is told that an account's installed store agents or packs changed
// (an install or an uninstall); its open sessions learn of their new tool
// and prompt lists.
func (s *Server) Changed(ctx context.Context, userID string) {
	s.mu.Lock()
	a, ok := s.accounts[userID]
	s.mu.Unlock()
	if !ok {
		return // no session has seen this account's list yet
	}
	if err := s.syncAccount(ctx, a, userID); err != nil {
		s.cfg.Logger.ErrorContext(ctx, "mcp: refresh account tools", "err", err)
	}
}

// probed is what the door reads of a POST body before the SDK decodes it.
type probed struct {
	// bare: a JSON object without "jsonrpc", the documented bare form.
	bare   bool
	method string
	params json.RawMessage
	// calls names the tool of each tools/call message (a single message or
	// a batch), once per call.
	calls []string
}

// rpcMessage is the part of a JSON-RPC message the door reads.
type rpcMessage struct {
	JSONRPC *json.RawMessage `json:"jsonrpc"`
	Method  string           `json:"method"`
	Params  json.RawMessage  `json:"params"`
}

// probe reads a body once: whether it is bare, and which tools it calls. A
// body that does not decode is left to the SDK, which answers its parse error.
func probe(body []byte) probed {
	trimmed := bytes.TrimSpace(body)
	var msgs []rpcMessage
	var out probed
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		if json.Unmarshal(trimmed, &msgs) != nil {
			return out
		}
	case len(trimmed) > 0 && trimmed[0] == '{':
		var one rpcMessage
		if json.Unmarshal(trimmed, &one) != nil {
			return out
		}
		msgs = []rpcMessage{one}
		out.bare, out.method, out.params = one.JSONRPC == nil, one.Method, one.Params
	}
	for _, m := range msgs {
		if m.Method != "tools/call" {
			continue
		}
		var p struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Name != "" {
			out.calls = append(out.calls, p.Name)
		}
	}
	return out
}

// chargeCalls applies the rate class of each tool called (classOf).
func (s *Server) chargeCalls(w http.ResponseWriter, r *http.Request, calls []string) error {
	for _, name := range calls {
		class := s.classOf(name)
		if class == "" {
			continue
		}
		if err := s.cfg.Charge(w, r, class); err != nil {
			return err
		}
	}
	return nil
}

// classOf is the rate class a call of the named tool counts in: every
// marketplace_* tool is heavy (RULINGS "Accounts, keys, sessions" and
// "Security details"): an installed agent's run, marketplace_browse and
// marketplace_unlock, whose guesses the store also counts in the auth
// class; another tool counts in its procedures' heaviest class.
func (s *Server) classOf(name string) string {
	if strings.HasPrefix(name, storeToolPrefix) {
		return "heavy"
	}
	if t, ok := s.byName[name]; ok {
		return t.class
	}
	return ""
}
