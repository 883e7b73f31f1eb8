package main

// The replicas benchmark (issue 32, point 5):
//
//	go run ./bench replicas [-db postgres://…] [-batch 3s] [-rounds 3] [-workers 8]
//
// The throughput of 1, 2 and 3 replicas of the real binary on one
// PostgreSQL database behind HAProxy, under one fixed closed-loop mix of
// creates and lists sent through the balancer. HAProxy runs the block that
// README.md ("Running several replicas") gives users, with the server lines
// of the replicas that do not run left out. The figure is the ratio of each
// n's requests per second to one replica's, in the same run, the n
// interleaved in rounds.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	// replicaMost is the largest set measured; the README's block names
	// this many servers.
	replicaMost = 3
	// haproxyMark precedes the README's HAProxy block (the process test
	// runs the same block).
	haproxyMark = "<!-- replicas-check haproxy"
	// createEvery: one request in this many is a create, the rest lists.
	createEvery = 4
	// replicaGrace bounds a replica's drain on SIGTERM before it is killed.
	replicaGrace = 10 * time.Second
)

type replicasConfig struct {
	db       string
	batch    time.Duration
	warmup   time.Duration
	rounds   int
	workers  int
	items    int
	maxConns int
}

func replicasMain(args []string) error {
	fs := flag.NewFlagSet("replicas", flag.ContinueOnError)
	var cfg replicasConfig
	fs.StringVar(&cfg.db, "db", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
		"PostgreSQL URL; the run works in a fresh schema there, dropped when it ends")
	fs.DurationVar(&cfg.batch, "batch", 3*time.Second, "measured length of one n's batch in a round")
	fs.DurationVar(&cfg.warmup, "warmup", time.Second, "untimed load before each batch, on the freshly started replicas")
	fs.IntVar(&cfg.rounds, "rounds", 3, "interleaved rounds of n = 1, 2, 3")
	fs.IntVar(&cfg.workers, "workers", 8, "concurrent clients (closed loop), the same for every n")
	fs.IntVar(&cfg.items, "items", 1000, "queue items seeded before the rounds")
	fs.IntVar(&cfg.maxConns, "db-max-conns", 8, "each replica's --db-max-conns")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.batch <= 0 || cfg.warmup < 0 || cfg.rounds < 1 || cfg.workers < 1 || cfg.items < 0 || cfg.maxConns < 1 {
		return errors.New("flags out of range")
	}
	// An interrupt cancels the run, whose deferred stops then end the
	// balancer and the replicas and drop the schema.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	return runReplicas(ctx, cfg, os.Args[1:], os.Stdout)
}

// replicaTally accumulates one n's measured batches.
type replicaTally struct {
	tally             // ok, errs, wall and latencies of every request; cpu: the replicas'
	creates, lists    int64
	lbCPU, clientCPU  time.Duration
	machineCPU        time.Duration // every process on the machine, from /proc/stat
	leastShare, share float64       // least and most of one replica's part of the replicas' CPU, in a batch
}

func (t *replicaTally) add(b replicaTally) {
	if t.ok+t.errs == 0 {
		t.leastShare, t.share = b.leastShare, b.share
	}
	t.tally.add(b.tally)
	t.creates += b.creates
	t.lists += b.lists
	t.lbCPU += b.lbCPU
	t.clientCPU += b.clientCPU
	t.machineCPU += b.machineCPU
	t.leastShare = min(t.leastShare, b.leastShare)
	t.share = max(t.share, b.share)
}

// cores is d of CPU over the measured wall clock: the cores kept busy.
func (t *replicaTally) cores(d time.Duration) float64 { return d.Seconds() / t.wall.Seconds() }

