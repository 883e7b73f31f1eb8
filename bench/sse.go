package main

// The chat-stream benchmark (issue 4, item 7):
//
//	go run ./bench sse                    # 1,000 then 10,000 subscribers
//	go run ./bench sse -subs 1000 -messages 50
//
// The real server runs as its own process with a long heartbeat (so idle
// means idle) and its debug listener on (--debug-addr: expvar memstats). A
// second process, this binary as "sse-clients", holds N SSE connections to
// GET /api/v2/shared-chat/stream and counts the new_message events each one
// receives. For each N it measures:
//
//   - memory per idle subscriber: the server's RSS (/proc/PID/status VmRSS)
//     and heap+stack in use (runtime memstats after a forced GC), before the
//     subscribers connect and once all N have their "connected" event,
//     divided by N;
//   - server CPU per delivered event: M messages are sent one after another
//     (POST /api/v2/shared-chat/send), each only once every subscriber has
//     the previous one; the server's utime+stime over the whole run divided by
//     M×N deliveries. The sends' own cost is included, so the figure is an
//     upper bound.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Targets from issue 4, item 7.
const (
	sseMemGoal = 16 << 10 // bytes per idle subscriber
	sseCPUGoal = 10 * time.Microsecond
)

type sseResult struct {
	subs                int
	rssPerSub, heapStk  float64 // bytes
	cpuPerDelivery      time.Duration
	deliveries          int64
	connectTime, fanout time.Duration
}

func sseMain(args []string) error {
	fs := flag.NewFlagSet("sse", flag.ContinueOnError)
	subsFlag := fs.String("subs", "1000,10000", "subscriber counts, comma-separated")
	messages := fs.Int("messages", 20, "messages fanned out per subscriber count")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var counts []int
	for _, f := range strings.Split(*subsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-subs: bad count %q", f)
		}
		counts = append(counts, n)
	}
	if *messages < 1 {
		return errors.New("-messages must be positive")
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	sc, err := newScratch(ctx, "sse")
	if err != nil {
		return err
	}
	defer sc.done()
	ps, dir, bin := sc.ps, sc.dir, sc.bin
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	debugAddr, err := freeAddr()
	if err != nil {
		return err
	}
	server, _, err := ps.start("switchboard", os.Stderr, bin, "serve", "--addr", addr,
		"--db", "sqlite:"+filepath.Join(dir, "sse.db"), "--debug-addr", debugAddr, "--heartbeat", "1h",
		"--rate-limit-per-minute", "1000000000", "--auth-rate-limit-per-minute", "1000", "--log-level", "warn")
	if err != nil {
		return err
	}
	server.url = "http://" + addr
	if err := waitHealthy(ctx, server, 30*time.Second); err != nil {
		return err
	}
	key, _, err := account(ctx, server.url)
	if err != nil {
		return err
	}
	var results []sseResult
	for _, n := range counts {
		fmt.Fprintf(os.Stderr, "bench: sse: %d subscribers\n", n)
		r, err := sseRun(ctx, ps, server, "http://"+debugAddr, key, n, *messages)
		if err != nil {
			return fmt.Errorf("%d subscribers: %w", n, err)
		}
		results = append(results, r)
	}
	sseReport(os.Stdout, *messages, results, time.Since(began))
	return nil
}

