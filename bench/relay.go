package main

// The relay benchmark (issue 15):
//
//	go run ./bench relay [-relay 3s] [-rounds 3] [-workers 4] [-db postgres://…]
//
// Instances A and B, each the real binary in its own process on its own
// SQLite file (or, with -db, its own schema of that PostgreSQL database), the
// operator network on, A's owner connected to users of B.
// In interleaved rounds, closed loop with -workers, it measures (r) a task
// relay sent on A (POST /api/federation/relays, delivered synchronously:
// the answer comes once B has stored the item) against (l) a local queue
// create on A (POST /api/v2/queue) with the same key: throughput, p50/p99
// of the response times, and the CPU time A and B report in /proc/PID/stat
// per operation.

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"time"
)

// relayOpenMost is maxOpenRelays at its most (network.proto): a connection
// takes that many relays before B answers 429, so each relay batch runs on
// connections made fresh for it, as many as it needs.
const relayOpenMost = 1000

type relayConfig struct {
	interleaved
	workers int
	db      string // "" for SQLite files; postgres://… for a fresh schema each there
}

func relayMain(args []string) error {
	fs := flag.NewFlagSet("relay", flag.ContinueOnError)
	var cfg relayConfig
	cfg.flags(fs, "relay")
	fs.IntVar(&cfg.workers, "workers", 4, "concurrent senders (closed loop), the same for both variants")
	fs.StringVar(&cfg.db, "db", "", "PostgreSQL URL (postgres://…): each instance on a fresh schema there; SQLite files when empty")
	if err := cfg.parse(fs, args, &cfg.workers); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	return runRelay(ctx, cfg, os.Stdout)
}

// runRelay owns the temp dir and the instances; the report goes to w.
func runRelay(ctx context.Context, cfg relayConfig, w io.Writer) error {
	began := time.Now()
	sc, err := newScratch(ctx, "relay")
	if err != nil {
		return err
	}
	defer sc.done()
	store := instanceStore{ps: sc.ps, dir: sc.dir, pg: cfg.db}
	p, err := startRelayPairIn(ctx, sc.bin, store, cfg.workers)
	if err != nil {
		return err
	}
	defer p.close()
	fmt.Fprintf(os.Stderr, "bench relay: ready after %s; measuring\n", time.Since(began).Round(time.Second))
	// One warm-up batch of each, untimed.
	if _, err := p.relayBatch(ctx, cfg.each/3, cfg.workers); err != nil {
		return err
	}
	if _, err := p.localBatch(ctx, cfg.each/3, cfg.workers); err != nil {
		return err
	}
	var relay, local relayTally
	for round := range cfg.rounds {
		// The order turns every round, so drift hits both variants alike.
		for i := range 2 {
			var err error
			if (i+round)%2 == 0 {
				err = relay.run(p.relayBatch(ctx, cfg.each, cfg.workers))
			} else {
				err = local.run(p.localBatch(ctx, cfg.each, cfg.workers))
			}
			if err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "bench relay: round %d/%d done\n", round+1, cfg.rounds)
	}
	relayReport(w, cfg, store, p, relay, local, time.Since(began))
	// No target is set for (r) over (l) yet: the ratios are reported, not held.
	return holdGoals(w, "relay", nil)
}

// relayPair is A and B, A's sender and the two variants.
type relayPair struct {
	a, b     *proc
	aDB, bDB *sql.DB // each instance's database, read by this process to count what landed
	owner    *session
	peers    []string // B's users, each auto-accepting A with maxOpenRelays at its most
	c        *http.Client
	relay    *target
	local    *target
	// The current relay batch's connections: relay n of the batch goes to
	// conns[n/relayOpenMost]. Set before the batch's workers start.
	conns    []string
	connBase int64   // relay.seq when the batch began
	rate     float64 // relays/s of the last relay batch, to size the next one's connections
	mostOpen int64   // the most relays one connection took in a batch: B's open count reads them
}