func runReplicas(ctx context.Context, cfg replicasConfig, args []string, w io.Writer) error {
	began := time.Now()
	load0 := loadAverage()
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		if haproxy, err = exec.LookPath("/usr/sbin/haproxy"); err != nil {
			return errors.New("haproxy is not installed (Debian's package haproxy)")
		}
	}
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return err
	}
	sc, err := newScratch(ctx, "replicas")
	if err != nil {
		return err
	}
	defer sc.done()
	dsn, err := freshSchema(ctx, sc.ps, cfg.db)
	if err != nil {
		return err
	}
	migrate := exec.CommandContext(ctx, sc.bin, "migrate", "--db", dsn)
	migrate.Dir = sc.dir
	if out, err := migrate.CombinedOutput(); err != nil {
		return fmt.Errorf("switchboard migrate: %w: %s", err, out)
	}
	rs := &replicaSets{sc: sc, haproxy: haproxy, readme: string(readme), dsn: dsn, cfg: cfg}
	key, err := rs.prepare(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench replicas: ready after %s; measuring\n", time.Since(began).Round(time.Second))
	mix := newReplicaMix(key, cfg.workers)
	tallies := make([]replicaTally, replicaMost)
	for round := range cfg.rounds {
		// The order turns every round, so drift hits every n alike.
		for i := range replicaMost {
			n := (i+round)%replicaMost + 1
			b, err := rs.batch(ctx, n, mix)
			if err != nil {
				return fmt.Errorf("%d replicas: %w", n, err)
			}
			tallies[n-1].add(b)
		}
		fmt.Fprintf(os.Stderr, "bench replicas: round %d/%d done\n", round+1, cfg.rounds)
	}
	for n, t := range tallies {
		if t.errs > 0 {
			return fmt.Errorf("%d replicas: %d failed requests, first: %w", n+1, t.errs, t.firstErr)
		}
	}
	replicasReport(w, cfg, args, replicasFacts{dbHost: dbHost(cfg.db), haproxy: haproxyVersion(haproxy),
		load0: load0, load1: loadAverage(), elapsed: time.Since(began)}, tallies)
	return nil
}

// replicaSets starts sets of replicas behind a balancer on the run's schema.
type replicaSets struct {
	sc      *scratch
	haproxy string
	readme  string
	dsn     string
	cfg     replicasConfig
}

// replicaSet is n replicas and the HAProxy in front of them.
type replicaSet struct {
	ps       *procs
	replicas []*proc
	lb       *proc
}

// prepare makes the owner and an all-scopes key through one replica behind
// the balancer, as a user would, and seeds the queue the lists read.
func (rs *replicaSets) prepare(ctx context.Context) (string, error) {
	set, err := rs.start(ctx, 1)
	if err != nil {
		return "", err
	}
	defer set.stop()
	key, userID, err := account(ctx, set.lb.url)
	if err != nil {
		return "", err
	}
	return key, seed(ctx, rs.dsn, userID, rs.cfg.items)
}

// start runs n replicas, waits until each is ready, then runs HAProxy in
// front of them and waits until it routes to one.
func (rs *replicaSets) start(ctx context.Context, n int) (*replicaSet, error) {
	set := &replicaSet{ps: rs.sc.ps}
	started := false
	defer func() {
		if !started {
			set.stop()
		}
	}()
	env := os.Environ()
	for i := range n {
		addr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(rs.sc.bin, "serve", "--addr", addr, "--db", rs.dsn, "--migrate=false",
			"--timer-lease", "5s", "--db-max-conns", strconv.Itoa(rs.cfg.maxConns), "--shutdown-timeout", "5s",
			"--rate-limit-per-minute", "1000000000", "--auth-rate-limit-per-minute", "1000", "--log-level", "warn")
		// One working directory: the instance key the first start wrote
		// there is every replica's (README, "Running several replicas").
		cmd.Dir = rs.sc.dir
		p, err := startDiscarding(rs.sc.ps, fmt.Sprintf("replica %d", i+1), cmd)
		if err != nil {
			return nil, err
		}
		p.url = "http://" + addr
		set.replicas = append(set.replicas, p)
		env = append(env, fmt.Sprintf("SWITCHBOARD_REPLICA_%d=%s", i+1, addr))
	}
	for _, p := range set.replicas {
		if err := waitOK(ctx, p, "/readyz", 30*time.Second); err != nil {
			return nil, err
		}
	}
	conf, err := haproxyConfig(rs.readme, n)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(rs.sc.dir, fmt.Sprintf("haproxy-%d.cfg", n))
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(rs.haproxy, "-db", "-f", file) // -db: in the foreground, no daemon
	cmd.Env = append(env, "SWITCHBOARD_LB="+addr)
	if set.lb, err = startDiscarding(rs.sc.ps, "haproxy", cmd); err != nil {
		return nil, err
	}
	set.lb.url = "http://" + addr
	if err := waitOK(ctx, set.lb, "/readyz", 20*time.Second); err != nil {
		return nil, err
	}
	started = true
	return set, nil
}

