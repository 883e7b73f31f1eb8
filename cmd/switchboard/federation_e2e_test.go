package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mathrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// instance is one switchboard process of the federation test, on a port
// chosen before it starts (its --public-url must name it), with its own
// database and working directory (its instance key), and its owner's
// session and API key.
type instance struct {
	name, base string
	dsn        string // its database, which the test reads only to replay a delivery
	args       []string
	dir        string
	cmd        *exec.Cmd
	owner      *client // session
	key        *client // API key, every scope
}

// freePort is a loopback port nobody listens on now, below Linux's
// ephemeral range (32768–60999) so that no outgoing connection of another
// test takes it as its local port before the process binds it (the process
// needs the port before it starts: its --public-url names it).
func freePort(t *testing.T) int {
	t.Helper()
	for range 100 {
		port := 20000 + mathrand.IntN(12000)
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		_ = l.Close()
		return port
	}
	t.Fatal("no free loopback port in 20000–31999")
	return 0
}

// federationArgs are the short timings of the federation test: every one is
// a flag (RULINGS "Federation: instances and the platform").
var federationArgs = []string{"--allow-private-endpoints", "--heartbeat-interval", "1s",
	"--federation-retry-schedule", "1s,2s,3s", "--federation-rate-limit-per-minute", "1000",
	"--rate-limit-per-minute", "10000", "--heavy-rate-limit-per-minute", "1000"}

func startInstance(t *testing.T, bin, name string, extra ...string) *instance {
	t.Helper()
	in := &instance{name: name, dir: t.TempDir(), dsn: dbtest.DSN(t)}
	// The port is free when chosen but another socket may take it before the
	// process binds it: then the process is started again on another one.
	for attempt := 1; ; attempt++ {
		port := freePort(t)
		in.base = fmt.Sprintf("http://127.0.0.1:%d", port)
		in.args = slices.Concat([]string{"serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--public-url", in.base,
			"--db", in.dsn, "--db-max-conns", "4"}, federationArgs, extra)
		cmd := exec.Command(bin, in.args...)
		cmd.Dir = in.dir
		base, _, err := tryStartLogged(t, cmd)
		var early *errExitedEarly
		if errors.As(err, &early) && early.portTaken() && attempt < 3 {
			t.Logf("%s: port %d was taken before the process bound it; another port", name, port)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		in.base, in.cmd = base, cmd
		break
	}
	in.owner = newClient(t, in.base)
	if code, body := in.owner.do(http.MethodPost, "/api/setup", `{"username":"owner","email":"owner@`+name+`.example","password":"`+servertest.Password+`","name":"Owner `+name+`","acceptedTerms":true}`); code != http.StatusCreated {
		t.Fatalf("%s setup: %d %v", name, code, body)
	}
	if code, _ := in.owner.do(http.MethodPost, "/api/auth/login", `{"username":"owner","password":"`+servertest.Password+`"}`); code != http.StatusOK {
		t.Fatalf("%s login: %d", name, code)
	}
	code, body := in.owner.do(http.MethodPost, "/api/v2/keys", `{"label":"e2e","scopes":[]}`)
	in.key = newClient(t, in.base)
	in.key.key, _ = body["apiKey"].(string)
	if code != http.StatusCreated || in.key.key == "" {
		t.Fatalf("%s key: %d %v", name, code, body)
	}
	return in
}

// start runs again, same database, port and key, a stopped process.
func (in *instance) start(t *testing.T, bin string) {
	t.Helper()
	cmd := exec.Command(bin, in.args...)
	cmd.Dir = in.dir
	in.base, in.cmd = startCmd(t, cmd)
}

func (in *instance) stop(t *testing.T) {
	t.Helper()
	_ = in.cmd.Process.Kill()
	_ = in.cmd.Wait()
}

// must calls c and fails the test unless the status is want.
func must(t *testing.T, c *client, want int, method, path, body string) map[string]any {
	t.Helper()
	code, out := c.do(method, path, body)
	if code != want {
		t.Fatalf("%s %s %s: %d %v", method, c.base, path, code, out)
	}
	return out
}

// within polls cond every 50 ms for up to limit; seen, when given, says
// what was there instead.
func within(t *testing.T, limit time.Duration, what string, cond func() bool, seen ...func() string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			if len(seen) > 0 {
				t.Fatalf("%s: not within %s (seen: %s)", what, limit, seen[0]())
			}
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// e2eAgent is the agents' side (outside the machine: loopback HTTP): it
// answers after delay, counting calls and the most it ran at once.
type e2eAgent struct {
	*httptest.Server
	delay           atomic.Int64 // nanoseconds
	calls, now, top atomic.Int32
}

func newE2EAgent(t *testing.T) *e2eAgent {
	a := &e2eAgent{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		a.calls.Add(1)
		n := a.now.Add(1)
		for {
			top := a.top.Load()
			if n <= top || a.top.CompareAndSwap(top, n) {
				break
			}
		}
		select {
		case <-time.After(time.Duration(a.delay.Load())):
		case <-r.Context().Done():
		}
		a.now.Add(-1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"output": "done by " + r.Header.Get("X-Service-Execution-Id")})
	}))
	t.Cleanup(a.Close)
	return a
}

