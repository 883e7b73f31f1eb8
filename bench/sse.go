package main

// The chat-stream benchmark (issue 4, item 7; targets of issue 34):
//
//	go run ./bench sse                    # 1,000 then 10,000 subscribers
//	go run ./bench sse -subs 1000 -messages 50 [-db postgres://…]
//
// The real server runs as its own process with a long heartbeat (so idle
// means idle) and its debug listener on (--debug-addr: expvar memstats).
// Beside it runs the yardstick, a bare net/http SSE loop built here in a
// module of its own (bare.go), which writes the server's own frame bytes. For
// each N, each of the two is subscribed to by a second process, this binary
// as "sse-clients", holding N SSE connections and counting the new_message
// events each one receives. For each N and each server it measures:
//
//   - memory per idle subscriber: the process's RSS (/proc/PID/status VmRSS)
//     and heap+stack in use (runtime memstats after a forced GC), before the
//     subscribers connect and once all N have their "connected" event,
//     divided by N;
//   - CPU per delivered event: M messages are sent one after another, each
//     only once every subscriber has the previous one, in rounds that turn
//     between the two servers; each server's utime+stime over its own
//     batches divided by its M×N deliveries. The sends' own cost is included
//     (for the server: the chat message stored and published).
//
// It then holds issue 34's targets: the server's CPU per delivery at most
// 1.1× the bare loop's, and its memory per idle subscriber at most 2 KiB.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Targets of issue 34 (the compass's).
const (
	sseCPUGoal = 1.1     // server CPU per delivery over the bare loop's
	sseMemGoal = 2 << 10 // bytes per idle subscriber (the larger of RSS and heap+stack)
)

// sseFDSlack is what a server or the clients may open beside the streams
// (database, listeners, pipes) before a count is refused for the file cap.
const sseFDSlack = 32

// sseWarmSubs subscribe and leave before the first count: as many as the
// clients open at once, so that what a server grows once under concurrent
// handshakes (the switchboard's database pool) is not charged to a count.
const sseWarmSubs = 128

type sseConfig struct {
	counts           []int
	messages, rounds int
	db               string // "" for a fresh SQLite file; postgres://… for a fresh schema there
}

// sseServer is one side of the comparison: the process charged, its stream,
// how one message is sent to every subscriber, and its heap and stacks in
// use after a forced GC.
type sseServer struct {
	name      string
	proc      *proc
	stream    string // URL
	send      func(ctx context.Context) error
	heapStack func(ctx context.Context) (int64, error)
	idleConns int // connections held with no subscriber: the bench's own keep-alive ones
}

type sseResult struct {
	server              string
	subs                int
	rssPerSub, heapStk  float64 // bytes
	cpu                 time.Duration
	deliveries          int64
	connectTime, fanout time.Duration
}

// mem is the memory per idle subscriber the target reads.
func (r sseResult) mem() float64 { return max(r.rssPerSub, r.heapStk) }

func (r sseResult) perDelivery() time.Duration {
	return r.cpu / time.Duration(max(r.deliveries, 1))
}

// sseCount is one subscriber count's figures: the server's and the bare loop's.
type sseCount struct{ server, bare sseResult }

