package throughtest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// cutProxy forwards loopback TCP to the server and can cut every connection
// and hold new ones, as a flaky network would.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	held   chan struct{} // closed: new connections go through
	waited chan struct{} // gets a value for each connection that had to wait
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, held: make(chan struct{}), waited: make(chan struct{}, 16)}
	close(p.held)
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *cutProxy) forward(c net.Conn) {
	p.mu.Lock()
	held := p.held
	p.mu.Unlock()
	select {
	case <-held:
	default:
		p.waited <- struct{}{}
		<-held
	}
	s, err := net.DialTimeout("tcp", p.target, 10*time.Second)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, c, s)
	p.mu.Unlock()
	go func() { _, _ = io.Copy(s, c); s.Close() }()
	_, _ = io.Copy(c, s)
	c.Close()
}

// cutAndHold drops every open connection and holds new ones until release.
func (p *cutProxy) cutAndHold() (release func()) {
	p.mu.Lock()
	held := make(chan struct{})
	p.held = held
	p.mu.Unlock()
	p.cut()
	return func() { close(held) }
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// nodeEvent is one line of testdata/events/eventsource-client.cjs.
type nodeEvent struct {
	Event string
	ID    string
	Data  struct {
		Type    string
		Message struct{ ID, Content string }
	}
}

// The standard npm `eventsource` client (pinned in tools/npm) recovers from a
// dropped connection without losing a message: it reconnects after the
// server's retry hint with Last-Event-ID, and the server replays what it
// missed (RULINGS "Shared chat and events").
func TestEventSourceClientRecoversWithoutLoss(t *testing.T) {
	tools, err := filepath.Abs(filepath.Join("testdata", "events", "npm"))
	if err != nil {
		t.Fatal(err)
	}
	node := ensureNPM(t, tools, "eventsource")
	e := setupStream(t)
	proxy := newCutProxy(t, e.s.URL[len("http://"):])
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "events", "eventsource-client.cjs"),
		"http://"+proxy.ln.Addr().String()+streamPath, e.key, "4")
	cmd.Env = append(os.Environ(), "TOOLS_NPM="+tools)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan nodeEvent, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var ev nodeEvent
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Errorf("node printed %q", sc.Text())
				continue
			}
			lines <- ev
		}
	}()
	var all []nodeEvent
	next := func(event string) nodeEvent {
		t.Helper()
		for {
			select {
			case ev, ok := <-lines:
				if !ok {
					t.Fatalf("the node client exited before a %s event; saw %+v", event, all)
				}
				all = append(all, ev)
				if ev.Event == event {
					return ev
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("no %s event from the node client within 60s; saw %+v", event, all)
			}
		}
	}

	next("connected")
	var sent []string
	sent = append(sent, e.send(t, e.api, "one"))
	if ev := next("new_message"); ev.Data.Message.ID != sent[0] || ev.ID == "" {
		t.Fatalf("first message: %+v", ev)
	}
	release := proxy.cutAndHold()
	next("error") // the client noticed the drop
	sent = append(sent, e.send(t, e.api, "two"), e.send(t, e.api, "three"))
	select {
	case <-proxy.waited: // it is reconnecting, and has seen neither
	case <-time.After(60 * time.Second):
		t.Fatal("the node client did not reconnect")
	}
	release()
	next("connected")
	for _, want := range sent[1:] {
		if ev := next("new_message"); ev.Data.Message.ID != want {
			t.Fatalf("after the reconnect: %+v, want %s", ev, want)
		}
	}
	sent = append(sent, e.send(t, e.api, "four"))
	if ev := next("new_message"); ev.Data.Message.ID != sent[3] || ev.Data.Message.Content != "four" {
		t.Fatalf("live after the reconnect: %+v", ev)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node client: %v (saw %+v)", err, all)
	}
	for ev := range lines {
		if ev.Event == "new_message" {
			t.Fatalf("a message came twice: %+v", ev)
		}
	}
}
