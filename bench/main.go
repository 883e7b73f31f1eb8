// Command bench is Switchboard's load benchmark (issue 3, item 8).
//
//	go run ./bench            # from the module root; about 75 s on 2 cores
//
// It builds the real server, seeds 10,000 queue items and, in interleaved
// rounds, charges each variant the CPU time its server process reports in
// /proc/PID/stat (utime+stime) per request:
//
//	(a) baseline  a subprocess writing the REST page's exact bytes from memory
//	(b) raw       a subprocess answering the same page with database/sql +
//	              encoding/json: the server's statements (key lookup, the
//	              rate limit's count, the total's counters, page query)
//	(b0)          (b) without the rate limit's count
//	(c) REST      GET /api/v2/queue?limit=50 on the real server
//	(d) Connect   POST /switchboard.v1.QueueService/ListQueueItems {"limit":50}
//	(e) create    POST /api/v2/queue: the create transaction with its bridge
//	              (card, checklist row) and activity side effects
//	(e-c)         the same create over Connect JSON (CreateQueueItem)
//	(f) raw create the same statements with database/sql alone, a transaction
//	              each (the yardstick create is reported against)
//	(f-lk)        (f) with the server's two per-account locks (PostgreSQL)
//
// With -db postgres://… everything runs on a fresh schema of that database.
//
// (c) and (d) run with and without "Accept-Encoding: gzip". Each figure is
// printed as a ratio to (a) and (b), with p50/p99 latency measured open-loop
// at half the closed-loop capacity. The summary prints each of issue 34's
// targets beside its ratio, and the command exits 1 when one is missed. See
// README.md and RESULTS.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