func sseMain(args []string) error {
	fs := flag.NewFlagSet("sse", flag.ContinueOnError)
	var cfg sseConfig
	subsFlag := fs.String("subs", "1000,10000", "subscriber counts, comma-separated")
	fs.IntVar(&cfg.messages, "messages", 50, "messages fanned out per subscriber count, to each server")
	fs.IntVar(&cfg.rounds, "rounds", 5, "batches the messages are sent in, the two servers taking turns")
	fs.StringVar(&cfg.db, "db", "", "PostgreSQL URL (postgres://…) for the server, on a fresh schema there; a fresh SQLite file when empty")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, f := range strings.Split(*subsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-subs: bad count %q", f)
		}
		cfg.counts = append(cfg.counts, n)
	}
	if cfg.messages < 1 || cfg.rounds < 1 {
		return errors.New("-messages and -rounds must be positive")
	}
	cfg.rounds = min(cfg.rounds, cfg.messages)
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	sc, err := newScratch(ctx, "sse")
	if err != nil {
		return err
	}
	defer sc.done()
	server, key, err := startSwitchboardSSE(ctx, sc, cfg.db)
	if err != nil {
		return err
	}
	frames, err := captureFrames(ctx, server, key)
	if err != nil {
		return err
	}
	if err := server.sweep(ctx); err != nil { // the capture's stream
		return err
	}
	bare, err := startBareSSE(ctx, sc, frames)
	if err != nil {
		return err
	}
	for _, s := range []*sseServer{server, bare} {
		if err := warmUp(ctx, sc.ps, s, key, min(sseWarmSubs, slices.Max(cfg.counts))); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	var counts []sseCount
	for i, n := range cfg.counts {
		fmt.Fprintf(os.Stderr, "bench: sse: %d subscribers\n", n)
		order := []*sseServer{server, bare}
		if i%2 == 1 {
			order = []*sseServer{bare, server}
		}
		rs, err := runSSECount(ctx, sc.ps, order, key, n, cfg)
		if err != nil {
			return fmt.Errorf("%d subscribers: %w", n, err)
		}
		counts = append(counts, sseCount{server: rs[server], bare: rs[bare]})
		for _, s := range order {
			if err := s.sweep(ctx); err != nil {
				return err
			}
		}
	}
	sseReport(os.Stdout, cfg, frames, counts, time.Since(began))
	return holdGoals(os.Stdout, "sse", sseGoals(counts))
}

// startSwitchboardSSE runs the real server on a fresh database with the
// heartbeat out of the way (idle means idle), its debug listener on and the
// per-key stream cap lifted (every subscriber streams with the one key), and
// makes the owner's key.
func startSwitchboardSSE(ctx context.Context, sc *scratch, pg string) (*sseServer, string, error) {
	dsn := "sqlite:" + filepath.Join(sc.dir, "sse.db")
	if pg != "" {
		var err error
		if dsn, err = freshSchema(ctx, sc.ps, pg); err != nil {
			return nil, "", err
		}
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	debugAddr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	p, _, err := sc.ps.start("switchboard", os.Stderr, sc.bin, "serve", "--addr", addr,
		"--db", dsn, "--debug-addr", debugAddr, "--heartbeat", "1h", "--max-streams-per-key", "1000000",
		"--rate-limit-per-minute", "1000000000", "--auth-rate-limit-per-minute", "1000", "--log-level", "warn")
	if err != nil {
		return nil, "", err
	}
	p.url = "http://" + addr
	if err := waitHealthy(ctx, p, 30*time.Second); err != nil {
		return nil, "", err
	}
	key, _, err := account(ctx, p.url)
	if err != nil {
		return nil, "", err
	}
	floor, err := heldConns(p)
	if err != nil {
		return nil, "", err
	}
	c := &http.Client{Timeout: 30 * time.Second}
	sent := 0
	return &sseServer{
		name:   "switchboard",
		proc:   p,
		stream: p.url + "/api/v2/shared-chat/stream",
		send: func(ctx context.Context) error {
			sent++
			return sendChat(ctx, c, p.url, key, fmt.Sprintf("fan-out %d", sent))
		},
		heapStack: func(ctx context.Context) (int64, error) { return debugHeapStack(ctx, c, "http://"+debugAddr) },
		idleConns: floor,
	}, key, nil
}

// sseFrames are bytes the server wrote on a stream: its connected event and
// a new_message event, which the bare loop writes in their place.
type sseFrames struct{ connected, message []byte }

// captureFrames opens one stream on s as a subscriber does, sends a message
// and keeps the two frames that came.
func captureFrames(ctx context.Context, s *sseServer, key string) (sseFrames, error) {
	var f sseFrames
	u, err := parseHTTPURL(s.stream)
	if err != nil {
		return f, err
	}
	conn, err := (&net.Dialer{Timeout: 30 * time.Second}).DialContext(ctx, "tcp", u.host)
	if err != nil {
		return f, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, streamRequest(u, key, "bench-capture")); err != nil {
		return f, err
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil) //nolint:bodyclose // the body reads conn, closed above
	if err != nil {
		return f, err
	}
	if res.StatusCode != http.StatusOK {
		return f, fmt.Errorf("capture: stream status %d", res.StatusCode)
	}
	body := bufio.NewReader(res.Body)
	if f.connected, err = readFrame(body, "connected"); err != nil {
		return f, err
	}
	if err := s.send(ctx); err != nil {
		return f, err
	}
	f.message, err = readFrame(body, "new_message")
	return f, err
}

// readFrame reads SSE events up to the blank line ending each, and answers
// the first of type typ, whole.
func readFrame(r *bufio.Reader, typ string) ([]byte, error) {
	var frame []byte
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("capture: waiting for %s: %w", typ, err)
		}
		frame = append(frame, line...)
		if len(line) > 1 {
			continue
		}
		if bytes.Contains(append([]byte{'\n'}, frame...), []byte("\nevent: "+typ+"\n")) {
			return frame, nil
		}
		frame = frame[:0]
	}
}

