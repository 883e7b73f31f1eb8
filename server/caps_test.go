package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// capped is a server whose stream and MCP session caps are 3 (the flags
// --max-streams-per-key and --max-mcp-sessions-per-key). Its heartbeat is
// short: an SSE stream on HTTP/1.1 notices a client that hung up when it
// next writes.
func capped(t *testing.T) *servertest.Server {
	t.Helper()
	return servertest.New(t, servertest.WithHeartbeat(100*time.Millisecond),
		servertest.WithLimits(gate.Limits{PerKey: 100000, Auth: 100000, Heavy: 100000,
			Federation: 100000, StreamsPerKey: 3, MCPSessionsPerKey: 3}))
}

const chatStream = "/api/v2/shared-chat/stream"

// answer is an HTTP answer read whole (or, for an open stream, its first
// event).
type answer struct {
	status int
	header http.Header
	body   []byte
}

// wantCapREST checks a refusal before the stream started: 429, Retry-After,
// the documented REST error body.
func wantCapREST(t *testing.T, what string, a answer) {
	t.Helper()
	var e struct {
		Success *bool  `json:"success"`
		Error   string `json:"error"`
	}
	if a.status != http.StatusTooManyRequests || a.header.Get("Retry-After") == "" ||
		json.Unmarshal(a.body, &e) != nil || e.Success == nil || *e.Success || !strings.Contains(e.Error, "at most 3") {
		t.Fatalf("%s over the cap: %d Retry-After %q %s", what, a.status, a.header.Get("Retry-After"), a.body)
	}
}

// sseOver opens the chat stream with c and wants the cap's refusal.
func sseOver(t *testing.T, c *servertest.Caller, what string) {
	t.Helper()
	st := c.Stream(chatStream)
	defer st.Close()
	if st.Response.StatusCode == http.StatusOK {
		t.Fatalf("%s over the cap: the stream opened", what)
	}
	body, _ := io.ReadAll(st.Response.Body)
	wantCapREST(t, what, answer{st.Response.StatusCode, st.Response.Header, body})
}

// sseOpen opens the chat stream with c and waits for its first event, so
// the stream holds its slot.
func sseOpen(t *testing.T, c *servertest.Caller) *servertest.SSEStream {
	t.Helper()
	st := c.Stream(chatStream)
	if st.Response.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(st.Response.Body)
		t.Fatalf("stream: %d %s", st.Response.StatusCode, body)
	}
	if ev := st.Next(); ev.Event != "connected" {
		t.Fatalf("first event %+v", ev)
	}
	return st
}

// connectStream opens EventService.StreamEvents over Connect with client
// and opts, and answers the first message's error (nil: it is open).
func connectStream(t *testing.T, s *servertest.Server, client *http.Client, opts ...connect.ClientOption) (func(), error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, err := switchboardv1connect.NewEventServiceClient(client, s.URL, opts...).
		StreamEvents(ctx, &switchboardv1.StreamEventsRequest{})
	if err != nil {
		return cancel, err
	}
	if !st.Receive() {
		return cancel, st.Err()
	}
	return cancel, nil
}

// wantCapConnect checks the Connect refusal: resource_exhausted with
// Retry-After.
func wantCapConnect(t *testing.T, what string, err error) {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted || ce.Meta().Get("Retry-After") == "" ||
		!strings.Contains(ce.Message(), "at most 3") {
		t.Fatalf("%s over the cap: %v (meta %v)", what, err, ce.Meta())
	}
}