type config struct {
	items         int
	rounds        int
	batch         time.Duration
	workers       int
	latency       time.Duration
	createFor     time.Duration
	createWorkers int
	txWorkers     int
	maxBatchReq   int64
	db            string // "" for a fresh SQLite file; postgres://… for a fresh schema there
}

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "tx-creator" || os.Args[1] == "sse" || os.Args[1] == "sse-clients" || os.Args[1] == "dispatch" ||
		os.Args[1] == "relay" || os.Args[1] == "hire" || os.Args[1] == "cortex" || os.Args[1] == "replicas" || os.Args[1] == "start") {
		sub := map[string]func([]string) error{"tx-creator": txCreatorMain, "sse": sseMain, "sse-clients": sseClientsMain,
			"dispatch": dispatchMain, "relay": relayMain, "hire": hireMain, "cortex": cortexMain, "replicas": replicasMain, "start": startMain}
		if err := sub[os.Args[1]](os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && (os.Args[1] == "baseline-server" || os.Args[1] == "raw-server") {
		if err := childMain(os.Args[1], os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", os.Args[1]+":", err)
			os.Exit(1)
		}
		return
	}
	var cfg config
	flag.IntVar(&cfg.items, "items", 10000, "queue items to seed")
	flag.IntVar(&cfg.rounds, "rounds", 5, "interleaved measurement rounds")
	flag.DurationVar(&cfg.batch, "batch", time.Second, "length of one variant's batch in a round")
	flag.IntVar(&cfg.workers, "workers", 4, "concurrent client workers per batch")
	flag.DurationVar(&cfg.latency, "latency", 3*time.Second, "open-loop run at half capacity, per variant")
	flag.DurationVar(&cfg.createFor, "create", 10*time.Second, "closed-loop create-item run")
	flag.IntVar(&cfg.createWorkers, "create-workers", 4, "concurrent creators")
	flag.IntVar(&cfg.txWorkers, "tx-workers", 16, "concurrent creators of the in-process transaction run")
	flag.Int64Var(&cfg.maxBatchReq, "max-batch-requests", 200000, "cap on requests in one batch")
	flag.StringVar(&cfg.db, "db", "", "PostgreSQL URL (postgres://…) to measure on a fresh schema there; a fresh SQLite file when empty")
	flag.Parse()
	if cfg.items < 50 || cfg.rounds < 1 || cfg.workers < 1 || cfg.createWorkers < 1 || cfg.txWorkers < 1 ||
		cfg.batch <= 0 || cfg.latency <= 0 || cfg.createFor <= 0 || cfg.maxBatchReq < 1 {
		fmt.Fprintln(os.Stderr, "bench: flags out of range")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, cfg)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// run owns every resource: the temp dir and the subprocesses go on any return
// (a panic included); Pdeathsig takes the subprocesses if this process dies.
func run(ctx context.Context, cfg config) (err error) {
	began := time.Now()
	// A hard ceiling well past the expected run, so nothing can hang forever.
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "switchboard-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ps := &procs{}
	defer ps.killAll()

	env, err := prepare(ctx, ps, dir, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: ready after %s; measuring\n", time.Since(began).Round(time.Second))
	res, err := measure(ctx, env, cfg)
	if err != nil {
		return err
	}
	res.elapsed = time.Since(began)
	if missed := report(os.Stdout, cfg, env, res); missed > 0 {
		return fmt.Errorf("%d target(s) not met (the summary above says which)", missed)
	}
	return nil
}

// env is everything set up for the measurements.
type env struct {
	server, baseline, raw *proc
	key, userID           string
	dsn                   string // what the server, the seed and the children open
	dbName                string // "SQLite" or "PostgreSQL", for the report
	lists                 []*target
	creates               []*target // (e) REST, (e-c) Connect
	probes                map[string]probeInfo
	identical             bool // raw bytes equal the REST bytes
}

func prepare(ctx context.Context, ps *procs, dir string, cfg config) (*env, error) {
	t0 := time.Now()
	bin, err := buildServer(ctx, dir)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "bench: built server in %s\n", time.Since(t0).Round(100*time.Millisecond))
	e := &env{dsn: "sqlite:" + filepath.Join(dir, "bench.db"), dbName: "SQLite"}
	if cfg.db != "" {
		if e.dsn, err = freshSchema(ctx, ps, cfg.db); err != nil {
			return nil, err
		}
		e.dbName = "PostgreSQL"
	}
	if e.server, err = startServer(ctx, ps, bin, e.dsn); err != nil {
		return nil, err
	}
	key, userID, err := account(ctx, e.server.url)
	if err != nil {
		return nil, err
	}
	e.key, e.userID = key, userID
	t0 = time.Now()
	if err := seed(ctx, e.dsn, userID, cfg.items); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "bench: seeded %d items in %s\n", cfg.items, time.Since(t0).Round(100*time.Millisecond))
	c := newClient(cfg.workers)
	restBody, err := fetch(ctx, c, restTarget(e.server, key, false))
	if err != nil {
		return nil, err
	}
	bodyFile := filepath.Join(dir, "page.json")
	if err := os.WriteFile(bodyFile, restBody, 0o600); err != nil {
		return nil, err
	}
	if e.baseline, err = ps.startChild("baseline-server", "-body", bodyFile); err != nil {
		return nil, err
	}
	if e.raw, err = ps.startChild("raw-server", "-db", e.dsn); err != nil {
		return nil, err
	}
	e.lists = listTargets(e, key)
	session, err := mcpSession(ctx, e.server.url, key)
	if err != nil {
		return nil, err
	}
	e.lists = append(e.lists, mcpTargets(e.server, key, session)...)
	e.creates = []*target{createTarget(e.server, key), connectCreateTarget(e.server, key)}
	if err := verify(ctx, c, e, restBody); err != nil {
		return nil, err
	}
	// The protocol reads join the rounds after the list's own checks.
	protocols, err := protocolTargets(ctx, e)
	if err != nil {
		return nil, err
	}
	if err := verifyProtocols(ctx, c, protocols); err != nil {
		return nil, err
	}
	for _, t := range protocols {
		_, info, err := probe(ctx, c, t)
		if err != nil {
			return nil, err
		}
		e.probes[t.key] = info
	}
	e.lists = append(e.lists, protocols...)
	return e, nil
}