// sweep sends two messages nobody waits for once the streams' clients are
// gone, then waits (at most 10 s) until the process holds no more
// connections than with no subscriber: the server notices a hung-up idle
// stream only when a write to it fails, the second after the peer's reset,
// and a count should neither hold nor write to the last count's streams. The
// bare loop sees a hang-up at once and gets the same two sends.
func (s *sseServer) sweep(ctx context.Context) error {
	for range 2 {
		if err := s.send(ctx); err != nil {
			return err
		}
	}
	// The sends' own keep-alive connection may have joined the bench's.
	const slack = 4
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		n, err := heldConns(s.proc)
		if err != nil || n <= s.idleConns+slack {
			return err
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "bench: sse: %s still holds %d connections, %d with no subscriber\n", s.name, n, s.idleConns)
			return nil
		}
	}
}

// warmUp subscribes n clients to s, sends them one message and lets them go.
func warmUp(ctx context.Context, ps *procs, s *sseServer, key string, n int) error {
	side, err := subscribe(ctx, ps, s, key, n)
	if side != nil {
		if err == nil {
			err = side.fanOut(ctx, 1)
		}
		side.close()
	}
	if err != nil {
		return err
	}
	return s.sweep(ctx)
}

// memory answers the process's RSS and its heap and stacks in use.
func (s *sseServer) memory(ctx context.Context) (rss, heapStack int64, err error) {
	if heapStack, err = s.heapStack(ctx); err != nil {
		return 0, 0, err
	}
	rss, err = residentBytes(s.proc)
	return rss, heapStack, err
}

// fits checks that n more streams fit under the process's open-file cap.
// Go raises its soft RLIMIT_NOFILE to the hard limit at start, so the cap
// is ulimit -Hn.
func (s *sseServer) fits(n int) error {
	open, err := openFiles(s.proc)
	if err != nil {
		return err
	}
	lim, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", s.proc.cmd.Process.Pid))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(lim), "\n") {
		if v, ok := strings.CutPrefix(line, "Max open files"); ok {
			soft, err := strconv.Atoi(strings.Fields(v)[0])
			if err != nil {
				return err
			}
			if open+n+sseFDSlack > soft {
				return fmt.Errorf("%s: %d streams beside %d open files exceed its cap of %d (ulimit -n)", s.name, n, open, soft)
			}
			return nil
		}
	}
	return errors.New("no Max open files in /proc limits")
}

func openFiles(p *proc) (int, error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid))
	return len(fds), err
}

// heldConns counts the TCP connections on p's port that p still holds open:
// established, or closed by the peer only (/proc/net/tcp states 01 and 08).
// Its database's connections are not on that port.
func heldConns(p *proc) (int, error) {
	_, port, err := net.SplitHostPort(strings.TrimPrefix(p.url, "http://"))
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return 0, err
	}
	local := fmt.Sprintf(":%04X", n)
	tcp, err := os.ReadFile("/proc/net/tcp") // the listeners are on 127.0.0.1
	if err != nil {
		return 0, err
	}
	held := 0
	for _, line := range strings.Split(string(tcp), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) > 3 && strings.HasSuffix(f[1], local) && (f[3] == "01" || f[3] == "08") {
			held++
		}
	}
	return held, nil
}