// a2aStream posts message/stream with key: the open stream after its first
// event, or the refusal.
func a2aStream(t *testing.T, s *servertest.Server, key string) answer {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"messageId":"m","role":"user","parts":[{"kind":"text","text":"Hold on"}]}}}`
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/a2a", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Body.Close() })
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		return answer{res.StatusCode, res.Header, b}
	}
	line, err := readLine(res.Body, "data:")
	if err != nil {
		t.Fatalf("a2a stream: %v", err)
	}
	return answer{res.StatusCode, res.Header, []byte(line)}
}

// readLine reads r up to the first line starting with prefix.
func readLine(r io.Reader, prefix string) (string, error) {
	var line []byte
	b := make([]byte, 1)
	for {
		if _, err := r.Read(b); err != nil {
			return "", err
		}
		if b[0] != '\n' {
			line = append(line, b[0])
			continue
		}
		if bytes.HasPrefix(line, []byte(prefix)) {
			return string(line), nil
		}
		line = line[:0]
	}
}

// mcpPost sends one JSON-RPC message to the MCP door with key (and session).
func mcpPost(t *testing.T, s *servertest.Server, key, session, body string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/api/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	res, err := s.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header, b}
}

const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// mcpSession initializes an MCP session with key: its id, or the refusal.
func mcpSession(t *testing.T, s *servertest.Server, key string) (string, answer) {
	t.Helper()
	a := mcpPost(t, s, key, "", mcpInitialize)
	id := a.header.Get("Mcp-Session-Id")
	if a.status != http.StatusOK || id == "" {
		return "", a
	}
	if b := mcpPost(t, s, key, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); b.status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", b.status, b.body)
	}
	return id, a
}

// mcpGET opens the session's GET stream with key.
func mcpGET(t *testing.T, s *servertest.Server, key, session string) answer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Body.Close() })
	var body []byte
	if res.StatusCode != http.StatusOK {
		body, _ = io.ReadAll(res.Body)
	}
	return answer{res.StatusCode, res.Header, body}
}

// TestStreamCapPerKey: RULINGS "Security details" and Reconciliation 11: a
// key holds at most --max-streams-per-key streams of any kind at once (the
// chat SSE stream, its Connect twin, A2A streams, the MCP GET stream); the
// next is 429 with Retry-After in the documented shape (REST body, Connect
// resource_exhausted) before it starts. Another key of the same account is
// not affected, and a stream's slot is free again once its client hangs up.
func TestStreamCapPerKey(t *testing.T) {
	t.Parallel()
	s := capped(t)
	ann := s.SignUp("ann")
	one, two := ann.NewKey("one"), ann.NewKey("two")
	api := s.WithKey(one)

	// Three streams of three kinds hold the key's three slots.
	sse := sseOpen(t, api)
	if _, err := connectStream(t, s, s.HTTP, connect.WithInterceptors(servertest.BearerInterceptor(one))); err != nil {
		t.Fatalf("connect stream: %v", err)
	}
	if a := a2aStream(t, s, one); a.status != http.StatusOK || !strings.Contains(string(a.body), `"kind":"task"`) {
		t.Fatalf("a2a stream: %d %s", a.status, a.body)
	}
	// An MCP session is not a stream; its GET stream is.
	session, a := mcpSession(t, s, one)
	if session == "" {
		t.Fatalf("mcp initialize: %d %s", a.status, a.body)
	}

	// The fourth, of every kind, is refused before it starts.
	sseOver(t, api, "sse")
	_, err := connectStream(t, s, s.HTTP, connect.WithInterceptors(servertest.BearerInterceptor(one)))
	wantCapConnect(t, "connect", err)
	wantCapREST(t, "a2a message/stream", a2aStream(t, s, one))
	wantCapREST(t, "mcp GET stream", mcpGET(t, s, one, session))

	// Another key of the account has its own slots.
	sseOpen(t, s.WithKey(two)).Close()

	// Hanging up frees the slot (the server sees it go, then answers).
	sse.Close()
	servertest.WaitFor(t, "the closed stream's slot", func() bool {
		st := api.Stream(chatStream)
		defer st.Close()
		return st.Response.StatusCode == http.StatusOK
	})
}

// TestStreamCapPerAccountForSessions: Reconciliation 11: streams opened
// with the dashboard's session (the chat stream, its Connect twin, chat
// send) count per account; the account's keys count on their own.
func TestStreamCapPerAccountForSessions(t *testing.T) {
	t.Parallel()
	s := capped(t)
	ann := s.SignUp("ann")
	for range 3 {
		sseOpen(t, ann.Session)
	}
	sseOver(t, ann.Session, "session sse")
	_, err := connectStream(t, s, &http.Client{Jar: ann.Jar})
	wantCapConnect(t, "session connect", err)
	// Chat send is a session stream too: refused before it asks a model
	// (this server has none, which would be 503).
	st := ann.Session.StreamPost("/api/chat/send", `{"message":"hello"}`)
	if st.Response.StatusCode == http.StatusOK {
		t.Fatal("chat send over the cap: the stream opened")
	}
	body, _ := io.ReadAll(st.Response.Body)
	st.Close()
	wantCapREST(t, "chat send", answer{st.Response.StatusCode, st.Response.Header, body})

	// A key of the same account, and another account, are not affected.
	sseOpen(t, s.WithKey(ann.NewKey("agent"))).Close()
	sseOpen(t, s.SignUp("bob").Session).Close()
}

// TestMCPSessionCap: RULINGS "Security details": a key holds at most
// --max-mcp-sessions-per-key MCP sessions; the next initialize is 429 with
// Retry-After in the REST error body; another key is not affected; a
// session ended with DELETE frees its slot at once.
func TestMCPSessionCap(t *testing.T) {
	t.Parallel()
	s := capped(t)
	ann := s.SignUp("ann")
	one, two := ann.NewKey("one"), ann.NewKey("two")
	var sessions []string
	for range 3 {
		id, a := mcpSession(t, s, one)
		if id == "" {
			t.Fatalf("initialize: %d %s", a.status, a.body)
		}
		sessions = append(sessions, id)
	}
	_, a := mcpSession(t, s, one)
	wantCapREST(t, "a fourth mcp session", a)
	if id, a := mcpSession(t, s, two); id == "" {
		t.Fatalf("another key's session: %d %s", a.status, a.body)
	}
	// The refusal took nothing from the open sessions: they still answer.
	if a := mcpPost(t, s, one, sessions[2], `{"jsonrpc":"2.0","id":2,"method":"ping"}`); a.status != http.StatusOK {
		t.Fatalf("ping: %d %s", a.status, a.body)
	}

	req, err := http.NewRequest(http.MethodDelete, s.URL+"/api/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+one)
	req.Header.Set("Mcp-Session-Id", sessions[0])
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	del, err := s.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = del.Body.Close()
	if del.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", del.StatusCode)
	}
	if id, a := mcpSession(t, s, one); id == "" {
		t.Fatalf("a session after DELETE: %d %s", a.status, a.body)
	}
	_, a = mcpSession(t, s, one)
	wantCapREST(t, "over the cap again", a)
}