func listingOn(t *testing.T, in *instance, body string) string {
	t.Helper()
	return must(t, in.key, http.StatusCreated, http.MethodPost, "/api/marketplace", body)["agent"].(map[string]any)["id"].(string)
}

func joinHub(t *testing.T, hub, spoke *instance) {
	t.Helper()
	tok := must(t, hub.owner, http.StatusCreated, http.MethodPost, "/api/developer/connect-tokens", `{"purpose":"instance"}`)
	token := tok["token"].(map[string]any)["token"].(string)
	must(t, spoke.owner, http.StatusOK, http.MethodPost, "/api/federation/join",
		`{"hubUrl":"`+hub.base+`","connectToken":"`+token+`","storeParticipation":true,"name":"`+spoke.name+`"}`)
}

func syncStore(t *testing.T, spoke *instance) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, r := range must(t, spoke.owner, http.StatusOK, http.MethodPost, "/api/marketplace/sync", `{}`)["results"].([]any) {
		m := r.(map[string]any)
		out[m["id"].(string)] = m
	}
	return out
}

func hubInstance(t *testing.T, hub *instance, name string) map[string]any {
	t.Helper()
	for _, i := range must(t, hub.owner, http.StatusOK, http.MethodGet, "/api/admin/federation/instances", "")["instances"].([]any) {
		if m := i.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("no instance %s on the hub", name)
	return nil
}

// executionOn reads one of the caller's executions of agentID by id.
func executionOn(t *testing.T, c *client, agentID, id string) map[string]any {
	t.Helper()
	for _, e := range must(t, c, http.StatusOK, http.MethodGet, "/api/marketplace/executions?agentId="+agentID+"&limit=100", "")["executions"].([]any) {
		if ex := e.(map[string]any)["execution"].(map[string]any); ex["executionId"] == id || ex["id"] == id {
			return ex
		}
	}
	return nil
}

func auditRows(t *testing.T, in *instance, query string) []any {
	t.Helper()
	return must(t, in.owner, http.StatusOK, http.MethodGet, "/api/admin/federation-audit?"+query, "")["entries"].([]any)
}

// TestThreeInstanceFederation: issue 14's three-process acceptance on
// loopback: a hub and two spokes, each its own process and database (on
// the PostgreSQL leg, each its own PostgreSQL database). RULINGS
// "Federation: instances and the platform"; document 2 "Instance
// federation", "Execution contract", "Circuit breaker states",
// "Outbound delivery retry", "FederationAuditLog".
func TestThreeInstanceFederation(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	// The hub and A export their spans to one loopback OTLP/HTTP receiver.
	rcv := servertest.NewOTLPReceiver(t)
	// The hub retries its webhooks for longer than A takes to restart on a
	// loaded machine (A is down when one is due), in four attempts: a fifth
	// failure would open the target's breaker for a minute. The others keep
	// the shortest schedule.
	hub := startInstance(t, bin, "hub", "--role", "hub", "--review-policy", "review", "--otlp-endpoint", rcv.URL,
		"--federation-retry-schedule", "2s,8s,30s")
	a := startInstance(t, bin, "a", "--otlp-endpoint", rcv.URL)
	b := startInstance(t, bin, "b")
	agent := newE2EAgent(t)

	// A joins: the hub verified A's address before answering.
	joinHub(t, hub, a)
	if rows := auditRows(t, hub, "direction=outbound&endpoint=/.well-known/switchboard-instance"); len(rows) == 0 {
		t.Fatal("the hub's verification call is not in its audit log")
	}
	if rows := auditRows(t, a, "direction=inbound&endpoint=/.well-known/switchboard-instance"); len(rows) == 0 {
		t.Fatal("the verification is not in A's audit log")
	}
	// Heartbeats arrive on their (short) interval.
	first := hubInstance(t, hub, "a")["lastHeartbeatAt"]
	within(t, 15*time.Second, "a later heartbeat from A", func() bool {
		return hubInstance(t, hub, "a")["lastHeartbeatAt"] != first
	})

	// B takes the slug "scout" first; A's scout is then a conflict.
	joinHub(t, hub, b)
	bScout := listingOn(t, b, `{"name":"Scout","slug":"scout","endpointUrl":"`+agent.URL+`"}`)
	if got := syncStore(t, b); got[bScout]["status"] != "created" {
		t.Fatalf("B's sync: %v", got)
	}
	// The writer's executionTimeout is the shortest a listing takes (30 s).
	writer := listingOn(t, a, `{"name":"Writer","executionTimeout":30,"endpointUrl":"`+agent.URL+`"}`)
	coder := listingOn(t, a, `{"name":"Coder","endpointUrl":"`+agent.URL+`"}`)
	scout := listingOn(t, a, `{"name":"A Scout","slug":"scout","endpointUrl":"`+agent.URL+`"}`)
	capability := func(body string) string {
		code, out := a.owner.do(http.MethodPost, "/api/marketplace-capabilities", body)
		if code != http.StatusCreated && code != http.StatusOK {
			t.Fatalf("capability on A: %d %v", code, out)
		}
		return out["capability"].(map[string]any)["capabilityId"].(string)
	}
	notes := capability(`{"action":"create","name":"Meeting Notes","prompt":"Summarise the meeting."}`)
	brief := capability(`{"action":"create","name":"Morning Brief","prompt":"Brief me on the day."}`)
	res := must(t, a.owner, http.StatusOK, http.MethodPost, "/api/marketplace/sync", `{}`)
	got := map[string]map[string]any{}
	for _, key := range []string{"results", "capabilityResults"} {
		for _, r := range res[key].([]any) {
			m := r.(map[string]any)
			got[m["id"].(string)] = m
		}
	}
	if got[writer]["status"] != "created" || got[coder]["status"] != "created" || got[scout]["status"] != "conflict" ||
		got[notes]["status"] != "created" || got[brief]["status"] != "created" {
		t.Fatalf("A's sync: %v", res)
	}
	hubNotes := got[notes]["marketplaceId"].(string)
	hubWriter, hubCoder := got[writer]["marketplaceId"].(string), got[coder]["marketplaceId"].(string)

	// The hub admin approves two agents; the webhooks reach A.
	must(t, hub.owner, http.StatusOK, http.MethodPost, "/api/admin/marketplace/"+hubWriter+"/approve", `{}`)
	must(t, hub.owner, http.StatusOK, http.MethodPost, "/api/admin/marketplace/"+hubNotes+"/approve", `{}`)
	within(t, 15*time.Second, "the writer's approval on A", func() bool {
		ag := must(t, a.key, http.StatusOK, http.MethodGet, "/api/marketplace/"+writer, "")["agent"].(map[string]any)
		return ag["hubStatus"] == "active" && ag["marketplaceId"] == hubWriter
	})
	// A is down when the coder is approved: the webhook is retried on the
	// short schedule and delivered once A is back.
	a.stop(t)
	must(t, hub.owner, http.StatusOK, http.MethodPost, "/api/admin/marketplace/"+hubCoder+"/approve", `{}`)
	time.Sleep(1500 * time.Millisecond) // the first attempt fails
	a.start(t, bin)
	within(t, 60*time.Second, "the coder's approval on A after its restart", func() bool {
		ag := must(t, a.key, http.StatusOK, http.MethodGet, "/api/marketplace/"+coder, "")["agent"].(map[string]any)
		return ag["hubStatus"] == "active"
	})
	if rows := auditRows(t, hub, "direction=outbound&status=retry_pending"); len(rows) == 0 {
		t.Fatal("the failed webhook attempt is not in the hub's audit log as retry_pending")
	}

	// A hub user executes A's writer: the hub dispatches to A, A calls its
	// agent, the result returns through the callback and the review window
	// opens on the hub.
	// An account per phase: executes count in the heavy rate class (20 a
	// minute per account).
	newBuyer := func(name string) *client {
		c := newClient(t, hub.base)
		must(t, c, http.StatusCreated, http.MethodPost, "/api/signup",
			`{"username":"`+name+`","email":"`+name+`@hub.example","password":"`+servertest.Password+`","name":"Buyer"}`)
		must(t, c, http.StatusOK, http.MethodPost, "/api/auth/login", `{"username":"`+name+`","password":"`+servertest.Password+`"}`)
		k := newClient(t, hub.base)
		k.key, _ = must(t, c, http.StatusCreated, http.MethodPost, "/api/v2/keys", `{"label":"buy","scopes":[]}`)["apiKey"].(string)
		return k
	}
	buyer := newBuyer("buyer")
	ex := must(t, buyer, http.StatusOK, http.MethodPost, "/api/marketplace/"+hubWriter+"/execute", `{"input":"Draft the launch note."}`)
	id := ex["executionId"].(string)
	within(t, 20*time.Second, "the dispatched execution's result on the hub", func() bool {
		e := executionOn(t, buyer, hubWriter, id)
		return e != nil && e["status"] == "completed"
	})
	if e := executionOn(t, buyer, hubWriter, id); e["reviewStatus"] != "pending_review" ||
		!strings.Contains(fmt.Sprint(e["output"]), "done by") {
		t.Fatalf("the hub's execution: %v", e)
	}

	// The hub's call to A and A's handling of it are one trace across the
	// two processes.
	const execute = "switchboard.v1.FederationSpokeService/Execute"
	var hubSpan, aSpan *servertest.ReceivedSpan
	within(t, 20*time.Second, "the dispatch's spans at the receiver", func() bool {
		hubSpan = rcv.Find(hub.base, execute, tracepb.Span_SPAN_KIND_CLIENT)
		aSpan = rcv.Find(a.base, execute, tracepb.Span_SPAN_KIND_SERVER)
		return hubSpan != nil && aSpan != nil
	})
	if len(hubSpan.Span.GetTraceId()) != 16 || !bytes.Equal(hubSpan.Span.GetTraceId(), aSpan.Span.GetTraceId()) ||
		!bytes.Equal(aSpan.Span.GetParentSpanId(), hubSpan.Span.GetSpanId()) {
		t.Fatalf("not one trace: hub %x/%x, A %x parent %x", hubSpan.Span.GetTraceId(), hubSpan.Span.GetSpanId(),
			aSpan.Span.GetTraceId(), aSpan.Span.GetParentSpanId())
	}

	// 20 concurrent executes: one runs at a time, the rest queue FIFO, all
	// complete.
	agent.delay.Store(int64(40 * time.Millisecond))
	before := agent.calls.Load()
	buyer = newBuyer("many")
	var wg sync.WaitGroup
	ids, fails := make([]string, 20), make([]string, 20)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, out := buyer.do(http.MethodPost, "/api/marketplace/"+hubWriter+"/execute", fmt.Sprintf(`{"input":"Task %d"}`, i))
			if code == http.StatusOK {
				ids[i], _ = out["executionId"].(string)
			} else {
				fails[i] = fmt.Sprint(code, out)
			}
		}()
	}
	wg.Wait()
	for i, x := range ids {
		if x == "" {
			t.Fatalf("concurrent execute %d failed: %s", i, fails[i])
		}
	}
	within(t, 60*time.Second, "20 queued executions completed", func() bool {
		done := 0
		for _, e := range must(t, buyer, http.StatusOK, http.MethodGet, "/api/marketplace/executions?agentId="+hubWriter+"&limit=100", "")["executions"].([]any) {
			if e.(map[string]any)["execution"].(map[string]any)["status"] == "completed" {
				done++
			}
		}
		return done == 20
	})
	if calls, top := agent.calls.Load()-before, agent.top.Load(); calls != 20 || top != 1 {
		t.Fatalf("the agent saw %d calls, at most %d at once; want 20 and 1", calls, top)
	}
	assertFIFO(t, must(t, buyer, http.StatusOK, http.MethodGet, "/api/marketplace/executions?agentId="+hubWriter+"&limit=100", "")["executions"].([]any))

	// The decisions reached A: three webhooks (two agents, a capability)
	// delivered, as the hub's audit log says.
	within(t, 15*time.Second, "three delivered approval webhooks", func() bool {
		ok := 0
		for _, r := range auditRows(t, hub, "direction=outbound&endpoint=/api/marketplace/webhook&limit=100") {
			if st := r.(map[string]any)["status"]; st == "ok" || st == "retry_success" {
				ok++
			}
		}
		return ok == 3
	})

	// A hub user and a B user browse the global store; the B user runs A's
	// writer through B and finds the delivery in their queue on B.
	globalHas := func(c *client, query, id, origin string) bool {
		for _, l := range must(t, c, http.StatusOK, http.MethodGet, "/api/marketplace?"+query+"&limit=100", "")["agents"].([]any) {
			if m := l.(map[string]any); m["id"] == id && m["origin"] == origin {
				return true
			}
		}
		return false
	}
	if !globalHas(buyer, "scope=global", hubWriter, "global") || !globalHas(buyer, "scope=all", hubWriter, "global") {
		t.Fatal("the hub user does not see A's writer in the global store")
	}
	if !globalHas(b.key, "scope=global", hubWriter, "global") || !globalHas(b.key, "scope=all", bScout, "local") ||
		!globalHas(b.key, "scope=all", hubWriter, "global") {
		t.Fatal("B's user does not see the global store merged with B's own")
	}
	viaB := must(t, b.key, http.StatusOK, http.MethodPost, "/api/marketplace/"+hubWriter+"/execute", `{"input":"From B: draft it."}`)
	viaBID := viaB["executionId"].(string)
	within(t, 20*time.Second, "the delivery in the B user's queue", func() bool {
		for _, it := range must(t, b.key, http.StatusOK, http.MethodGet, "/api/v2/queue", "")["data"].(map[string]any)["items"].([]any) {
			if m := it.(map[string]any); m["executionId"] == viaBID && m["status"] == "done_today" {
				return true
			}
		}
		return false
	})
	// The B user confirms it through B: B forwards the review to the hub,
	// which confirms its execution and answers.
	reviewed := must(t, b.key, http.StatusOK, http.MethodPost, "/api/marketplace/lifecycle",
		`{"action":"confirm","executionId":"`+viaBID+`","rating":5}`)
	if e := reviewed["execution"].(map[string]any); reviewed["action"] != "confirm" || e["executionId"] != viaBID ||
		e["reviewStatus"] != "confirmed" || e["rating"] != 5.0 {
		t.Fatalf("the B user's confirm: %v", reviewed)
	}
	if code, out := b.key.do(http.MethodPost, "/api/marketplace/lifecycle", `{"action":"confirm","executionId":"`+viaBID+`"}`); code != http.StatusBadRequest {
		t.Fatalf("a second confirm through B: %d %v", code, out)
	}

	// A announces maintenance: the hub stops dispatching to it; healthy
	// again: it dispatches.
	must(t, a.owner, http.StatusOK, http.MethodPost, "/api/federation/health", `{"status":"maintenance"}`)
	within(t, 10*time.Second, "A in maintenance on the hub", func() bool {
		return hubInstance(t, hub, "a")["health"] == "maintenance"
	})
	if code, out := buyer.do(http.MethodPost, "/api/marketplace/"+hubWriter+"/execute", `{"input":"During maintenance"}`); code != http.StatusBadRequest ||
		!strings.Contains(fmt.Sprint(out["error"]), "maintenance") {
		t.Fatalf("execute during maintenance: %d %v", code, out)
	}
	must(t, a.owner, http.StatusOK, http.MethodPost, "/api/federation/health", `{"status":"healthy"}`)
	within(t, 10*time.Second, "A healthy on the hub", func() bool {
		return hubInstance(t, hub, "a")["health"] == "healthy"
	})

	// A deactivated: its agents and capabilities are suspended; reactivated:
	// each is back to its own status.
	suspended := func() int {
		return len(must(t, hub.owner, http.StatusOK, http.MethodGet, "/api/admin/marketplace?status=suspended", "")["items"].([]any))
	}
	aID := hubInstance(t, hub, "a")["id"].(string)
	must(t, hub.owner, http.StatusOK, http.MethodPost, "/api/admin/federation/instances/"+aID+"/deactivate", `{}`)
	if st := must(t, hub.owner, http.StatusOK, http.MethodGet, "/api/marketplace/"+hubWriter, "")["agent"].(map[string]any)["status"]; st != "suspended" {
		t.Fatalf("after deactivation: %v", st)
	}
	if k := suspended(); k != 4 { // two agents, two capabilities (the conflict never synced)
		t.Fatalf("%d suspended after deactivation, want 4", k)
	}
	must(t, hub.owner, http.StatusOK, http.MethodPost, "/api/admin/federation/instances/"+aID+"/reactivate", `{}`)
	if st := must(t, hub.owner, http.StatusOK, http.MethodGet, "/api/marketplace/"+hubWriter, "")["agent"].(map[string]any)["status"]; st != "active" {
		t.Fatalf("after reactivation: %v", st)
	}
	if k := suspended(); k != 0 {
		t.Fatalf("%d still suspended after reactivation", k)
	}

	// A stops mid-execution: the hub's execution times out after the
	// listing's executionTimeout. Meanwhile each execute of another of A's
	// agents fails as unreachable, and after 5 failures the breaker opens
	// and the next fails without a call.
	agent.delay.Store(int64(time.Minute))
	slow := must(t, buyer, http.StatusOK, http.MethodPost, "/api/marketplace/"+hubWriter+"/execute", `{"input":"A long one"}`)
	slowID, slowBy := slow["executionId"].(string), buyer
	within(t, 10*time.Second, "A's agent called", func() bool { return agent.now.Load() == 1 })
	a.stop(t)
	buyer = newBuyer("late")
	for i := range 6 {
		out := must(t, buyer, http.StatusOK, http.MethodPost, "/api/marketplace/"+hubCoder+"/execute", `{"input":"While A is down"}`)
		if open := strings.Contains(fmt.Sprint(out["error"]), "open"); out["status"] != "failed" || open != (i == 5) {
			t.Fatalf("execute %d with A down: %v", i, out)
		}
	}
	within(t, 45*time.Second, "the execution A never finished times out on the hub", func() bool {
		e := executionOn(t, slowBy, hubWriter, slowID)
		return e != nil && e["status"] == "timeout"
	})

	// A replayed older decision is ignored: A is back, the hub disables the
	// coder and A records it; then the coder's earlier approval is put back
	// in the hub's outbox and sent again (the admin's process_retries): A
	// takes it (200) and keeps the newer decision.
	a.start(t, bin)
	must(t, hub.owner, http.StatusOK, http.MethodPost, "/api/admin/marketplace/"+hubCoder+"/disable", `{"reason":"Replaced"}`)
	coderOnA := func() string {
		return fmt.Sprint(must(t, a.key, http.StatusOK, http.MethodGet, "/api/marketplace/"+coder, "")["agent"].(map[string]any)["hubStatus"])
	}
	within(t, 20*time.Second, "the coder's disabling on A", func() bool { return coderOnA() == "disabled" })
	replayed := replayDelivery(t, hub, `"marketplaceId":"`+hubCoder+`"`, `"status":"active"`)
	must(t, hub.owner, http.StatusOK, http.MethodPost, "/api/admin/federation-audit", `{"action":"process_retries"}`)
	within(t, 20*time.Second, "the replayed approval delivered again", func() bool {
		row := deliveryOn(t, hub, replayed)
		return row.Status == webhookdelivery.StatusDelivered && row.LastStatus != nil && *row.LastStatus == http.StatusOK
	})
	if st := coderOnA(); st != "disabled" {
		t.Fatalf("A applied the replayed older approval: the coder is %q on A", st)
	}

	// Every call between the instances is in the audit logs, previews at
	// most 500 characters and no token in them.
	for _, in := range []*instance{hub, b} {
		rows := auditRows(t, in, "limit=100")
		if len(rows) == 0 {
			t.Fatalf("%s: no audit rows", in.name)
		}
		for _, r := range rows {
			m := r.(map[string]any)
			p := fmt.Sprint(m["payload"])
			if len([]rune(p)) > 500 || strings.Contains(p, "sbp_") && !strings.Contains(p, "sbp_…") {
				t.Fatalf("%s audit row: %v", in.name, m)
			}
		}
	}
}