// sseSide is one server's subscribers for one count: the clients process
// holding them and the figures so far.
type sseSide struct {
	srv     *sseServer
	clients *proc
	stdin   io.Writer
	lines   *bufio.Scanner
	sent    int64 // messages fanned out to them
	r       sseResult
}

// runSSECount subscribes n clients to each server in order, measures memory,
// then sends cfg.messages to each in cfg.rounds batches, the servers taking
// turns (the order turning every round) so that drift hits both alike.
func runSSECount(ctx context.Context, ps *procs, order []*sseServer, key string, n int, cfg sseConfig) (map[*sseServer]sseResult, error) {
	var sides []*sseSide
	defer func() {
		for _, s := range sides {
			s.close()
		}
	}()
	for _, srv := range order {
		if err := srv.fits(n); err != nil {
			return nil, err
		}
		s, err := subscribe(ctx, ps, srv, key, n)
		if s != nil {
			sides = append(sides, s)
		}
		if err != nil {
			return nil, err
		}
	}
	for round := range cfg.rounds {
		k := (round+1)*cfg.messages/cfg.rounds - round*cfg.messages/cfg.rounds
		for i := range sides {
			if err := sides[(i+round)%len(sides)].fanOut(ctx, k); err != nil {
				return nil, err
			}
		}
	}
	rs := map[*sseServer]sseResult{}
	for _, s := range sides {
		rs[s.srv] = s.r
	}
	return rs, nil
}

// subscribe starts the clients process holding n streams on srv and measures
// srv's memory before and once every stream has its connected event.
func subscribe(ctx context.Context, ps *procs, srv *sseServer, key string, n int) (*sseSide, error) {
	s := &sseSide{srv: srv, r: sseResult{server: srv.name, subs: n}}
	rss0, mem0, err := srv.memory(ctx)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	clients, stdout, stdin, err := ps.startPiped("sse-clients", os.Stderr, true, self, "sse-clients",
		"-url", srv.stream, "-key", key, "-n", strconv.Itoa(n))
	if err != nil {
		return nil, err
	}
	s.clients, s.stdin, s.lines = clients, stdin, bufio.NewScanner(stdout)
	if err := s.expect("READY"); err != nil {
		return s, err
	}
	s.r.connectTime = time.Since(t0)
	time.Sleep(time.Second) // let the last handshakes' garbage become garbage
	rss1, mem1, err := srv.memory(ctx)
	if err != nil {
		return s, err
	}
	s.r.rssPerSub = float64(rss1-rss0) / float64(n)
	s.r.heapStk = float64(mem1-mem0) / float64(n)
	return s, nil
}

// fanOut sends k messages, each once every subscriber has the last, and
// charges the server's CPU over the batch.
func (s *sseSide) fanOut(ctx context.Context, k int) error {
	cpu0, err := s.srv.proc.cpu()
	if err != nil {
		return err
	}
	t0 := time.Now()
	for range k {
		if err := s.srv.send(ctx); err != nil {
			return err
		}
		s.sent++
		if _, err := fmt.Fprintf(s.stdin, "WAIT %d\n", s.sent*int64(s.r.subs)); err != nil {
			return err
		}
		if err := s.expect("DONE"); err != nil {
			return err
		}
	}
	s.r.fanout += time.Since(t0)
	time.Sleep(settle) // let the last writes' CPU land in /proc
	cpu1, err := s.srv.proc.cpu()
	if err != nil {
		return err
	}
	s.r.cpu += cpu1 - cpu0
	s.r.deliveries = s.sent * int64(s.r.subs)
	return nil
}

// expect reads the clients' lines up to one starting with prefix.
func (s *sseSide) expect(prefix string) error {
	for s.lines.Scan() {
		if strings.HasPrefix(s.lines.Text(), prefix) {
			return nil
		}
	}
	if err := s.lines.Err(); err != nil {
		return fmt.Errorf("sse-clients ended before %q: %w", prefix, err)
	}
	return fmt.Errorf("sse-clients ended before %q", prefix)
}

func (s *sseSide) close() {
	_ = s.clients.cmd.Process.Kill()
	<-s.clients.done
}

