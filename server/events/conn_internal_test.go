package events

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/streamevent"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// The SSE handler on a loopback server, admitting every request as the
// account (the app's gate does that part). The server side of each connection
// gets a small send buffer, so a client that does not read fills it after a
// few KiB rather than megabytes.
func sseServer(t *testing.T, bus *Bus, userID string) string {
	t.Helper()
	h := bus.SSE()
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(auth.WithPrincipal(r.Context(), &auth.Principal{UserID: userID, Name: "Ann"})))
	}))
	ts.Listener = smallSendBuffer{ts.Listener}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.Listener.Addr().String()
}

type smallSendBuffer struct{ net.Listener }

func (l smallSendBuffer) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		err = c.(*net.TCPConn).SetWriteBuffer(4096)
	}
	return c, err
}

// dialStream opens the stream; a slow client has a small receive buffer.
func dialStream(t *testing.T, addr string, slow bool) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 10 * time.Second}
	if slow {
		d.Control = func(_, _ string, c syscall.RawConn) error {
			var serr error
			if err := c.Control(func(fd uintptr) {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
			}); err != nil {
				return err
			}
			return serr
		}
	}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, "GET /stream HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	return conn
}

// readStream hands over the stream's events (after its head) until it ends.
func readStream(conn net.Conn, emit func(event, id string)) error {
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", res.StatusCode)
	}
	sc := bufio.NewScanner(res.Body)
	var event, id string
	for sc.Scan() {
		field, value, _ := strings.Cut(sc.Text(), ": ")
		switch field {
		case "event":
			event = value
		case "id":
			id = value
		case "":
			emit(event, id)
			event, id = "", ""
		}
	}
	return sc.Err()
}

// conns are the account's subscriptions that the bus writes to directly.
func conns(b *Bus, userID string) []*sseConn {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*sseConn
	if h := b.hubs[userID]; h != nil {
		for _, s := range h.subs {
			if s.out != nil {
				out = append(out, s.out)
			}
		}
	}
	return out
}

func (c *sseConn) isWriting() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writing
}

// A client that reads slowly gets a writer of its own once its socket is
// full, keeps every event (fewer than the buffer wait), and once it has
// caught up the bus writes to it directly again.
func TestSlowConnCatchesUp(t *testing.T) {
	d := dbtest.Open(t)
	bus := newBus(t, d, Config{})
	ann := newUser(t, d, "ann")
	conn := dialStream(t, sseServer(t, bus, ann), true)
	waitFor(t, "the stream on its connection", func() bool { return len(conns(bus, ann)) == 1 })
	c := conns(bus, ann)[0]

	ctx := context.Background()
	var published []string
	publish := func() {
		t.Helper()
		before := len(published)
		if err := bus.Publish(ctx, ann, message(fmt.Sprint("m", before, strings.Repeat("x", 2048)))); err != nil {
			t.Fatal(err)
		}
		ids, err := d.StreamEvent.Query().IDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		published = append(published, fmt.Sprint(slices.Max(ids)))
	}
	for !c.isWriting() {
		if len(published) == 200 {
			t.Fatal("200 events of 2 KiB did not fill the socket of a client that reads nothing")
		}
		publish()
	}
	t.Logf("the socket was full after %d events", len(published))
	for range 10 {
		publish()
	}
	if bus.Subscribers(ann) != 1 {
		t.Fatalf("dropped with %d events sent, fewer than the buffer (%d) behind", len(published), DefaultBuffer)
	}

	got := make(chan string, 1024)
	go func() {
		defer close(got)
		_ = readStream(conn, func(event, id string) {
			if event == TypeNewMessage {
				got <- id
			}
		})
	}()
	next := func() string {
		t.Helper()
		select {
		case id, ok := <-got:
			if !ok {
				t.Fatal("the stream ended")
			}
			return id
		case <-time.After(30 * time.Second):
			t.Fatal("no event within 30s")
		}
		return ""
	}
	for i, want := range published {
		if id := next(); id != want {
			t.Fatalf("event %d: id %s, want %s", i, id, want)
		}
	}
	waitFor(t, "the writer to catch up and end", func() bool { return !c.isWriting() })
	publish()
	if id := next(); id != published[len(published)-1] {
		t.Fatalf("after catching up: id %s, want %s", id, published[len(published)-1])
	}
}

