package throughtest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

const streamPath = "/api/v2/shared-chat/stream"

type streamEnv struct {
	s   *servertest.Server
	ann *servertest.Account
	key string
	api *servertest.Caller
}

func setupStream(t *testing.T, opts ...servertest.Option) *streamEnv {
	t.Helper()
	s := servertest.New(t, opts...)
	ann := s.SignUp("ann")
	key := ann.NewKey("Scout", "chat")
	return &streamEnv{s: s, ann: ann, key: key, api: s.WithKey(key)}
}

// send posts a message over REST and answers its id.
func (e *streamEnv) send(t *testing.T, api *servertest.Caller, content string) string {
	t.Helper()
	res := api.Do(http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": content})
	if res.Status != http.StatusCreated {
		t.Fatalf("send: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)["id"].(string)
}

// Document 1, "Events": connected first (clientId, agentName), then
// new_message with the stored message; each event names itself in event: and
// in data's type, stored ones carry id:, every one a retry: hint.
func TestSSEConnectedThenNewMessage(t *testing.T) {
	e := setupStream(t)
	st := e.api.Stream(streamPath, "X-Agent-Name", "Ranger")
	h := st.Response.Header
	if st.Response.StatusCode != http.StatusOK || h.Get("Content-Type") != "text/event-stream" ||
		h.Get("Cache-Control") != "no-cache" || h.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("stream answered %d %v", st.Response.StatusCode, h)
	}
	ev := st.Next()
	data := ev.JSON(t)
	if ev.Event != "connected" || ev.HasID || data["type"] != "connected" || data["agentName"] != "Ranger" ||
		data["clientId"] == "" || data["clientId"] == nil || ev.Retry != strconv.Itoa(events.RetryMillis) {
		t.Fatalf("first event = %+v %v", ev, data)
	}
	// The RPC form: nothing absent is written.
	if _, ok := data["message"]; ok || len(data) != 3 {
		t.Fatalf("connected data = %s", ev.Data)
	}
	id := e.send(t, e.api, "hello")
	ev = st.NextOf("new_message")
	data = ev.JSON(t)
	msg, _ := data["message"].(map[string]any)
	if !ev.HasID || ev.ID == "" || data["type"] != "new_message" || ev.Retry == "" || msg["id"] != id ||
		msg["content"] != "hello" || msg["role"] != "assistant" || msg["agentName"] != "Scout" || msg["userId"] != e.ann.ID {
		t.Fatalf("new_message = %+v", ev)
	}
	// Without X-Agent-Name: the key's label; a session: the account's name.
	if got := e.api.Stream(streamPath).Next().JSON(t)["agentName"]; got != "Scout" {
		t.Fatalf("agentName without header = %v", got)
	}
	if got := e.ann.Session.Stream(streamPath).Next().JSON(t)["agentName"]; got != "Ann" {
		t.Fatalf("agentName of a session = %v", got)
	}
}

func (e *streamEnv) connectClient(protocol string, opts []connect.ClientOption) switchboardv1connect.EventServiceClient {
	return switchboardv1connect.NewEventServiceClient(e.s.Client(protocol), e.s.URL,
		append(opts, connect.WithInterceptors(streamHeaders("Authorization", "Bearer "+e.key, "X-Agent-Name", "Pilot")))...)
}

// streamHeaders sets headers on streaming calls (BearerInterceptor is unary).
func streamHeaders(kv ...string) connect.Interceptor {
	return headerInterceptor(kv)
}

type headerInterceptor []string

func (h headerInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc { return next }
func (h headerInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}
func (h headerInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		for i := 0; i+1 < len(h); i += 2 {
			conn.RequestHeader().Set(h[i], h[i+1])
		}
		return conn
	}
}

// receive waits for the next message of a Connect stream.
func receive(t *testing.T, s *connect.ServerStreamForClient[switchboardv1.StreamEventsResponse]) *switchboardv1.StreamEventsResponse {
	t.Helper()
	if !s.Receive() {
		t.Fatalf("stream ended: %v", s.Err())
	}
	return s.Msg()
}

// EventService.StreamEvents carries the same events to typed clients, on every
// Connect-family protocol.
func TestConnectStream(t *testing.T) {
	e := setupStream(t)
	for name, opts := range servertest.Protocols() {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), servertest.StreamTimeout)
			defer cancel()
			stream, err := e.connectClient(name, opts).StreamEvents(ctx, &switchboardv1.StreamEventsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			defer stream.Close()
			first := receive(t, stream)
			if first.Id != nil || first.GetEvent().GetType() != "connected" || first.GetEvent().GetAgentName() != "Pilot" ||
				first.GetEvent().GetClientId() == "" {
				t.Fatalf("first = %v", first)
			}
			id := e.send(t, e.api, "over "+name)
			got := receive(t, stream)
			if got.GetId() == "" || got.GetEvent().GetType() != "new_message" || got.GetEvent().GetMessage().GetId() != id ||
				got.GetEvent().GetMessage().GetContent() != "over "+name {
				t.Fatalf("second = %v", got)
			}
		})
	}
}

