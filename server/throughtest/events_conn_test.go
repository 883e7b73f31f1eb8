package throughtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// sseRawStream is the stream as a minimal HTTP/1.1 client sees it: bytes on a
// TCP connection.
type sseRawStream struct {
	conn net.Conn
	r    *textproto.Reader
}

// openRaw sends GET stream over a new connection; extra header lines
// ("Name: value") go with it.
func (e *streamEnv) openRaw(t *testing.T, lines ...string) *sseRawStream {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(e.s.URL, "http://"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(servertest.StreamTimeout))
	req := "GET " + streamPath + " HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer " + e.key + "\r\n"
	for _, l := range lines {
		req += l + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	return &sseRawStream{conn: conn, r: textproto.NewReader(bufio.NewReader(conn))}
}

// head reads the status line and the header.
func (s *sseRawStream) head(t *testing.T) (string, textproto.MIMEHeader) {
	t.Helper()
	status, err := s.r.ReadLine()
	if err != nil {
		t.Fatalf("status line: %v", err)
	}
	h, err := s.r.ReadMIMEHeader()
	if err != nil {
		t.Fatalf("header: %v", err)
	}
	return status, h
}

// frame reads one event's lines, up to the blank line that ends it.
func (s *sseRawStream) frame(t *testing.T) []string {
	t.Helper()
	var lines []string
	for {
		l, err := s.r.ReadLine()
		if err != nil {
			t.Fatalf("reading a frame: %v (so far %q)", err, lines)
		}
		if l == "" {
			return lines
		}
		lines = append(lines, l)
	}
}

// waitSubscribers waits until the account has n open streams on the server.
func (e *streamEnv) waitSubscribers(t *testing.T, n int) {
	t.Helper()
	servertest.WaitFor(t, fmt.Sprintf("%d subscribers", n), func() bool { return e.s.App.Events.Subscribers(e.ann.ID) == n })
}

// decisions.md "Shared chat and events": over HTTP/1.1 the server takes the
// connection over and writes the stream itself. The head carries what the
// middleware set (request id, rate-limit headers) and the stream's headers,
// with Connection: close and no chunking: the body is the bare frames of
// document 1, "Events", and ends with the connection.
func TestHijackedStreamOnTheWire(t *testing.T) {
	e := setupStream(t)
	st := e.openRaw(t, "X-Request-Id: wire-test-1", "X-Agent-Name: Wire")
	status, h := st.head(t)
	if status != "HTTP/1.1 200 OK" {
		t.Fatalf("status line %q", status)
	}
	for name, want := range map[string]string{
		"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no",
		"Connection": "close", "X-Request-Id": "wire-test-1",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if _, err := strconv.Atoi(h.Get("X-Ratelimit-Limit")); err != nil {
		t.Errorf("X-RateLimit-Limit = %q", h.Get("X-Ratelimit-Limit"))
	}
	if _, err := http.ParseTime(h.Get("Date")); err != nil {
		t.Errorf("Date = %q", h.Get("Date"))
	}
	if h.Get("Transfer-Encoding") != "" || h.Get("Content-Length") != "" {
		t.Errorf("a close-delimited body has neither Transfer-Encoding nor Content-Length: %v", h)
	}
	retry := "retry: " + strconv.Itoa(events.RetryMillis)
	data := func(line string) map[string]any {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil || !strings.HasPrefix(line, "data: ") {
			t.Fatalf("data line %q (%v)", line, err)
		}
		return m
	}
	f := st.frame(t)
	if len(f) != 3 || f[0] != "event: connected" || f[1] != retry {
		t.Fatalf("connected frame %q", f)
	}
	if d := data(f[2]); d["type"] != "connected" || d["agentName"] != "Wire" || d["clientId"] == nil || len(d) != 3 {
		t.Fatalf("connected data %v", d)
	}
	id := e.send(t, e.api, "on the wire")
	f = st.frame(t)
	if len(f) != 4 || !strings.HasPrefix(f[0], "id: ") || f[1] != "event: new_message" || f[2] != retry {
		t.Fatalf("new_message frame %q", f)
	}
	if d := data(f[3]); d["type"] != "new_message" || d["message"].(map[string]any)["id"] != id {
		t.Fatalf("new_message data %v", d)
	}
	// Closing the app ends the stream: the client reads the end of the body.
	e.s.App.Close()
	if l, err := st.r.ReadLine(); !errors.Is(err, io.EOF) {
		t.Fatalf("after App.Close: %q, %v; want EOF", l, err)
	}
}

// A client that hangs up while its stream is idle is removed at the next
// heartbeat, and one that hangs up between messages at a following write:
// neither stays subscribed.
func TestHungUpClientIsRemoved(t *testing.T) {
	t.Run("idle", func(t *testing.T) {
		e := setupStream(t, servertest.WithHeartbeat(20*time.Millisecond))
		st := e.openRaw(t)
		st.head(t)
		st.frame(t)
		e.waitSubscribers(t, 1)
		st.conn.Close()
		e.waitSubscribers(t, 0)
	})
	t.Run("between messages", func(t *testing.T) {
		e := setupStream(t)
		healthy := e.api.Stream(streamPath)
		healthy.NextOf("connected")
		st := e.openRaw(t)
		st.head(t)
		st.frame(t)
		e.waitSubscribers(t, 2)
		st.conn.Close()
		// The first write after the hang-up may still be accepted by the
		// socket; the peer's reset makes a later one fail.
		for i := 0; e.s.App.Events.Subscribers(e.ann.ID) == 2; i++ {
			if i == 50 {
				t.Fatal("a hung-up client is still subscribed after 50 messages")
			}
			id := e.send(t, e.api, fmt.Sprint("m", i))
			if got := healthy.NextOf("new_message").JSON(t)["message"].(map[string]any)["id"]; got != id {
				t.Fatalf("the other client got %v, want %s", got, id)
			}
		}
		e.waitSubscribers(t, 1)
	})
}

// HTTP/2 streams cannot be taken over: over h2c the stream is served by its
// request's goroutine, with the same events, and App.Close ends it.
func TestSSEOverH2C(t *testing.T) {
	e := setupStream(t)
	ctx, cancel := context.WithTimeout(context.Background(), servertest.StreamTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.s.URL+streamPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
	client := &http.Client{Transport: e.s.H2C.Transport} // no client timeout: a stream lasts
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.ProtoMajor != 2 || res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%s %d %v", res.Proto, res.StatusCode, res.Header)
	}
	evs := make(chan servertest.SSEEvent, 16)
	go func(body io.Reader) {
		defer close(evs)
		servertest.ParseSSE(body, func(ev servertest.SSEEvent) { evs <- ev })
	}(res.Body)
	next := func() servertest.SSEEvent {
		t.Helper()
		select {
		case ev, ok := <-evs:
			if !ok {
				t.Fatal("the h2c stream ended")
			}
			return ev
		case <-ctx.Done():
			t.Fatal("no event on the h2c stream")
		}
		return servertest.SSEEvent{}
	}
	if ev := next(); ev.Event != "connected" {
		t.Fatalf("first h2c event %+v", ev)
	}
	id := e.send(t, e.api, "over h2c")
	if ev := next(); ev.Event != "new_message" || !ev.HasID || ev.JSON(t)["message"].(map[string]any)["id"] != id {
		t.Fatalf("h2c new_message %+v", ev)
	}
	e.s.App.Close()
	for ev := range evs {
		t.Fatalf("an event after App.Close: %+v", ev)
	}
}