// assertFIFO checks that executions run one at a time finished in the order
// they queued in: by queuedAt, then queue position, then id, as the hub's
// queue takes them (an execution that ran at once has no queuedAt and comes
// first).
func assertFIFO(t *testing.T, listed []any) {
	t.Helper()
	type run struct {
		id               string
		queued, finished time.Time
		pos              float64
	}
	at := func(e map[string]any, field string) time.Time {
		v, _ := e[field].(string)
		if v == "" {
			return time.Time{}
		}
		ts, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			t.Fatalf("%s %q: %v", field, v, err)
		}
		return ts
	}
	runs := make([]run, 0, len(listed))
	for _, l := range listed {
		e := l.(map[string]any)["execution"].(map[string]any)
		pos, _ := e["queuePosition"].(float64)
		runs = append(runs, run{id: e["executionId"].(string), queued: at(e, "queuedAt"), finished: at(e, "finishedAt"), pos: pos})
	}
	slices.SortFunc(runs, func(a, b run) int {
		if c := a.queued.Compare(b.queued); c != 0 {
			return c
		}
		if a.pos != b.pos {
			return int(a.pos - b.pos)
		}
		return strings.Compare(a.id, b.id)
	})
	for i := 1; i < len(runs); i++ {
		if runs[i].finished.IsZero() || runs[i].finished.Before(runs[i-1].finished) {
			t.Fatalf("not FIFO: %s (queued %v) finished %v, before %s (queued %v) finished %v", runs[i].id,
				runs[i].queued, runs[i].finished, runs[i-1].id, runs[i-1].queued, runs[i-1].finished)
		}
	}
}