// startRelayPairIn starts A and B, each on a fresh database from store.
func startRelayPairIn(ctx context.Context, bin string, store instanceStore, workers int) (*relayPair, error) {
	p := &relayPair{c: newClient(workers), rate: 2000} // a generous guess until a batch has run
	network := []string{"--federation", "--federation-allow-private"}
	aDSN, aDir, err := store.fresh(ctx, "a")
	if err != nil {
		return nil, err
	}
	bDSN, bDir, err := store.fresh(ctx, "b")
	if err != nil {
		return nil, err
	}
	if p.a, err = startInstance(ctx, store.ps, bin, aDir, aDSN, network...); err != nil {
		return nil, err
	}
	// A on B's allowlist: B's users accept A's requests at once.
	if p.b, err = startInstance(ctx, store.ps, bin, bDir, bDSN, append([]string{"--federation-allowlist", p.a.url}, network...)...); err != nil {
		return nil, err
	}
	if p.owner, err = signUp(ctx, p.a.url, "owner", true); err != nil {
		return nil, err
	}
	var k struct{ APIKey string }
	if err := p.owner.post(ctx, "/api/v2/keys", map[string]any{"label": "bench", "scopes": []string{}}, http.StatusCreated, &k); err != nil {
		return nil, err
	}
	auth := headers("Authorization", "Bearer "+k.APIKey, "Content-Type", "application/json")
	p.relay = &target{key: "r", label: "(r) relay: POST /api/federation/relays on A, item on B", proc: p.a,
		method: http.MethodPost, path: "/api/federation/relays", want: http.StatusOK, header: auth,
		bodyFn: func(n int64) []byte {
			return fmt.Appendf(nil, `{"connectionId":%q,"type":"request","intent":"assign_task","subject":"bench relay %d","priority":"normal"}`,
				p.conns[(n-p.connBase-1)/relayOpenMost], n)
		}}
	p.local = createTarget(p.a, k.APIKey)
	p.local.key, p.local.label = "l", "(l) local: POST /api/v2/queue on A"
	if p.aDB, err = openLanded(aDSN); err != nil {
		return nil, err
	}
	if p.bDB, err = openLanded(bDSN); err != nil {
		return nil, err
	}
	if err := p.connect(ctx, 1); err != nil {
		return nil, err
	}
	return p, p.probe(ctx, k.APIKey)
}

func (p *relayPair) close() {
	for _, d := range []*sql.DB{p.aDB, p.bDB} {
		if d != nil {
			_ = d.Close()
		}
	}
}

// connect removes the connections of the last relay batch (B is told, and
// both sides delete them) and makes n fresh ones, to n users of B.
func (p *relayPair) connect(ctx context.Context, n int) error {
	for _, id := range p.conns {
		var out struct{ PeerTold bool }
		if err := p.owner.do(ctx, http.MethodDelete, "/api/federation/connections/"+id, nil, http.StatusOK, &out); err != nil {
			return err
		}
		if !out.PeerTold {
			return fmt.Errorf("connection %s: B was not told of its removal", id)
		}
	}
	p.conns = p.conns[:0]
	for len(p.peers) < n {
		name := fmt.Sprintf("peer%d", len(p.peers))
		s, err := signUp(ctx, p.b.url, name, len(p.peers) == 0)
		if err != nil {
			return err
		}
		if err := s.do(ctx, http.MethodPut, "/api/federation/preferences",
			map[string]any{"autoAccept": true, "maxOpenRelays": relayOpenMost}, http.StatusOK, nil); err != nil {
			return err
		}
		p.peers = append(p.peers, name+"@example.com")
	}
	for _, email := range p.peers[:n] {
		var out struct{ Connection struct{ ID, Status string } }
		if err := p.owner.post(ctx, "/api/federation/connect", map[string]any{"peerInstanceUrl": p.b.url, "peerUserEmail": email},
			http.StatusCreated, &out); err != nil {
			return err
		}
		if out.Connection.Status != "active" {
			return fmt.Errorf("connection to %s is %q, not active at once", email, out.Connection.Status)
		}
		p.conns = append(p.conns, out.Connection.ID)
	}
	return nil
}