func sendChat(ctx context.Context, c *http.Client, base, key, content string) error {
	body, _ := json.Marshal(map[string]string{"content": content})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v2/shared-chat/send", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("send: %d %s", res.StatusCode, b)
	}
	return nil
}

// debugHeapStack reads the server's heap and stack in use from its debug
// listener, after a forced GC (the heap profile with gc=1).
func debugHeapStack(ctx context.Context, c *http.Client, debugURL string) (int64, error) {
	if _, err := getBody(ctx, c, debugURL+"/debug/pprof/heap?gc=1"); err != nil {
		return 0, err
	}
	b, err := getBody(ctx, c, debugURL+"/debug/vars")
	if err != nil {
		return 0, err
	}
	var vars struct {
		Memstats struct{ HeapInuse, StackInuse int64 }
	}
	if err := json.Unmarshal(b, &vars); err != nil {
		return 0, err
	}
	return vars.Memstats.HeapInuse + vars.Memstats.StackInuse, nil
}

// residentBytes is the process's VmRSS from /proc/PID/status.
func residentBytes(p *proc) (int64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS in /proc status")
}

// sseClientsMain is the child holding n streams. It prints READY once every
// stream has its connected event; on "WAIT k" it prints DONE once the streams
// together have received k new_message events.
func sseClientsMain(args []string) error {
	fs := flag.NewFlagSet("sse-clients", flag.ContinueOnError)
	url := fs.String("url", "", "stream URL")
	key := fs.String("key", "", "API key")
	n := fs.Int("n", 1000, "streams")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// Go has raised the soft cap to the hard one (ulimit -Hn) at start.
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && uint64(*n)+sseFDSlack > lim.Cur {
		return fmt.Errorf("%d streams exceed this process's open-file cap of %d (ulimit -n)", *n, lim.Cur)
	}
	var connected sync.WaitGroup
	var events atomic.Int64
	fail := make(chan error, 1)
	report := func(err error) {
		select {
		case fail <- err:
		default:
		}
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second}
	opening := make(chan struct{}, 128) // handshakes in flight at once
	connected.Add(*n)
	for i := range *n {
		go func() {
			opening <- struct{}{}
			err := holdStream(dialer, *url, *key, i, func() { <-opening; connected.Done() }, &events)
			report(fmt.Errorf("stream %d ended: %w", i, err))
		}()
	}
	ready := make(chan struct{})
	go func() { connected.Wait(); close(ready) }()
	select {
	case <-ready:
	case err := <-fail:
		return err
	}
	select { // a stream that failed before its connected event also counted as ready
	case err := <-fail:
		return err
	default:
	}
	fmt.Println("READY")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		k, ok := strings.CutPrefix(in.Text(), "WAIT ")
		if !ok {
			continue
		}
		want, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return err
		}
		for events.Load() < want {
			select {
			case err := <-fail:
				return err
			case <-time.After(time.Millisecond):
			}
		}
		fmt.Println("DONE")
	}
	return in.Err()
}

// holdStream speaks HTTP/1.1 by hand over one connection, with a small read
// buffer, so that 10,000 of them fit in one process.
func holdStream(d *net.Dialer, rawURL, key string, i int, onConnected func(), events *atomic.Int64) error {
	u, err := parseHTTPURL(rawURL)
	if err != nil {
		return err
	}
	conn, err := d.Dial("tcp", u.host)
	if err != nil {
		onConnected()
		return err
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, streamRequest(u, key, fmt.Sprintf("bench-%d", i))); err != nil {
		onConnected()
		return err
	}
	br := bufio.NewReaderSize(conn, 1024)
	res, err := http.ReadResponse(br, nil) //nolint:bodyclose // the body reads conn, closed above; its own Close would drain a stream that does not end
	if err != nil {
		onConnected()
		return err
	}
	if res.StatusCode != http.StatusOK {
		onConnected()
		return fmt.Errorf("status %d", res.StatusCode)
	}
	body := bufio.NewReaderSize(res.Body, 1024) // undoes chunked framing
	seenConnected := false
	for {
		line, err := body.ReadSlice('\n')
		if err != nil {
			if !seenConnected {
				onConnected()
			}
			return err
		}
		ev, ok := bytes.CutPrefix(line, []byte("event:"))
		if !ok {
			continue
		}
		switch string(bytes.TrimSpace(ev)) {
		case "connected":
			if !seenConnected {
				seenConnected = true
				onConnected()
			}
		case "new_message":
			events.Add(1)
		}
	}
}