// startDiscarding starts cmd with its stderr on ours and its stdout read
// away, so a chatty process never blocks on a full pipe.
func startDiscarding(ps *procs, name string, cmd *exec.Cmd) (*proc, error) {
	p, stdout, _, err := ps.startCmd(name, os.Stderr, false, cmd)
	if err != nil {
		return nil, err
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return p, nil
}

// stop ends the balancer first, so nothing new reaches a replica, then the
// replicas together, each given time to drain and release its leases.
func (s *replicaSet) stop() {
	if s.lb != nil {
		s.ps.stop(s.lb, 5*time.Second)
	}
	var wg sync.WaitGroup
	for _, p := range s.replicas {
		wg.Go(func() { s.ps.stop(p, replicaGrace) })
	}
	wg.Wait()
}

// haproxyConfig is the README's HAProxy block with the server lines of the
// replicas beyond n left out (HAProxy rejects a server whose address
// variable is unset); everything else is as users are given it.
func haproxyConfig(readme string, n int) (string, error) {
	_, after, ok := strings.Cut(readme, haproxyMark)
	if !ok {
		return "", fmt.Errorf("README.md has no %q", haproxyMark)
	}
	if _, after, ok = strings.Cut(after, "```haproxy\n"); !ok {
		return "", fmt.Errorf("README.md has no haproxy block after %q", haproxyMark)
	}
	block, _, ok := strings.Cut(after, "\n```")
	if !ok {
		return "", errors.New("README.md's haproxy block does not end")
	}
	var out strings.Builder
	servers := 0
	for line := range strings.SplitSeq(block, "\n") {
		if i := strings.Index(line, "${SWITCHBOARD_REPLICA_"); i >= 0 {
			k, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(line[i+len("${SWITCHBOARD_REPLICA_"):], `"`), "}"))
			if err != nil {
				return "", fmt.Errorf("README.md's haproxy block: unexpected server line %q", line)
			}
			if k > n {
				continue
			}
			servers++
		}
		out.WriteString(line + "\n")
	}
	if servers != n {
		return "", fmt.Errorf("README.md's haproxy block names %d of the %d replicas", servers, n)
	}
	return out.String(), nil
}

// replicaMix is the load: its workers share one sequence, and request k of
// a batch is a create when k is a multiple of createEvery, a list
// otherwise, so every n gets the same mix.
type replicaMix struct {
	list, create *target
	c            *http.Client
	workers      int
}

func newReplicaMix(key string, workers int) *replicaMix {
	auth := headers("Authorization", "Bearer "+key)
	return &replicaMix{
		list: &target{key: "list", method: http.MethodGet, path: "/api/v2/queue?limit=50", header: auth, want: http.StatusOK},
		create: &target{key: "create", method: http.MethodPost, path: "/api/v2/queue", want: http.StatusCreated,
			header: headers("Authorization", "Bearer "+key, "Content-Type", "application/json"),
			bodyFn: func(n int64) []byte { return fmt.Appendf(nil, `{"title":"replicas bench %d"}`, n) }},
		// newClient's per-request time-out (10 s) holds; its connection cap
		// is above the workers, so each keeps its keep-alive connection.
		c:       newClient(workers),
		workers: workers,
	}
}