// probe sends one relay and checks its answer: delivered, a task with its
// card on B, and the item in B's database by the time the answer came.
func (p *relayPair) probe(ctx context.Context, key string) error {
	before, err := count(ctx, p.bDB, "queue_items")
	if err != nil {
		return err
	}
	var out struct {
		Relay  struct{ State string }
		Answer struct {
			Task   bool
			CardID string
		}
	}
	if err := postJSON(ctx, p.c, p.a.url+"/api/federation/relays", map[string]string{"Authorization": "Bearer " + key},
		map[string]any{"connectionId": p.conns[0], "type": "request", "intent": "assign_task", "subject": "bench probe", "priority": "normal"},
		http.StatusOK, &out); err != nil {
		return err
	}
	if out.Relay.State != "delivered" || !out.Answer.Task || out.Answer.CardID == "" {
		return fmt.Errorf("the probe relay's answer: %+v", out)
	}
	var title string
	if err := p.bDB.QueryRowContext(ctx, "SELECT title FROM queue_items WHERE card_id = $1 AND status = 'pending_confirmation'",
		out.Answer.CardID).Scan(&title); err != nil {
		return fmt.Errorf("the probe relay's item on B: %w", err)
	}
	after, err := count(ctx, p.bDB, "queue_items")
	if err == nil && (title != "bench probe" || after != before+1) {
		err = fmt.Errorf("after the probe, B's queue has %d items (was %d), title %q", after, before, title)
	}
	return err
}

func count(ctx context.Context, d *sql.DB, table string) (int64, error) {
	var n int64
	err := d.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table).Scan(&n)
	return n, err
}

// relayTally is a variant's batches: A's figures (CPU in tally.cpu) and B's CPU.
type relayTally struct {
	tally
	bCPU time.Duration
}

// run adds a batch, or answers its error.
func (t *relayTally) run(b relayTally, err error) error {
	if err == nil {
		t.tally.add(b.tally)
		t.bCPU += b.bCPU
	}
	return err
}

// bPerOp is B's CPU per operation.
func (t *relayTally) bPerOp() time.Duration { return t.bCPU / time.Duration(max(t.ok, 1)) }

// relayBatch sends relays for d on connections made fresh for the batch,
// enough for 1.5× the last batch's rate (a batch that reaches their
// capacity ends early; its figures stay per relay).
func (p *relayPair) relayBatch(ctx context.Context, d time.Duration, workers int) (relayTally, error) {
	n := max(1, int(p.rate*1.5*d.Seconds()/relayOpenMost+1))
	if err := p.connect(ctx, n); err != nil {
		return relayTally{}, err
	}
	p.connBase = p.relay.seq.Load()
	time.Sleep(settle) // the connections' own work is not the batch's
	t, err := p.batch(ctx, p.relay, p.bDB, d, workers, int64(n*relayOpenMost))
	if t.wall > 0 {
		p.rate = float64(t.ok) / t.wall.Seconds()
	}
	p.mostOpen = max(p.mostOpen, min(t.ok, relayOpenMost))
	return t, err
}

func (p *relayPair) localBatch(ctx context.Context, d time.Duration, workers int) (relayTally, error) {
	return p.batch(ctx, p.local, p.aDB, d, workers, 1<<40)
}

