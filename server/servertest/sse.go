package servertest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// SSEEvent is one Server-Sent Event as a client parses it.
type SSEEvent struct {
	ID, Event, Data, Retry string
	// HasID is true when the event carried an id: line.
	HasID bool
}

// JSON decodes the event's data.
func (e SSEEvent) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(e.Data), &m); err != nil {
		t.Fatalf("event data is not a JSON object: %v\n%s", err, e.Data)
	}
	return m
}

// SSEStream is an open event stream read in the background.
type SSEStream struct {
	Response *http.Response
	events   chan SSEEvent
	done     chan struct{} // closed when the stream has ended
	hangUp   func()
	t        testing.TB
}

// StreamTimeout bounds how long a test waits for one event: generous, for a
// loaded machine.
const StreamTimeout = 20 * time.Second

// Stream opens GET path as an event stream with the caller's credentials and
// extra header pairs. The stream is closed when the test ends.
func (c *Caller) Stream(path string, hdr ...string) *SSEStream {
	c.s.t.Helper()
	return c.open(http.MethodGet, path, nil, hdr...)
}

// StreamPost sends body (JSON) to path and reads the answer as an event
// stream (POST /api/chat/send). A refusal before the stream is in
// Response, with Body still to read.
func (c *Caller) StreamPost(path, body string, hdr ...string) *SSEStream {
	c.s.t.Helper()
	return c.open(http.MethodPost, path, strings.NewReader(body), append([]string{"Content-Type", "application/json"}, hdr...)...)
}

func (c *Caller) open(method, path string, body io.Reader, hdr ...string) *SSEStream {
	c.s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, method, c.s.URL+path, body)
	if err != nil {
		cancel()
		c.s.t.Fatalf("new request: %v", err)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	// No client timeout: a stream lasts; the test's waits are bounded instead.
	client := &http.Client{Jar: c.client.Jar}
	res, err := client.Do(req)
	if err != nil {
		cancel()
		c.s.t.Fatalf("%s %s: %v", method, path, err)
	}
	// Hanging up, early by Close or at the test's end, ends the request and
	// closes the body.
	hangUp := func() {
		cancel()
		_ = res.Body.Close()
	}
	c.s.t.Cleanup(hangUp)
	st := &SSEStream{Response: res, events: make(chan SSEEvent, 1024), done: make(chan struct{}), hangUp: hangUp, t: c.s.t}
	if res.StatusCode != http.StatusOK {
		return st
	}
	go st.read(res.Body)
	return st
}

// Close hangs up.
func (st *SSEStream) Close() {
	st.hangUp()
}

func (st *SSEStream) read(body io.Reader) {
	defer close(st.done)
	ParseSSE(body, func(ev SSEEvent) { st.events <- ev })
}

// ParseSSE reads an event stream until it ends, handing over each complete
// event (a partial one at a cut-off end is dropped, as EventSource does).
func ParseSSE(body io.Reader, emit func(SSEEvent)) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var ev SSEEvent
	var data []string
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if ev.Event != "" || len(data) > 0 {
				ev.Data = strings.Join(data, "\n")
				emit(ev)
			}
			ev, data = SSEEvent{}, nil
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.ID, ev.HasID = value, true
		case "event":
			ev.Event = value
		case "data":
			data = append(data, value)
		case "retry":
			ev.Retry = value
		}
	}
}

// Next waits for the next event of the stream (heartbeats included).
func (st *SSEStream) Next() SSEEvent {
	st.t.Helper()
	select {
	case ev := <-st.events:
		return ev
	case <-st.done:
		select {
		case ev := <-st.events:
			return ev
		default:
		}
		st.t.Fatalf("the stream ended while waiting for an event")
	case <-time.After(StreamTimeout):
		st.t.Fatalf("no event within %s", StreamTimeout)
	}
	return SSEEvent{}
}

// NextOf waits for the next event of type typ, passing over heartbeats and,
// unless typ is one, queue_updated events: they follow every queue change,
// and a test of other events ignores them as an agent may.
func (st *SSEStream) NextOf(typ string) SSEEvent {
	st.t.Helper()
	for {
		ev := st.Next()
		if ev.Event == typ {
			return ev
		}
		if ev.Event != "heartbeat" && ev.Event != "queue_updated" {
			st.t.Fatalf("want a %s event, got %s: %s", typ, ev.Event, ev.Data)
		}
	}
}

// Ended reports whether the server has ended the stream, waiting at most d.
func (st *SSEStream) Ended(d time.Duration) bool {
	select {
	case <-st.done:
		return true
	case <-time.After(d):
		return false
	}
}

// Drain returns the events still buffered once the stream has ended.
func (st *SSEStream) Drain() []SSEEvent {
	var out []SSEEvent
	for {
		select {
		case ev := <-st.events:
			out = append(out, ev)
		default:
			return out
		}
	}
}