// streamRequest is a subscriber's request for the stream at u.
func streamRequest(u hostPath, key, agent string) string {
	return fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\nX-Agent-Name: %s\r\n\r\n",
		u.path, u.host, key, agent)
}

type hostPath struct{ host, path string }

func parseHTTPURL(s string) (hostPath, error) {
	rest, ok := strings.CutPrefix(s, "http://")
	if !ok {
		return hostPath{}, fmt.Errorf("not an http:// URL: %q", s)
	}
	host, path, _ := strings.Cut(rest, "/")
	return hostPath{host: host, path: "/" + path}, nil
}

func sseReport(w io.Writer, cfg sseConfig, frames sseFrames, counts []sseCount, elapsed time.Duration) {
	fmt.Fprintf(w, "### Chat stream run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "- command: `%s`\n", strings.Join(append([]string{"go run ./bench"}, os.Args[1:]...), " "))
	fmt.Fprintf(w, "- machine: %d cores (nproc), %s, %s %s/%s\n", runtime.NumCPU(), cpuModel(),
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
	db := "a fresh SQLite file"
	if cfg.db != "" {
		db = "PostgreSQL, a fresh schema"
	}
	fmt.Fprintf(w, "- switchboard: `serve` on %s, heartbeat 1h; bare loop: net/http, a goroutine per stream waiting on a channel, "+
		"each message written and flushed, the switchboard's own frames (new_message: %d bytes), unframed as the switchboard's\n", db, len(frames.message))
	fmt.Fprintf(w, "- %d messages fanned out per count to each server, in %d rounds taking turns; subscribers held by a separate process; "+
		"CPU from /proc/PID/stat (tick %s) over each server's own batches\n\n", cfg.messages, cfg.rounds, clockTick)
	fmt.Fprintln(w, "| subscribers | server | connect all (s) | RSS / subscriber | heap+stack / subscriber | deliveries | fan-out wall (s) | CPU / delivery |")
	fmt.Fprintln(w, "|--:|---|--:|--:|--:|--:|--:|--:|")
	for _, c := range counts {
		for _, r := range []sseResult{c.server, c.bare} {
			fmt.Fprintf(w, "| %d | %s | %.1f | %.1f KiB | %.1f KiB | %d | %.2f | %.2f µs |\n", r.subs, r.server, r.connectTime.Seconds(),
				r.rssPerSub/1024, r.heapStk/1024, r.deliveries, r.fanout.Seconds(), us(r.perDelivery()))
		}
	}
	fmt.Fprintf(w, "\nWhole run, builds included: %s\n", elapsed.Round(time.Second))
}

// sseGoals are issue 34's targets for each count: the server's CPU per
// delivery over the bare loop's, and its memory per idle subscriber.
func sseGoals(counts []sseCount) []goal {
	var gs []goal
	for _, c := range counts {
		ratio := math.Inf(1) // a bare loop charged nothing leaves nothing to compare with
		if c.bare.cpu > 0 {
			ratio = float64(c.server.perDelivery()) / float64(c.bare.perDelivery())
		}
		gs = append(gs, goal{
			what: fmt.Sprintf("%d subscribers: server CPU per delivery over the bare loop's (%.2f µs / %.2f µs)",
				c.server.subs, us(c.server.perDelivery()), us(c.bare.perDelivery())),
			got: ratio, most: sseCPUGoal, unit: "×",
		}, goal{
			what: fmt.Sprintf("%d subscribers: server memory per idle subscriber, the larger of RSS and heap+stack (the bare loop's: %.2f KiB)",
				c.server.subs, c.bare.mem()/1024),
			got: c.server.mem() / 1024, most: sseMemGoal >> 10, unit: " KiB",
		})
	}
	return gs
}