func sseRun(ctx context.Context, ps *procs, server *proc, debugURL, key string, n, messages int) (sseResult, error) {
	r := sseResult{subs: n}
	rss0, mem0, err := serverMemory(ctx, server, debugURL)
	if err != nil {
		return r, err
	}
	self, err := os.Executable()
	if err != nil {
		return r, err
	}
	t0 := time.Now()
	clients, stdout, stdin, err := ps.startPiped("sse-clients", os.Stderr, true, self, "sse-clients",
		"-url", server.url+"/api/v2/shared-chat/stream", "-key", key, "-n", strconv.Itoa(n))
	if err != nil {
		return r, err
	}
	defer func() {
		_ = clients.cmd.Process.Kill()
		<-clients.done
	}()
	lines := bufio.NewScanner(stdout)
	expect := func(prefix string) error {
		for lines.Scan() {
			if strings.HasPrefix(lines.Text(), prefix) {
				return nil
			}
		}
		if err := lines.Err(); err != nil {
			return fmt.Errorf("sse-clients ended before %q: %w", prefix, err)
		}
		return fmt.Errorf("sse-clients ended before %q", prefix)
	}
	if err := expect("READY"); err != nil {
		return r, err
	}
	r.connectTime = time.Since(t0)
	time.Sleep(time.Second) // let the last handshakes' garbage become garbage
	rss1, mem1, err := serverMemory(ctx, server, debugURL)
	if err != nil {
		return r, err
	}
	r.rssPerSub = float64(rss1-rss0) / float64(n)
	r.heapStk = float64(mem1-mem0) / float64(n)

	send := &http.Client{Timeout: 30 * time.Second}
	cpu0, err := server.cpu()
	if err != nil {
		return r, err
	}
	t1 := time.Now()
	for i := 1; i <= messages; i++ {
		if err := sendChat(ctx, send, server.url, key, fmt.Sprintf("fan-out %d", i)); err != nil {
			return r, err
		}
		if _, err := fmt.Fprintf(stdin, "WAIT %d\n", int64(i)*int64(n)); err != nil {
			return r, err
		}
		if err := expect("DONE"); err != nil {
			return r, err
		}
	}
	r.fanout = time.Since(t1)
	time.Sleep(30 * time.Millisecond) // let the last writes' CPU land in /proc
	cpu1, err := server.cpu()
	if err != nil {
		return r, err
	}
	r.deliveries = int64(messages) * int64(n)
	r.cpuPerDelivery = (cpu1 - cpu0) / time.Duration(r.deliveries)
	return r, nil
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

// serverMemory reads the server's RSS and, after a forced GC (the heap
// profile with gc=1), its heap and stack in use.
func serverMemory(ctx context.Context, server *proc, debugURL string) (rss, heapStack int64, err error) {
	c := &http.Client{Timeout: 30 * time.Second}
	get := func(path string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, debugURL+path, nil)
		if err != nil {
			return nil, err
		}
		res, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: %d", path, res.StatusCode)
		}
		return io.ReadAll(res.Body)
	}
	if _, err := get("/debug/pprof/heap?gc=1"); err != nil {
		return 0, 0, err
	}
	b, err := get("/debug/vars")
	if err != nil {
		return 0, 0, err
	}
	var vars struct {
		Memstats struct{ HeapInuse, StackInuse int64 }
	}
	if err := json.Unmarshal(b, &vars); err != nil {
		return 0, 0, err
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", server.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0, 0, err
			}
			rss = kb << 10
		}
	}
	if rss == 0 {
		return 0, 0, errors.New("no VmRSS in /proc status")
	}
	return rss, vars.Memstats.HeapInuse + vars.Memstats.StackInuse, nil
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
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\nX-Agent-Name: bench-%d\r\n\r\n",
		u.path, u.host, key, i)
	if _, err := io.WriteString(conn, req); err != nil {
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

type hostPath struct{ host, path string }

func parseHTTPURL(s string) (hostPath, error) {
	rest, ok := strings.CutPrefix(s, "http://")
	if !ok {
		return hostPath{}, fmt.Errorf("not an http:// URL: %q", s)
	}
	host, path, _ := strings.Cut(rest, "/")
	return hostPath{host: host, path: "/" + path}, nil
}

func sseReport(w io.Writer, messages int, rs []sseResult, elapsed time.Duration) {
	fmt.Fprintf(w, "### Chat stream run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "- command: `%s`\n", strings.Join(append([]string{"go run ./bench"}, os.Args[1:]...), " "))
	fmt.Fprintf(w, "- machine: %d cores (nproc), %s, %s %s/%s\n", runtime.NumCPU(), cpuModel(),
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "- %d messages fanned out per run; subscribers held by a separate process; server CPU from /proc/PID/stat (tick %s)\n\n", messages, clockTick)
	fmt.Fprintln(w, "| subscribers | connect all (s) | RSS / subscriber | heap+stack / subscriber | deliveries | fan-out wall (s) | server CPU / delivery |")
	fmt.Fprintln(w, "|--:|--:|--:|--:|--:|--:|--:|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %d | %.1f | %.1f KiB | %.1f KiB | %d | %.2f | %.2f µs |\n", r.subs, r.connectTime.Seconds(),
			r.rssPerSub/1024, r.heapStk/1024, r.deliveries, r.fanout.Seconds(), us(r.cpuPerDelivery))
	}
	fmt.Fprintln(w, "\nTargets:")
	for _, r := range rs {
		mem := max(r.rssPerSub, r.heapStk)
		fmt.Fprintf(w, "- %d subscribers: %.1f KiB per idle subscriber (the larger of RSS and heap+stack), target ≤ %d KiB: %s\n",
			r.subs, mem/1024, sseMemGoal>>10, met(mem <= sseMemGoal))
		fmt.Fprintf(w, "- %d subscribers: %.2f µs server CPU per delivery, target ≤ %.0f µs: %s\n",
			r.subs, us(r.cpuPerDelivery), us(sseCPUGoal), met(r.cpuPerDelivery <= sseCPUGoal))
	}
	fmt.Fprintf(w, "\nWhole run, build included: %s\n", elapsed.Round(time.Second))
}
