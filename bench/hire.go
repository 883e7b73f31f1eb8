package main

// The hire benchmark (issue 29):
//
//	go run ./bench hire [-hire 3s] [-rounds 3] [-workers 4]
//
// The relay benchmark's pair (A and B, each the real binary on its own
// SQLite file, A's owner connected to users of B) and, in interleaved
// rounds, closed loop with -workers: (h) hire_provider on A by connection
// (POST /api/economy/contracts: the engagement project, the contract, the
// hold on A's ledger, and the offer relayed to B, whose answer comes once
// B has stored its contract and item), (o) hire_provider on A of a user of
// A (the offer an item in that user's queue), against (l) a local queue
// create on A with the same key: A's CPU per operation, B's, throughput
// and response times.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"time"
)

type hireConfig struct {
	interleaved
	workers int
	db      string // "" for SQLite files; postgres://… for a fresh schema each there
}

func hireMain(args []string) error {
	fs := flag.NewFlagSet("hire", flag.ContinueOnError)
	var cfg hireConfig
	cfg.flags(fs, "hire")
	fs.IntVar(&cfg.workers, "workers", 4, "concurrent clients (closed loop), the same for every variant")
	fs.StringVar(&cfg.db, "db", "", "PostgreSQL URL (postgres://…): each instance on a fresh schema there; SQLite files when empty")
	if err := cfg.parse(fs, args, &cfg.workers); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	return runHire(ctx, cfg, os.Stdout)
}

func runHire(ctx context.Context, cfg hireConfig, w io.Writer) error {
	began := time.Now()
	sc, err := newScratch(ctx, "hire")
	if err != nil {
		return err
	}
	defer sc.done()
	p, err := startRelayPairIn(ctx, sc.bin, instanceStore{ps: sc.ps, dir: sc.dir, pg: cfg.db}, cfg.workers)
	if err != nil {
		return err
	}
	defer p.close()
	var k struct{ APIKey string }
	if err := p.owner.post(ctx, "/api/v2/keys", map[string]any{"label": "hire", "scopes": []string{}}, http.StatusCreated, &k); err != nil {
		return err
	}
	// The local provider: a second account of A, whose id the signup answers.
	var me struct{ User struct{ ID string } }
	if err := postJSON(ctx, p.c, p.a.url+"/api/signup", map[string]string{"Origin": p.a.url}, map[string]any{"username": "provider",
		"email": "provider@example.com", "password": benchPassword, "name": "Provider"}, http.StatusCreated, &me); err != nil {
		return err
	}
	if me.User.ID == "" {
		return fmt.Errorf("the provider's signup answered no user id")
	}
	auth := headers("Authorization", "Bearer "+k.APIKey, "Content-Type", "application/json")
	remote := &target{key: "h", label: "(h) hire_provider by connection on A, offer stored on B", proc: p.a, method: http.MethodPost,
		path: "/api/economy/contracts", want: http.StatusCreated, header: auth,
		bodyFn: func(n int64) []byte {
			return fmt.Appendf(nil, `{"provider":{"connectionId":%q},"taskType":"research","title":"bench hire %d","scope":["one"],"priceCents":1000}`,
				p.conns[(n-p.connBase-1)/relayOpenMost], n)
		}}
	local := &target{key: "o", label: "(o) hire_provider of a user of A", proc: p.a, method: http.MethodPost,
		path: "/api/economy/contracts", want: http.StatusCreated, header: auth,
		bodyFn: func(n int64) []byte {
			return fmt.Appendf(nil, `{"provider":{"userId":%q},"taskType":"research","title":"bench hire %d","scope":["one"],"priceCents":1000}`,
				me.User.ID, n)
		}}
	fmt.Fprintf(os.Stderr, "bench hire: ready after %s; measuring\n", time.Since(began).Round(time.Second))
	remoteBatch := func(d time.Duration) (relayTally, error) {
		p.relay = remote
		return p.relayBatch(ctx, d, cfg.workers)
	}
	localHire := func(d time.Duration) (relayTally, error) {
		return p.batch(ctx, local, p.aDB, d, cfg.workers, 1<<40)
	}
	create := func(d time.Duration) (relayTally, error) { return p.localBatch(ctx, d, cfg.workers) }
	variants := []func(time.Duration) (relayTally, error){remoteBatch, localHire, create}
	for _, v := range variants { // one warm-up batch of each, untimed
		if _, err := v(cfg.each / 3); err != nil {
			return err
		}
	}
	tallies := make([]relayTally, len(variants))
	for round := range cfg.rounds {
		// The order turns every round, so drift hits every variant alike.
		for i := range variants {
			j := (i + round) % len(variants)
			if err := tallies[j].run(variants[j](cfg.each)); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "bench hire: round %d/%d done\n", round+1, cfg.rounds)
	}
	hireReport(w, cfg, []*target{remote, local, p.local}, tallies, time.Since(began))
	return nil
}

func hireReport(w io.Writer, cfg hireConfig, ts []*target, tallies []relayTally, elapsed time.Duration) {
	fmt.Fprintf(w, "#### Hire run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	db, store := "", instanceStore{pg: cfg.db}
	if cfg.db != "" {
		db = " -db " + cfg.db
	}
	fmt.Fprintf(w, "- command: `go run ./bench hire -hire %s -rounds %d -workers %d%s` (%s wall clock, build included)\n",
		cfg.each, cfg.rounds, cfg.workers, db, elapsed.Round(time.Second))
	fmt.Fprintf(w, "- machine: %d cores (nproc), %s, %s, A and B in separate processes\n", runtime.NumCPU(), cpuModel(), store.kind())
	fmt.Fprintf(w, "- closed loop, %d workers, one key of A's owner for every variant; each answer checked to have left one new queue item "+
		"(on B for (h), on A otherwise)\n", cfg.workers)
	fmt.Fprintf(w, "- CPU = utime+stime of each process from /proc/PID/stat (tick %s), over all rounds\n\n", clockTick)
	fmt.Fprintln(w, "| variant | ops | per s | p50 ms | p99 ms | A CPU µs/op | B CPU µs/op |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|")
	for i, t := range ts {
		p50, p99 := p50p99(tallies[i].lat)
		fmt.Fprintf(w, "| %s | %d | %.0f | %.2f | %.2f | %.0f | %.0f |\n", t.label, tallies[i].ok, tallies[i].rps(), ms(p50), ms(p99),
			us(tallies[i].cpuPerReq()), us(tallies[i].bPerOp()))
	}
	ratio := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	base := float64(tallies[2].cpuPerReq())
	fmt.Fprintln(w, "\nover (l), A's CPU per op:")
	fmt.Fprintf(w, "- (h) hire by connection: %.2f×\n", ratio(float64(tallies[0].cpuPerReq()), base))
	fmt.Fprintf(w, "- (o) hire of a local user: %.2f×\n", ratio(float64(tallies[1].cpuPerReq()), base))
	lp50, _ := p50p99(tallies[2].lat)
	hp50, _ := p50p99(tallies[0].lat)
	fmt.Fprintf(w, "- latency p50 of (h): %.2f×; throughput of (h): %.2f×\n", ratio(float64(hp50), float64(lp50)),
		ratio(tallies[0].rps(), tallies[2].rps()))
}