// run sends the mix through lb, closed loop, for d.
func (m *replicaMix) run(ctx context.Context, lb *proc, d time.Duration) replicaTally {
	m.list.proc, m.create.proc = lb, lb
	var (
		mu  sync.Mutex
		out replicaTally
		seq atomic.Int64
		wg  sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for range m.workers {
		wg.Go(func() {
			var local replicaTally
			for time.Now().Before(deadline) && ctx.Err() == nil {
				t := m.list
				if seq.Add(1)%createEvery == 0 {
					t = m.create
				}
				t0 := time.Now()
				if _, err := t.do(ctx, m.c); err != nil {
					local.errs++
					if local.firstErr == nil {
						local.firstErr = err
					}
					continue
				}
				local.ok++
				local.lat = append(local.lat, time.Since(t0))
				if t == m.create {
					local.creates++
				} else {
					local.lists++
				}
			}
			mu.Lock()
			out.tally.add(local.tally)
			out.creates += local.creates
			out.lists += local.lists
			mu.Unlock()
		})
	}
	wg.Wait()
	out.wall = time.Since(start)
	return out
}

// batch starts n replicas behind HAProxy, warms them up untimed, measures
// one batch with every process's CPU, and stops the set.
func (rs *replicaSets) batch(ctx context.Context, n int, mix *replicaMix) (replicaTally, error) {
	set, err := rs.start(ctx, n)
	if err != nil {
		return replicaTally{}, err
	}
	defer set.stop()
	if rs.cfg.warmup > 0 {
		if w := mix.run(ctx, set.lb, rs.cfg.warmup); w.errs > 0 {
			return replicaTally{}, fmt.Errorf("warm-up: %d failed requests, first: %w", w.errs, w.firstErr)
		}
	}
	before, err := set.cpu()
	if err != nil {
		return replicaTally{}, err
	}
	out := mix.run(ctx, set.lb, rs.cfg.batch)
	if err := ctx.Err(); err != nil {
		return replicaTally{}, err
	}
	time.Sleep(settle)
	after, err := set.cpu()
	if err != nil {
		return replicaTally{}, err
	}
	out.leastShare, out.share = 1, 0
	for i := range set.replicas {
		out.cpu += after.replicas[i] - before.replicas[i]
	}
	for i := range set.replicas {
		part := 1.0
		if out.cpu > 0 {
			part = float64(after.replicas[i]-before.replicas[i]) / float64(out.cpu)
		}
		out.leastShare, out.share = min(out.leastShare, part), max(out.share, part)
	}
	out.lbCPU = after.lb - before.lb
	out.clientCPU = after.client - before.client
	out.machineCPU = after.machine - before.machine
	return out, nil
}

// cpuSample is the CPU time used so far by each process of a set, by this
// process, and by the whole machine.
type cpuSample struct {
	replicas            []time.Duration
	lb, client, machine time.Duration
}

func (s *replicaSet) cpu() (cpuSample, error) {
	var out cpuSample
	var err error
	for _, p := range s.replicas {
		c, cerr := p.cpu()
		if cerr != nil {
			return out, cerr
		}
		out.replicas = append(out.replicas, c)
	}
	if out.lb, err = s.lb.cpu(); err != nil {
		return out, err
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return out, err
	}
	out.client = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	out.machine, err = machineCPU()
	return out, err
}

// machineCPU is the busy time of all cores from /proc/stat's first line
// (everything but idle and iowait): other work on the box shows in it.
func machineCPU() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0, errors.New("unexpected /proc/stat format")
	}
	var busy int64
	for i, v := range f[1:8] { // user nice system idle iowait irq softirq
		if i == 3 || i == 4 {
			continue
		}
		t, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, err
		}
		busy += t
	}
	return time.Duration(busy) * clockTick, nil
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

func haproxyVersion(bin string) string {
	out, err := exec.Command(bin, "-v").Output()
	if f := strings.Fields(string(out)); err == nil && len(f) >= 3 {
		return "HAProxy " + f[2]
	}
	return "HAProxy"
}

