package main

// The federation dispatch benchmark (issue 14):
//
//	go run ./bench dispatch [-dispatch 3s] [-rounds 3] [-agents 4] [-db postgres://…]
//
// A hub and a spoke, each the real binary in its own process on its own
// SQLite file (or, with -db, its own schema of that PostgreSQL database), the
// spoke joined to the hub; agents that answer at once,
// served by this process. In interleaved rounds it charges the hub process
// the CPU time it reports in /proc/PID/stat per execution, for (r) an
// execution of a listing synced from the spoke (the hub's execute, its
// Connect call to the spoke, the result the spoke delivers back, the review
// window) and for (l) an execution of a local listing of the same hub
// calling the same kind of agent, and reports (r) over (l). The spoke's and
// the agents' CPU is not in the hub's figure (the spoke's is printed
// beside it).

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// interleaved is what the two-variant subcommands (dispatch, relay) share:
// a batch's length and the rounds of (r) and (l).
type interleaved struct {
	each   time.Duration
	rounds int
}

// flags registers -name (the batch's length) and -rounds.
func (c *interleaved) flags(fs *flag.FlagSet, name string) {
	fs.DurationVar(&c.each, name, 3*time.Second, "length of one variant's batch in a round")
	fs.IntVar(&c.rounds, "rounds", 3, "interleaved rounds of (r) and (l)")
}

// parse parses args and checks the ranges, the flag concurrency points to
// among them.
func (c *interleaved) parse(fs *flag.FlagSet, args []string, concurrency *int) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.each <= 0 || c.rounds < 1 || *concurrency < 1 {
		return errors.New("flags out of range")
	}
	return nil
}

type dispatchConfig struct {
	interleaved
	agents int
	otlp   bool   // both instances export their spans to a receiver here
	db     string // "" for SQLite files; postgres://… for a fresh schema each there
}