// RULINGS "Shared chat and events": a client reconnecting with Last-Event-ID
// (SSE) or last_event_id (Connect) receives what it missed, in order.
func TestResumeAfterLastEventID(t *testing.T) {
	e := setupStream(t)
	st := e.api.Stream(streamPath)
	st.NextOf("connected")
	var ids, sent []string
	for i := range 3 {
		sent = append(sent, e.send(t, e.api, fmt.Sprint("m", i)))
		ids = append(ids, st.NextOf("new_message").ID)
	}
	st.Close()
	for i := 3; i < 5; i++ {
		sent = append(sent, e.send(t, e.api, fmt.Sprint("m", i)))
	}
	again := e.api.Stream(streamPath, "Last-Event-ID", ids[1])
	again.NextOf("connected")
	var got []string
	for range 3 {
		got = append(got, again.NextOf("new_message").JSON(t)["message"].(map[string]any)["id"].(string))
	}
	if !slices.Equal(got, sent[2:]) {
		t.Fatalf("after %s: %v, want %v", ids[1], got, sent[2:])
	}
	// Then live again, once each.
	live := e.send(t, e.api, "live")
	if ev := again.NextOf("new_message"); ev.JSON(t)["message"].(map[string]any)["id"] != live {
		t.Fatalf("live after replay = %s", ev.Data)
	}

	ctx, cancel := context.WithTimeout(context.Background(), servertest.StreamTimeout)
	defer cancel()
	stream, err := e.connectClient("connect+json", []connect.ClientOption{connect.WithProtoJSON()}).
		StreamEvents(ctx, &switchboardv1.StreamEventsRequest{LastEventId: ids[2]})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	receive(t, stream) // connected
	for _, want := range append(sent[3:], live) {
		if m := receive(t, stream); m.GetEvent().GetMessage().GetId() != want {
			t.Fatalf("Connect resume: %v, want %s", m, want)
		}
	}

	// A Last-Event-ID this stream never gave out is 400 on both.
	servertest.WantError(t, e.api.Do(http.MethodGet, streamPath, nil, "Last-Event-ID", "abc"), http.StatusBadRequest)
	bad, err := e.connectClient("connect+proto", nil).StreamEvents(ctx, &switchboardv1.StreamEventsRequest{LastEventId: "-3"})
	if err == nil {
		for bad.Receive() {
		}
		err = bad.Err()
	}
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("bad last_event_id: %v", err)
	}
}