// batch runs t closed loop and charges it A's and B's CPU; every 2xx answer
// must have left exactly one new queue item in landed (B's database for a
// relay, A's for a local create).
func (p *relayPair) batch(ctx context.Context, t *target, landed *sql.DB, d time.Duration, workers int, most int64) (relayTally, error) {
	items0, err := count(ctx, landed, "queue_items")
	if err != nil {
		return relayTally{}, err
	}
	b0, err := p.b.cpu()
	if err != nil {
		return relayTally{}, err
	}
	tl, err := closedLoop(ctx, t, p.c, workers, d, most)
	if err != nil {
		return relayTally{}, err
	}
	b1, err := p.b.cpu()
	if err != nil {
		return relayTally{}, err
	}
	if tl.errs > 0 {
		return relayTally{}, fmt.Errorf("%s: %d failed requests, first: %w", t.label, tl.errs, tl.firstErr)
	}
	items1, err := count(ctx, landed, "queue_items")
	if err != nil {
		return relayTally{}, err
	}
	if items1-items0 != tl.ok {
		return relayTally{}, fmt.Errorf("%s: %d answers, %d new queue items", t.label, tl.ok, items1-items0)
	}
	return relayTally{tally: tl, bCPU: b1 - b0}, nil
}

func relayReport(w io.Writer, cfg relayConfig, store instanceStore, p *relayPair, relay, local relayTally, elapsed time.Duration) {
	fmt.Fprintf(w, "#### Relay run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	db := ""
	if cfg.db != "" {
		db = " -db " + cfg.db
	}
	fmt.Fprintf(w, "- command: `go run ./bench relay -relay %s -rounds %d -workers %d%s` (%s wall clock, build included)\n",
		cfg.each, cfg.rounds, cfg.workers, db, elapsed.Round(time.Second))
	fmt.Fprintf(w, "- machine: %d cores (nproc), %s, %s, A and B in separate processes\n", runtime.NumCPU(), cpuModel(), store.kind())
	fmt.Fprintf(w, "- closed loop, %d workers, one key of A's owner for both variants; latency = each request's response time\n", cfg.workers)
	fmt.Fprintf(w, "- a relay's answer comes after B committed the item (checked: B's database holds one new item per answer), "+
		"so its response time is send → item on B plus A's write of its own copy\n")
	fmt.Fprintf(w, "- B: maxOpenRelays %d, its most; each relay batch on connections made for it, %d relays each at most; "+
		"the most one connection took: %d (B's open-relay count per relay reads up to that many rows)\n",
		relayOpenMost, relayOpenMost, p.mostOpen)
	fmt.Fprintf(w, "- CPU = utime+stime of each process from /proc/PID/stat (tick %s), over all rounds\n\n", clockTick)
	fmt.Fprintln(w, "| variant | ops | per s | p50 ms | p99 ms | A CPU µs/op | B CPU µs/op |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|")
	for _, r := range []struct {
		label string
		t     relayTally
	}{{p.relay.label, relay}, {p.local.label, local}} {
		p50, p99 := p50p99(r.t.lat)
		fmt.Fprintf(w, "| %s | %d | %.0f | %.2f | %.2f | %.0f | %.0f |\n", r.label, r.t.ok, r.t.rps(), ms(p50), ms(p99),
			us(r.t.cpuPerReq()), us(r.t.bPerOp()))
	}
	rp50, rp99 := p50p99(relay.lat)
	lp50, lp99 := p50p99(local.lat)
	ratio := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	aR, aL := float64(relay.cpuPerReq()), float64(local.cpuPerReq())
	fmt.Fprintln(w, "\n(r) over (l):")
	fmt.Fprintf(w, "- A's CPU per op: %.2f×\n", ratio(aR, aL))
	fmt.Fprintf(w, "- A's and B's CPU per relay over A's per local create: %.2f×\n", ratio(aR+float64(relay.bPerOp()), aL))
	fmt.Fprintf(w, "- latency p50 %.2f×, p99 %.2f×\n", ratio(float64(rp50), float64(lp50)), ratio(float64(rp99), float64(lp99)))
	fmt.Fprintf(w, "- throughput %.2f×\n", ratio(relay.rps(), local.rps()))
}