// dbHost is the database's host and port, without credentials.
func dbHost(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Host
	}
	return "?"
}

// replicasFacts are the run's circumstances the report states.
type replicasFacts struct {
	dbHost, haproxy, load0, load1 string
	elapsed                       time.Duration
}

func replicasReport(w io.Writer, cfg replicasConfig, args []string, f replicasFacts, tallies []replicaTally) {
	var b bytes.Buffer
	cores := runtime.NumCPU()
	fmt.Fprintf(&b, "#### Replicas run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "- command: `%s` (%s wall clock, build included)\n",
		strings.Join(append([]string{"go run ./bench"}, args...), " "), f.elapsed.Round(time.Second))
	fmt.Fprintf(&b, "- machine: %d cores (nproc), %s, %s %s/%s; load average %s at the start, %s at the end\n",
		cores, cpuModel(), runtime.Version(), runtime.GOOS, runtime.GOARCH, f.load0, f.load1)
	fmt.Fprintf(&b, "- database: PostgreSQL at %s, a fresh schema for the run, migrated once by `switchboard migrate`; "+
		"each replica `serve --migrate=false --timer-lease 5s --db-max-conns %d`, all from one working directory (one instance key)\n",
		f.dbHost, cfg.maxConns)
	fmt.Fprintf(&b, "- balancer: %s with README.md's block (after `%s`), the server lines of the replicas not running left out\n",
		f.haproxy, haproxyMark)
	fmt.Fprintf(&b, "- load: closed loop, %d workers through the balancer, one create (`POST /api/v2/queue`) in %d requests, "+
		"the rest lists (`GET /api/v2/queue?limit=50`; %d items seeded, plus the creates), a 10 s time-out per request; "+
		"%d rounds, each one batch per n in turned order on replicas and HAProxy started anew: %s untimed, then %s measured; "+
		"p50/p99 are the closed loop's, at full load\n",
		cfg.workers, createEvery, cfg.items, cfg.rounds, cfg.warmup, cfg.batch)
	fmt.Fprintf(&b, "- CPU: utime+stime from /proc/PID/stat (tick %s) over the measured batches, in cores kept busy; "+
		"the machine's column is every process's, from /proc/stat, other work included\n", clockTick)
	fmt.Fprintf(&b, "- the load generator (this process), HAProxy, PostgreSQL and the replicas share these %d cores: "+
		"the ratios show how more replicas contend for them, not how replicas scale out onto machines of their own\n\n", cores)
	fmt.Fprintln(&b, "| replicas | requests | req/s | × 1 replica | creates/s | lists/s | p50 ms | p99 ms | "+
		"replicas' CPU (cores) | replicas' CPU µs/req | one replica's share, least–most | HAProxy CPU (cores) | client CPU (cores) | machine CPU (cores) |")
	fmt.Fprintln(&b, "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	one := tallies[0].rps()
	for i := range tallies {
		t := &tallies[i]
		p50, p99 := p50p99(t.lat)
		fmt.Fprintf(&b, "| %d | %d | %.0f | %.2f | %.0f | %.0f | %.2f | %.2f | %.2f | %.0f | %.0f–%.0f %% | %.2f | %.2f | %.2f |\n",
			i+1, t.ok, t.rps(), t.rps()/one, float64(t.creates)/t.wall.Seconds(), float64(t.lists)/t.wall.Seconds(),
			ms(p50), ms(p99), t.cores(t.cpu), us(t.cpuPerReq()), 100*t.leastShare, 100*t.share, t.cores(t.lbCPU), t.cores(t.clientCPU), t.cores(t.machineCPU))
	}
	fmt.Fprintf(&b, "\nThroughput against one replica, on %d cores:\n", cores)
	for n := 2; n <= replicaMost; n++ {
		fmt.Fprintf(&b, "- %d/1: %.2f×\n", n, tallies[n-1].rps()/one)
	}
	_, _ = b.WriteTo(w)
}