// RULINGS "Shared chat and events": a heartbeat every Config.Heartbeat
// (--heartbeat) with the server's time, on both streams.
func TestHeartbeat(t *testing.T) {
	e := setupStream(t, servertest.WithHeartbeat(20*time.Millisecond))
	st := e.api.Stream(streamPath)
	st.NextOf("connected")
	for range 2 {
		ev := st.NextOf("heartbeat")
		data := ev.JSON(t)
		if ev.HasID || data["type"] != "heartbeat" || servertest.At(t, data["timestamp"]).IsZero() {
			t.Fatalf("heartbeat = %+v", ev)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), servertest.StreamTimeout)
	defer cancel()
	stream, err := e.connectClient("grpc", []connect.ClientOption{connect.WithGRPC()}).StreamEvents(ctx, &switchboardv1.StreamEventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	receive(t, stream)
	if m := receive(t, stream); m.GetEvent().GetType() != "heartbeat" || m.GetEvent().GetTimestamp() == nil || m.Id != nil {
		t.Fatalf("Connect heartbeat = %v", m)
	}
}

// RULINGS "Accounts, keys, sessions": the stream is key (chat scope) or
// session; another account's events never appear on it.
func TestStreamAccessAndIsolation(t *testing.T) {
	e := setupStream(t)
	bob := e.s.SignUp("bob")
	bobAPI := e.s.WithKey(bob.NewKey("bob agent"))
	bobStream := bobAPI.Stream(streamPath)
	bobStream.NextOf("connected")
	e.send(t, e.api, "ann's secret")
	mine := e.send(t, bobAPI, "bob's")
	if ev := bobStream.NextOf("new_message"); ev.JSON(t)["message"].(map[string]any)["id"] != mine {
		t.Fatalf("bob's stream showed %s", ev.Data)
	}
	for name, c := range map[string]struct {
		caller *servertest.Caller
		method string
		status int
	}{
		"anonymous":     {e.s.Anonymous(), http.MethodGet, http.StatusUnauthorized},
		"bad key":       {e.s.WithKey("sbk_nope"), http.MethodGet, http.StatusUnauthorized},
		"no chat scope": {e.s.WithKey(e.ann.NewKey("queue only", "queue")), http.MethodGet, http.StatusForbidden},
		"POST":          {e.api, http.MethodPost, http.StatusMethodNotAllowed},
		"HEAD":          {e.api, http.MethodHead, http.StatusMethodNotAllowed},
	} {
		t.Run(name, func(t *testing.T) {
			res := c.caller.Do(c.method, streamPath, nil)
			if c.method == http.MethodHead { // no body to check
				servertest.WantStatus(t, res, c.status)
				return
			}
			servertest.WantError(t, res, c.status)
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), servertest.StreamTimeout)
	defer cancel()
	anon, err := switchboardv1connect.NewEventServiceClient(e.s.HTTP, e.s.URL).StreamEvents(ctx, &switchboardv1.StreamEventsRequest{})
	if err == nil {
		for anon.Receive() {
		}
		err = anon.Err()
	}
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("anonymous Connect stream: %v", err)
	}
}

// The streams end when the app closes (servertest closes it before the HTTP
// server), and Connect says why.
func TestStreamsEndOnClose(t *testing.T) {
	e := setupStream(t)
	st := e.api.Stream(streamPath)
	st.NextOf("connected")
	ctx, cancel := context.WithTimeout(context.Background(), servertest.StreamTimeout)
	defer cancel()
	stream, err := e.connectClient("connect+proto", nil).StreamEvents(ctx, &switchboardv1.StreamEventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	receive(t, stream)
	e.s.App.Close()
	if !st.Ended(servertest.StreamTimeout) {
		t.Fatal("the SSE stream outlived App.Close")
	}
	for stream.Receive() {
	}
	if connect.CodeOf(stream.Err()) != connect.CodeUnavailable {
		t.Fatalf("Connect stream ended with %v, want unavailable", stream.Err())
	}
}

// A client that stops reading is dropped once its buffer is full (its stream
// ends) without holding back anyone else; it then resumes with Last-Event-ID
// and has every message exactly once, in order.
func TestSlowSSEClientIsDroppedThenResumes(t *testing.T) {
	e := setupStream(t)
	healthy := e.api.Stream(streamPath)
	healthy.NextOf("connected")

	// A client with a small receive window that reads nothing after the headers.
	dialer := net.Dialer{Timeout: 10 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		}); err != nil {
			return err
		}
		return serr
	}}
	conn, err := dialer.Dial("tcp", strings.TrimPrefix(e.s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\n\r\n", streamPath, e.key)
	e.waitSubscribers(t, 2)
	big := strings.Repeat("x", 64<<10)
	var sent []string
	for len(sent) < 2000 && e.s.App.Events.Subscribers(e.ann.ID) == 2 {
		sent = append(sent, e.send(t, e.api, fmt.Sprintf("%04d %s", len(sent), big)))
		// The healthy client keeps up: it reads every message as it comes.
		if ev := healthy.NextOf("new_message"); ev.JSON(t)["message"].(map[string]any)["id"] != sent[len(sent)-1] {
			t.Fatalf("healthy client got %.80s", ev.Data)
		}
	}
	servertest.WaitFor(t, fmt.Sprintf("the slow client to be dropped after %d messages", len(sent)),
		func() bool { return e.s.App.Events.Subscribers(e.ann.ID) == 1 })
	t.Logf("dropped after %d messages of 64 KiB", len(sent))
	// The messages after the drop reach the healthy client only.
	for i := range 3 {
		sent = append(sent, e.send(t, e.api, fmt.Sprintf("after %d", i)))
		healthy.NextOf("new_message")
	}

	// Now the slow client reads: what was queued for it, then the end.
	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var got []string
	lastID := ""
	servertest.ParseSSE(res.Body, func(ev servertest.SSEEvent) {
		if ev.Event == "new_message" {
			got = append(got, ev.JSON(t)["message"].(map[string]any)["id"].(string))
			lastID = ev.ID
		}
	})
	if len(got) == 0 || len(got) >= len(sent) {
		t.Fatalf("the dropped stream carried %d of %d messages", len(got), len(sent))
	}
	resumed := e.api.Stream(streamPath, "Last-Event-ID", lastID)
	resumed.NextOf("connected")
	for len(got) < len(sent) {
		got = append(got, resumed.NextOf("new_message").JSON(t)["message"].(map[string]any)["id"].(string))
	}
	if !slices.Equal(got, sent) {
		t.Fatal("the dropped client, resumed, did not get every message exactly once in order")
	}
}