func dispatchMain(args []string) error {
	fs := flag.NewFlagSet("dispatch", flag.ContinueOnError)
	var cfg dispatchConfig
	cfg.flags(fs, "dispatch")
	fs.IntVar(&cfg.agents, "agents", 4, "listings (and concurrent requesters) per variant; each runs one execution at a time")
	fs.BoolVar(&cfg.otlp, "otlp", false, "run both instances with --otlp-endpoint (a receiver in this process that discards the spans)")
	fs.StringVar(&cfg.db, "db", "", "PostgreSQL URL (postgres://…): each instance on a fresh schema there; SQLite files when empty")
	if err := cfg.parse(fs, args, &cfg.agents); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	began := time.Now()
	sc, err := newScratch(ctx, "dispatch")
	if err != nil {
		return err
	}
	defer sc.done()
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"output":"done"}`))
	}))
	defer agent.Close()
	var tracing []string
	if cfg.otlp {
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/x-protobuf")
		}))
		defer receiver.Close()
		tracing = []string{"--otlp-endpoint", receiver.URL}
	}
	store := instanceStore{ps: sc.ps, dir: sc.dir, pg: cfg.db}
	net, err := startNetwork(ctx, sc.ps, sc.bin, store, agent.URL, cfg.agents, tracing)
	if err != nil {
		return err
	}
	defer net.hubDB.Close()
	fmt.Fprintf(os.Stderr, "bench dispatch: ready after %s; measuring\n", time.Since(began).Round(time.Second))
	// One warm-up pass of each, untimed.
	warm := cfg
	warm.each = cfg.each / 3
	if _, err := net.batch(ctx, net.remote, warm); err != nil {
		return err
	}
	if _, err := net.batch(ctx, net.local, warm); err != nil {
		return err
	}
	var remote, local dispatchTally
	for i := 0; i < cfg.rounds; i++ {
		r, err := net.batch(ctx, net.remote, cfg)
		if err != nil {
			return err
		}
		remote.add(r)
		l, err := net.batch(ctx, net.local, cfg)
		if err != nil {
			return err
		}
		local.add(l)
	}
	dispatchReport(os.Stdout, cfg, store, remote, local, time.Since(began))
	// No target is set for (r) over (l) yet: the ratio is reported, not held.
	return holdGoals(os.Stdout, "dispatch", nil)
}

// fedNetwork is the hub and the spoke, with the hub's listings of each kind.
type fedNetwork struct {
	hub, spoke    *proc
	buyer         *session
	remote, local []string // hub listing ids: synced from the spoke, the hub's own
	hubDB         *sql.DB  // the hub's database, read by this process to see results land
}

func startNetwork(ctx context.Context, ps *procs, bin string, store instanceStore, agentURL string, agents int, extra []string) (*fedNetwork, error) {
	n := &fedNetwork{}
	hubDSN, hubDir, err := store.fresh(ctx, "hub")
	if err != nil {
		return nil, err
	}
	spokeDSN, spokeDir, err := store.fresh(ctx, "spoke")
	if err != nil {
		return nil, err
	}
	if n.hub, err = startInstance(ctx, ps, bin, hubDir, hubDSN, append([]string{"--role", "hub", "--review-policy", "zero-gate"}, extra...)...); err != nil {
		return nil, err
	}
	if n.spoke, err = startInstance(ctx, ps, bin, spokeDir, spokeDSN, extra...); err != nil {
		return nil, err
	}
	hubOwner, err := signUp(ctx, n.hub.url, "owner", true)
	if err != nil {
		return nil, err
	}
	spokeOwner, err := signUp(ctx, n.spoke.url, "owner", true)
	if err != nil {
		return nil, err
	}
	if n.buyer, err = signUp(ctx, n.hub.url, "buyer", false); err != nil {
		return nil, err
	}
	spokeListings := map[string]bool{}
	for i := 0; i < agents; i++ {
		id, err := spokeOwner.listing(ctx, fmt.Sprintf("Spoke agent %d", i), agentURL)
		if err != nil {
			return nil, err
		}
		spokeListings[id] = true
		if id, err = hubOwner.listing(ctx, fmt.Sprintf("Local agent %d", i), agentURL); err != nil {
			return nil, err
		}
		n.local = append(n.local, id)
	}
	var tok struct{ Token struct{ Token string } }
	if err := hubOwner.post(ctx, "/api/developer/connect-tokens", map[string]any{"purpose": "instance"}, http.StatusCreated, &tok); err != nil {
		return nil, err
	}
	if err := spokeOwner.post(ctx, "/api/federation/join", map[string]any{"hubUrl": n.hub.url,
		"connectToken": tok.Token.Token, "storeParticipation": true, "name": "Bench spoke"}, http.StatusOK, nil); err != nil {
		return nil, err
	}
	var synced struct {
		Results []struct{ ID, MarketplaceID string }
	}
	if err := spokeOwner.post(ctx, "/api/marketplace/sync", map[string]any{}, http.StatusOK, &synced); err != nil {
		return nil, err
	}
	for _, r := range synced.Results {
		if !spokeListings[r.ID] || r.MarketplaceID == "" {
			continue
		}
		// Active at once under the hub's zero-gate policy.
		n.remote = append(n.remote, r.MarketplaceID)
	}
	if len(n.remote) != agents {
		return nil, fmt.Errorf("synced %d of %d listings", len(n.remote), agents)
	}
	n.hubDB, err = openLanded(hubDSN)
	return n, err
}

// startInstance runs the binary on a fresh database (dsn, from
// instanceStore.fresh) in dir, with its own address as its public URL,
// loopback agents allowed, limits out of the way; its generated instance key
// is its own, in dir.
func startInstance(ctx context.Context, ps *procs, bin, dir, dsn string, extra ...string) (*proc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--addr", addr, "--db", dsn, "--public-url", "http://" + addr,
		"--allow-private-endpoints", "--rate-limit-per-minute", "1000000000", "--auth-rate-limit-per-minute", "1000",
		"--federation-rate-limit-per-minute", "1000000000", "--heavy-rate-limit-per-minute", "1000000000", "--log-level", "warn"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	p, _, _, err := ps.startCmd(filepath.Base(dir), os.Stderr, false, cmd)
	if err != nil {
		return nil, err
	}
	p.url = "http://" + addr
	return p, waitHealthy(ctx, p, 30*time.Second)
}

// session is a logged-in account of one instance (cookie and Origin).
type session struct {
	base string
	c    *http.Client
}

func signUp(ctx context.Context, base, username string, first bool) (*session, error) {
	jar, _ := cookiejar.New(nil)
	s := &session{base: base, c: &http.Client{Timeout: 30 * time.Second, Jar: jar}}
	body := map[string]any{"username": username, "email": username + "@example.com", "password": benchPassword, "name": username}
	path := "/api/signup"
	if first {
		path, body["acceptedTerms"] = "/api/setup", true
	}
	if err := s.post(ctx, path, body, http.StatusCreated, nil); err != nil {
		return nil, err
	}
	return s, s.post(ctx, "/api/auth/login", map[string]any{"username": username, "password": benchPassword}, http.StatusOK, nil)
}

func (s *session) post(ctx context.Context, path string, body any, want int, out any) error {
	return s.do(ctx, http.MethodPost, path, body, want, out)
}

func (s *session) do(ctx context.Context, method, path string, body any, want int, out any) error {
	return requestJSON(ctx, s.c, method, s.base+path, map[string]string{"Origin": s.base}, body, want, out)
}

// listing makes a store listing of the agent at url, answering its id.
func (s *session) listing(ctx context.Context, name, url string) (string, error) {
	var out struct{ Agent struct{ ID string } }
	err := s.post(ctx, "/api/marketplace", map[string]any{"name": name, "endpointUrl": url,
		"authMethod": "bearer", "authCredential": "bench-agent-secret"}, http.StatusCreated, &out)
	return out.Agent.ID, err
}

// dispatchTally is executions done and the CPU both instances spent on them.
type dispatchTally struct {
	done             int64
	hubCPU, spokeCPU time.Duration
	wall             time.Duration
}

func (t *dispatchTally) add(b dispatchTally) {
	t.done += b.done
	t.hubCPU += b.hubCPU
	t.spokeCPU += b.spokeCPU
	t.wall += b.wall
}

func (t dispatchTally) per(d time.Duration) time.Duration {
	if t.done == 0 {
		return 0
	}
	return d / time.Duration(t.done)
}

// batch runs executions of listings, one requester per listing, each
// execution waited for until the hub records it completed, for cfg.each;
// the executions still running then are waited for and counted.
func (n *fedNetwork) batch(ctx context.Context, listings []string, cfg dispatchConfig) (dispatchTally, error) {
	hub0, err := n.hub.cpu()
	if err != nil {
		return dispatchTally{}, err
	}
	spoke0, err := n.spoke.cpu()
	if err != nil {
		return dispatchTally{}, err
	}
	began := time.Now()
	var done atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, len(listings))
	for _, id := range listings {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(began) < cfg.each {
				if err := n.executeOnce(ctx, id); err != nil {
					errs <- err
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return dispatchTally{}, err
	}
	t := dispatchTally{done: done.Load(), wall: time.Since(began)}
	hub1, err := n.hub.cpu()
	if err != nil {
		return t, err
	}
	spoke1, err := n.spoke.cpu()
	t.hubCPU, t.spokeCPU = hub1-hub0, spoke1-spoke0
	return t, err
}

// executeOnce runs one execution as the hub's buyer and waits until the hub
// has it completed, reading the hub's database (not its API, so the waiting
// costs the hub nothing).
func (n *fedNetwork) executeOnce(ctx context.Context, listing string) error {
	var out struct{ ExecutionID, Status string }
	if err := n.buyer.post(ctx, "/api/marketplace/"+listing+"/execute", map[string]any{"input": "Bench."}, http.StatusOK, &out); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for status := out.Status; status != "completed"; {
		switch status {
		case "failed", "timeout", "cancelled":
			return fmt.Errorf("execution %s ended %s", out.ExecutionID, status)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("execution %s still %s after 30s", out.ExecutionID, status)
		}
		time.Sleep(time.Millisecond)
		if err := n.hubDB.QueryRowContext(ctx, "SELECT status FROM executions WHERE id = $1", out.ExecutionID).Scan(&status); err != nil {
			return err
		}
	}
	return nil
}

func dispatchReport(w io.Writer, cfg dispatchConfig, store instanceStore, remote, local dispatchTally, elapsed time.Duration) {
	fmt.Fprintf(w, "#### Dispatch run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	more, tracing := "", "off (no --otlp-endpoint)"
	if cfg.otlp {
		more, tracing = " -otlp", "on: both instances export to a loopback OTLP/HTTP receiver"
	}
	if cfg.db != "" {
		more += " -db " + cfg.db
	}
	fmt.Fprintf(w, "- command: `go run ./bench dispatch -dispatch %s -rounds %d -agents %d%s` (%s wall clock, build included)\n",
		cfg.each, cfg.rounds, cfg.agents, more, elapsed.Round(time.Second))
	fmt.Fprintf(w, "- tracing %s\n", tracing)
	fmt.Fprintf(w, "- machine: %d cores (nproc), %s, %s, hub and spoke in separate processes\n", runtime.NumCPU(), cpuModel(), store.kind())
	fmt.Fprintf(w, "- CPU = utime+stime of each process from /proc/PID/stat (tick %s), over all rounds\n\n", clockTick)
	fmt.Fprintln(w, "| variant | executions | per s | hub CPU µs/execution | × (l) | spoke CPU µs/execution |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|")
	base := local.per(local.hubCPU)
	row := func(name string, t dispatchTally) {
		ratio := 0.0
		if base > 0 {
			ratio = float64(t.per(t.hubCPU)) / float64(base)
		}
		fmt.Fprintf(w, "| %s | %d | %.0f | %.0f | %.2f | %.0f |\n", name, t.done, float64(t.done)/t.wall.Seconds(),
			us(t.per(t.hubCPU)), ratio, us(t.per(t.spokeCPU)))
	}
	row("(r) synced agent, dispatched to the spoke", remote)
	row("(l) local agent on the hub", local)
}
