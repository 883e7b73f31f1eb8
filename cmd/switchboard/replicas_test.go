package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// readmeBlock is the first fenced block of lang after the line holding mark
// in the README: what the README shows is what the test runs.
func readmeBlock(t *testing.T, mark, lang string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), mark)
	if !ok {
		t.Fatalf("README.md has no %q", mark)
	}
	_, after, ok = strings.Cut(after, "```"+lang+"\n")
	if !ok {
		t.Fatalf("README.md has no ```%s block after %q", lang, mark)
	}
	block, _, ok := strings.Cut(after, "\n```")
	if !ok {
		t.Fatalf("README.md's ```%s block after %q does not end", lang, mark)
	}
	return block + "\n"
}

// replica is one `switchboard serve` of the set, on a port of its own that
// it keeps across restarts (the balancer's configuration names it).
type replicaProc struct {
	name string
	addr string
	args []string
	dir  string
	mu   sync.Mutex
	cmd  *exec.Cmd
}

func (r *replicaProc) start(t *testing.T, bin string) {
	t.Helper()
	cmd := exec.Command(bin, r.args...)
	cmd.Dir = r.dir // one directory: the first start's instance key is every replica's
	base, _, err := tryStartLogged(t, cmd)
	if err != nil {
		t.Fatalf("%s: %v", r.name, err)
	}
	if base != "http://"+r.addr {
		t.Fatalf("%s listens on %s, want %s", r.name, base, r.addr)
	}
	r.mu.Lock()
	r.cmd = cmd
	r.mu.Unlock()
}

func (r *replicaProc) kill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	_ = r.cmd.Wait()
}

// balancer runs HAProxy with the README's configuration in front of the
// replicas and answers its address once it routes to a ready replica.
func balancer(t *testing.T, replicas []*replicaProc) string {
	t.Helper()
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatal("haproxy is not installed: the PostgreSQL leg needs it (Debian's package haproxy; .ci/run installs it)")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(readmeBlock(t, "<!-- replicas-check haproxy", "haproxy")), 0o600); err != nil {
		t.Fatal(err)
	}
	lb := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(haproxy, "-db", "-f", cfg)
	cmd.Env = append(os.Environ(), "SWITCHBOARD_LB="+lb)
	for i, r := range replicas {
		cmd.Env = append(cmd.Env, fmt.Sprintf("SWITCHBOARD_REPLICA_%d=%s", i+1, r.addr))
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := "http://" + lb
	within(t, 20*time.Second, "the balancer routes to a ready replica", func() bool {
		res, err := (&http.Client{Timeout: time.Second}).Get(base + "/readyz")
		if err != nil {
			return false
		}
		_ = res.Body.Close()
		return res.StatusCode == http.StatusOK
	}, out.String)
	return base
}

// retryable are the answers a client may see through the balancer while a
// replica dies (RULINGS "Replicas and operations", details): a cut
// connection, 502, 503 or 504; and a retry with the same Idempotency-Key
// meets 409 while the first attempt's claim is still held (RULINGS
// "Idempotency"), at most --timer-lease after its replica died. Go's
// transport itself resends a keyed request whose connection was cut before
// the answer, so a 409 may come to what the caller sent once.
func retryable(status int, err error, body []byte) bool {
	return err != nil || status == http.StatusBadGateway || status == http.StatusServiceUnavailable ||
		status == http.StatusGatewayTimeout || status == http.StatusConflict && strings.Contains(string(body), "Idempotency-Key is still running")
}

// tookEffect is the answer to a keyed retry whose first attempt committed
// on a replica that died before it recorded the answer: the change is in,
// its answer is lost, and no retry will get it.
const tookEffect = "took effect but its answer was not recorded"