// RULINGS "Shared chat and events", over real connections the bus writes to
// itself: a client that never reads is dropped (its connection closed) once
// its socket is full and Buffer events wait, while 200 others each receive
// every event in order. Events go out in rounds no larger than the buffer,
// each read by everyone before the next, so only the client that never
// reads can overflow, however loaded the machine (counted, not timed).
func TestSlowConnDroppedOthersGetEverything(t *testing.T) {
	const (
		readers = 200
		buffer  = 8
	)
	d := dbtest.Open(t)
	bus := newBus(t, d, Config{Buffer: buffer})
	ann := newUser(t, d, "ann")
	addr := sseServer(t, bus, ann)
	stuck := dialStream(t, addr, true)

	var (
		received atomic.Int64
		mu       sync.Mutex
		got      = make([][]string, readers)
	)
	for i := range readers {
		conn := dialStream(t, addr, false)
		go func() {
			_ = readStream(conn, func(event, id string) {
				if event == TypeNewMessage {
					mu.Lock()
					got[i] = append(got[i], id)
					mu.Unlock()
					received.Add(1)
				}
			})
		}()
	}
	waitFor(t, "every stream on its connection", func() bool { return len(conns(bus, ann)) == readers+1 })

	ctx := context.Background()
	content := strings.Repeat("y", 1024)
	published := 0
	for round := 0; bus.Subscribers(ann) == readers+1 || round < 2; round++ {
		if round == 100 {
			t.Fatalf("the client that never reads is still subscribed after %d events", published)
		}
		for range buffer {
			if err := bus.Publish(ctx, ann, message(fmt.Sprint(published, content))); err != nil {
				t.Fatal(err)
			}
			published++
		}
		want := int64(readers * published)
		waitFor(t, fmt.Sprintf("round %d read by everyone", round), func() bool { return received.Load() == want })
	}
	t.Logf("dropped within %d events", published)
	if n := bus.Subscribers(ann); n != readers {
		t.Fatalf("%d subscribers, want the %d readers", n, readers)
	}
	ids, err := d.StreamEvent.Query().Order(ent.Asc(streamevent.FieldID)).IDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, id := range ids {
		want = append(want, fmt.Sprint(id))
	}
	if len(want) != published {
		t.Fatalf("%d events stored, %d published", len(want), published)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, g := range got {
		if !slices.Equal(g, want) {
			t.Fatalf("reader %d got %d of %d events, or not in order", i, len(g), published)
		}
	}

	// The dropped client's connection was closed: reading it ends.
	_ = stuck.SetReadDeadline(time.Now().Add(30 * time.Second))
	n := 0
	if err := readStream(stuck, func(event, _ string) {
		if event == TypeNewMessage {
			n++
		}
	}); err != nil {
		t.Fatalf("the dropped stream did not end cleanly: %v", err)
	}
	if n == 0 || n >= published {
		t.Fatalf("the dropped stream carried %d of %d events", n, published)
	}
}

// A stream resuming with Last-Event-ID may be handed, after its replay, an
// event the replay already carried (on PostgreSQL the listener delivers what
// committed while the replay was read). Once on its connection nothing skips
// it later, so the bus must not send it (RULINGS "Shared chat and events":
// every message exactly once).
func TestReplayedEventIsNotSentAgain(t *testing.T) {
	bus := memBus()
	defer bus.Close()
	s, _, err := bus.Subscribe(context.Background(), "ann", -1)
	if err != nil {
		t.Fatal(err)
	}
	server, client := net.Pipe() // not a socket: every write goes through the writer goroutine
	defer client.Close()
	// The replay went up to event 2; then 2 comes again, and 3.
	if !bus.attach(s, newSSEConn(server, s), 2) {
		t.Fatal("attach failed")
	}
	for id := range int64(2) {
		f, err := newFrame(id+2, message(fmt.Sprint(id+2)))
		if err != nil {
			t.Fatal(err)
		}
		bus.dispatch("ann", f, false)
	}
	_ = client.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := bufio.NewReader(client).ReadString('\n')
	if err != nil || line != "id: 3\n" {
		t.Fatalf("first line on the connection %q (%v), want event 3's", line, err)
	}
}