// replayDelivery puts back in in's outbox, due now, the one delivered
// federation webhook whose payload holds every part, as if it had never
// been sent, and answers its id.
func replayDelivery(t *testing.T, in *instance, parts ...string) string {
	t.Helper()
	ctx := context.Background()
	d := openDB(t, in)
	defer d.Close()
	q := d.WebhookDelivery.Query().Where(webhookdelivery.KindEQ(webhookdelivery.KindFederation),
		webhookdelivery.StatusEQ(webhookdelivery.StatusDelivered))
	for _, p := range parts {
		q = q.Where(webhookdelivery.PayloadContains(p))
	}
	// The peer may have applied the move before this instance has recorded
	// its answer: wait for the row to show delivered.
	row, err := q.Only(ctx)
	for deadline := time.Now().Add(60 * time.Second); ent.IsNotFound(err) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		row, err = q.Clone().Only(ctx)
	}
	if err != nil {
		t.Fatalf("the delivery to replay (%v): %v", parts, err)
	}
	err = d.WebhookDelivery.UpdateOne(row).SetStatus(webhookdelivery.StatusPending).
		SetNextAttemptAt(row.CreatedAt).ClearDeliveredAt().ClearLastStatus().Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return row.ID
}

// deliveryOn reads one outbox row of in.
func deliveryOn(t *testing.T, in *instance, id string) *ent.WebhookDelivery {
	t.Helper()
	d := openDB(t, in)
	defer d.Close()
	row, err := d.WebhookDelivery.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// openDB opens in's database beside its process; the test's own changes
// are stamped by the wall clock.
func openDB(t *testing.T, in *instance) *db.DB {
	t.Helper()
	d, err := db.OpenMigrated(context.Background(), in.dsn)
	if err != nil {
		t.Fatal(err)
	}
	d.SetClock(time.Now)
	return d
}