// keyedPost sends body to path with one Idempotency-Key until it is
// answered 2xx, retrying what retryable admits; it answers the body, or nil
// with lost when the change took effect without an answer. Anything else,
// or no answer within the bound, fails the test.
func keyedPost(t *testing.T, base, key, path, body string, seen func(status int, err error)) (m map[string]any, lost bool) {
	hc := &http.Client{Timeout: 15 * time.Second}
	idem := ids.New()
	deadline := time.Now().Add(60 * time.Second)
	for attempt := 0; ; attempt++ {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", idem)
		res, err := hc.Do(req)
		status := 0
		var data []byte
		if err == nil {
			status = res.StatusCode
			data, _ = io.ReadAll(res.Body)
			_ = res.Body.Close()
		}
		seen(status, err)
		if err == nil && status/100 == 2 {
			if jerr := json.Unmarshal(data, &m); jerr != nil {
				t.Errorf("POST %s: %d %s", path, status, data)
			}
			return m, false
		}
		if status == http.StatusConflict && strings.Contains(string(data), tookEffect) {
			return nil, true
		}
		if !retryable(status, err, data) || time.Now().After(deadline) {
			t.Errorf("POST %s (attempt %d): %d %v %s", path, attempt+1, status, err, data)
			return nil, false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// eventLog keeps what a reader received, never blocking it: a reader that
// stalls would be dropped by the server as slow and fall behind the
// retention of its account's events, which is not what this test measures.
type eventLog struct {
	mu  sync.Mutex
	evs []servertest.SSEEvent
	// resumed are the Last-Event-IDs the reader reconnected with.
	resumed []string
	// connected is closed when the first stream said connected: events
	// from then on are the reader's.
	connected chan struct{}
	once      sync.Once
}

func (l *eventLog) add(ev servertest.SSEEvent) {
	l.mu.Lock()
	l.evs = append(l.evs, ev)
	l.mu.Unlock()
}

// since answers the events after the first n.
func (l *eventLog) since(n int) []servertest.SSEEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.evs[n:])
}

// resumingStream reads the chat stream through base, reconnecting with
// Last-Event-ID whenever it is cut, until ctx ends; it logs every event with
// an id.
func resumingStream(ctx context.Context, t *testing.T, base, key string, out *eventLog) {
	last := ""
	hc := &http.Client{} // a stream has no overall time-out; ctx ends it
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v2/shared-chat/stream", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
			out.mu.Lock()
			out.resumed = append(out.resumed, last)
			out.mu.Unlock()
		}
		res, err := hc.Do(req)
		if err != nil || res.StatusCode != http.StatusOK {
			if err == nil {
				_ = res.Body.Close()
				if !retryable(res.StatusCode, nil, nil) {
					t.Errorf("stream: %d", res.StatusCode)
					return
				}
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		servertest.ParseSSE(bufio.NewReader(res.Body), func(ev servertest.SSEEvent) {
			if ev.Event == "connected" {
				out.once.Do(func() { close(out.connected) })
			}
			if ev.HasID {
				last = ev.ID
				out.add(ev)
			}
		})
		_ = res.Body.Close()
	}
}

// Issue 32's acceptance: three replicas on one PostgreSQL database behind
// HAProxy with the README's configuration. A write load goes through the
// balancer while one replica is killed (SIGKILL) and started again: every
// write answered 2xx is in the database, and the clients saw only the
// documented errors; SSE clients through the balancer resume with
// Last-Event-ID and see every message exactly once. Then each replica is
// addressed directly for what must be one across them
// (sharedAcrossReplicas).
func TestThreeReplicasBehindABalancer(t *testing.T) {
	if os.Getenv(dbtest.TestPostgresEnv) == "" {
		t.Logf("needs PostgreSQL (%s): absent on the SQLite leg", dbtest.TestPostgresEnv)
		return
	}
	bin := buildBinary(t)
	dsn := dbtest.EmptyDSN(t)
	if code, _, stderr := runBinary(t, "migrate", "--db", dsn); code != 0 {
		t.Fatalf("migrate: exit %d: %s", code, stderr)
	}
	dir := t.TempDir()
	replicas := make([]*replicaProc, 3)
	for i := range replicas {
		addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		replicas[i] = &replicaProc{name: fmt.Sprintf("replica %d", i+1), addr: addr, dir: dir,
			args: []string{"serve", "--addr", addr, "--db", dsn, "--migrate=false", "--db-max-conns", "6",
				"--timer-lease", "2s", "--rate-limit-per-minute", "100000", "--allow-private-endpoints",
				"--heavy-rate-limit-per-minute", strconv.Itoa(replicaHeavyLimit)}}
		replicas[i].start(t, bin)
	}
	lb := balancer(t, replicas)
	owner := newClient(t, lb)
	if code, body := owner.do(http.MethodPost, "/api/setup", `{"username":"owner","email":"owner@replicas.example","password":"`+servertest.Password+`","name":"Owner","acceptedTerms":true}`); code != http.StatusCreated {
		t.Fatalf("setup: %d %v", code, body)
	}
	if code, _ := owner.do(http.MethodPost, "/api/auth/login", `{"username":"owner","password":"`+servertest.Password+`"}`); code != http.StatusOK {
		t.Fatalf("login: %d", code)
	}
	code, body := owner.do(http.MethodPost, "/api/v2/keys", `{"label":"load","scopes":["queue","chat"]}`)
	key, _ := body["apiKey"].(string)
	if code != http.StatusCreated || key == "" {
		t.Fatalf("key: %d %v", code, body)
	}
	code, body = owner.do(http.MethodPost, "/api/v2/keys", `{"label":"shared","scopes":["queue","mcp","store","a2a"]}`)
	sharedKey, _ := body["apiKey"].(string)
	if code != http.StatusCreated || sharedKey == "" {
		t.Fatalf("key: %d %v", code, body)
	}

	var (
		mu       sync.Mutex
		outcomes = map[string]int{}
		items    []string
		messages []string
	)
	seen := func(status int, err error) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil:
			outcomes["cut"]++
		default:
			outcomes[fmt.Sprint(status)]++
		}
	}
	// Three readers of the chat stream, each through the balancer.
	streamCtx, stopStreams := context.WithCancel(context.Background())
	var streams sync.WaitGroup
	defer streams.Wait()
	defer stopStreams()
	readers := make([]*eventLog, 3)
	for i := range readers {
		readers[i] = &eventLog{connected: make(chan struct{})}
		streams.Go(func() { resumingStream(streamCtx, t, lb, key, readers[i]) })
	}
	for i, r := range readers {
		select {
		case <-r.connected:
		case <-time.After(servertest.StreamTimeout):
			t.Fatalf("reader %d did not connect", i+1)
		}
	}

	// The load: writers of queue items and one sender of chat messages,
	// until stop.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				m, lost := keyedPost(t, lb, key, "/api/v2/queue", fmt.Sprintf(`{"title":"load %d-%d"}`, w, n), seen)
				if lost {
					continue
				}
				if m == nil {
					return
				}
				id, _ := m["item"].(map[string]any)["id"].(string)
				mu.Lock()
				items = append(items, id)
				mu.Unlock()
			}
		})
	}
	wg.Go(func() {
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			m, lost := keyedPost(t, lb, key, "/api/v2/shared-chat/send", fmt.Sprintf(`{"content":"message %d"}`, n), seen)
			if lost {
				continue
			}
			if m == nil {
				return
			}
			mu.Lock()
			messages = append(messages, m["id"].(string))
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	})
	time.Sleep(2 * time.Second)
	victim := replicas[1]
	victim.kill()
	time.Sleep(2 * time.Second)
	victim.start(t, bin)
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("outcomes through the balancer: %v; %d items, %d messages", outcomes, len(items), len(messages))
	if len(items) == 0 || len(messages) == 0 {
		t.Fatal("the load wrote nothing")
	}

	// No acknowledged write lost.
	d, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	stored, err := d.QueueItem.Query().Where(queueitem.IDIn(items...)).Count(context.Background())
	if err != nil || stored != len(items) {
		t.Fatalf("%d of %d acknowledged items in the database (%v)", stored, len(items), err)
	}

	// Every reader sees every acknowledged message exactly once, and no
	// event id twice.
	for i, events := range readers {
		got := map[string]int{}
		ids := map[string]bool{}
		missing := func() string {
			n, first := 0, ""
			for _, m := range messages {
				if got[m] == 0 {
					if n == 0 {
						first = m
					}
					n++
				}
			}
			events.mu.Lock()
			resumed := slices.Clone(events.resumed)
			events.mu.Unlock()
			// Where the missing message's event is stored, and what the
			// reader saw around it.
			stored, near := int64(0), []string{}
			if rows, err := d.StreamEvent.Query().All(context.Background()); err == nil {
				for _, r := range rows {
					if first != "" && bytes.Contains(r.Payload, []byte(first)) {
						stored = r.ID
					}
				}
				for id := stored - 3; stored > 0 && id <= stored+3; id++ {
					near = append(near, fmt.Sprintf("%d:%v", id, ids[fmt.Sprint(id)]))
				}
			}
			first = fmt.Sprintf("%s, stored as event %d, seen around it %v", first, stored, near)
			return fmt.Sprintf("%d of %d messages missing (the first %s); %d events seen; resumed after %v", n, len(messages), first, len(ids), resumed)
		}
		read := 0
		within(t, 30*time.Second, fmt.Sprintf("reader %d's messages", i+1), func() bool {
			for _, ev := range events.since(read) {
				read++
				if ids[ev.ID] {
					t.Fatalf("reader %d: event %s twice", i+1, ev.ID)
				}
				ids[ev.ID] = true
				if ev.Event == "new_message" {
					msg, _ := ev.JSON(t)["message"].(map[string]any)
					id, _ := msg["id"].(string)
					got[id]++
				}
			}
			for _, m := range messages {
				if got[m] == 0 {
					return false
				}
			}
			return true
		}, missing)
		for id, n := range got {
			if n != 1 {
				t.Fatalf("reader %d: message %s %d times", i+1, id, n)
			}
		}
	}

	sharedAcrossReplicas(t, replicas, sharedKey)
}
