package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// startMain is `bench start`: how long the server takes from exec to its
// first 200 on /healthz, beside a minimal Go HTTP server built here (net/http
// alone, one handler), n times each, interleaved, on an SQLite file (or with
// -db a PostgreSQL schema) the server migrated beforehand (a restart, not a
// first start). It prints the
// medians, their ratio against issue 34's target (≤ 10×), and the part of the
// server's start spent initialising packages (GODEBUG=inittrace=1).
func startMain(args []string) error {
	fs := flag.NewFlagSet("start", flag.ContinueOnError)
	n := fs.Int("n", 10, "starts of each binary")
	pg := fs.String("db", "", "PostgreSQL URL (postgres://…): the server on a fresh schema there; a fresh SQLite file when empty")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 {
		return errors.New("start: -n must be at least 1")
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "switchboard-start-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	server, err := buildServer(ctx, dir)
	if err != nil {
		return err
	}
	minimal, err := buildMinimal(ctx, dir)
	if err != nil {
		return err
	}
	dsn := "sqlite:" + filepath.Join(dir, "start.db")
	if *pg != "" {
		ps := &procs{}
		defer ps.killAll() // drops the schema
		if dsn, err = freshSchema(ctx, ps, *pg); err != nil {
			return err
		}
	}
	serverArgs := func(addr string) []string { return []string{"serve", "--addr", addr, "--db", dsn} }
	// The first start migrates the file; it is not counted.
	if _, err := timeStart(server, serverArgs); err != nil {
		return fmt.Errorf("start: first start: %w", err)
	}
	var mins, servers []time.Duration
	for i := range *n {
		order := []bool{false, true} // false: the minimal server
		if i%2 == 1 {
			order = []bool{true, false}
		}
		for _, isServer := range order {
			if isServer {
				d, err := timeStart(server, serverArgs)
				if err != nil {
					return err
				}
				servers = append(servers, d)
				continue
			}
			d, err := timeStart(minimal, func(addr string) []string { return []string{addr} })
			if err != nil {
				return err
			}
			mins = append(mins, d)
		}
	}
	inits, err := initTimes(server, serverArgs)
	if err != nil {
		return err
	}
	report := func(name string, ds []time.Duration) time.Duration {
		slices.Sort(ds)
		med := ds[len(ds)/2]
		fmt.Printf("| %s | %.1f | %.1f | %.1f |\n", name, ms(med), ms(ds[0]), ms(ds[len(ds)-1]))
		return med
	}
	fmt.Printf("### Start run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Printf("- command: `go run ./bench start -n %d`; exec to the first 200 on /healthz, polled every 0.5 ms; %d starts of each, interleaved\n", *n, *n)
	fmt.Printf("- the server: `serve` on an SQLite file it migrated in an uncounted first start\n\n")
	fmt.Println("| binary | median ms | min ms | max ms |")
	fmt.Println("|---|--:|--:|--:|")
	mmin := report("minimal Go HTTP server (net/http, one handler)", mins)
	mserver := report("switchboard serve", servers)
	ratio := float64(mserver) / float64(mmin)
	verdict := "MET"
	if ratio > 10 {
		verdict = "NOT MET"
	}
	fmt.Printf("\nStart: %.1f× the minimal server (median against median), target ≤ 10×: %s\n\n", ratio, verdict)
	var total time.Duration
	for _, p := range inits {
		total += p.clock
	}
	fmt.Printf("Parts of the server's start: package initialisation %.1f ms (GODEBUG=inittrace=1, one start); the rest is main: flags, opening and checking the database, wiring, listening. Slowest initialisers:\n", ms(total))
	slices.SortFunc(inits, func(a, b initTime) int { return cmp.Compare(b.clock, a.clock) })
	for _, p := range inits[:min(5, len(inits))] {
		fmt.Printf("- %s: %.2f ms\n", p.pkg, ms(p.clock))
	}
	if verdict != "MET" {
		return fmt.Errorf("start: %.1f× the minimal server, target ≤ 10×", ratio)
	}
	return nil
}

// minimalSource is the yardstick: a Go HTTP server and nothing else.
const minimalSource = `package main

import (
	"net/http"
	"os"
	"time"
)

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) })
	srv := &http.Server{Addr: os.Args[1], Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		os.Exit(1)
	}
}
`

// buildMinimal builds minimalSource as a module of its own in dir.
func buildMinimal(ctx context.Context, dir string) (string, error) {
	src := filepath.Join(dir, "minimal")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module minimal\n\ngo 1.26\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(minimalSource), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "minimal-server")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build the minimal server: %w", err)
	}
	return bin, nil
}

// launch starts bin on a free loopback address (args makes its arguments
// from the address), with env added to ours; stop kills it and waits.
func launch(bin string, args func(addr string) []string, env ...string) (cmd *exec.Cmd, addr string, stop func(), err error) {
	if addr, err = freeAddr(); err != nil {
		return nil, "", nil, err
	}
	cmd = exec.Command(bin, args(addr)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd, addr, func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}, nil
}

// timeStart runs bin and answers the time from exec to its first 200 on
// /healthz; the process is then killed.
func timeStart(bin string, args func(addr string) []string) (time.Duration, error) {
	cmd, addr, stop, err := launch(bin, args)
	if err != nil {
		return 0, err
	}
	client := &http.Client{Timeout: time.Second}
	url := "http://" + addr + "/healthz"
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer stop()
	for deadline := t0.Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Microsecond) {
		res, err := client.Get(url)
		if err != nil {
			continue
		}
		_ = res.Body.Close()
		if res.StatusCode == http.StatusOK {
			return time.Since(t0), nil
		}
	}
	return 0, fmt.Errorf("start: %s answered no 200 on /healthz in 30 s", filepath.Base(bin))
}

type initTime struct {
	pkg   string
	clock time.Duration
}

// inittrace's line: "init PKG @T ms, C ms clock, B bytes, A allocs".
var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock`)

// initTimes starts the server once with GODEBUG=inittrace=1 and answers each
// package initialiser's clock time.
func initTimes(bin string, args func(addr string) []string) ([]initTime, error) {
	cmd, _, stop, err := launch(bin, args, "GODEBUG=inittrace=1")
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer stop()
	// A server that prints nothing after its inits ends the read by its kill.
	killer := time.AfterFunc(5*time.Second, func() { _ = cmd.Process.Kill() })
	defer killer.Stop()
	var out []initTime
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		m := initLine.FindStringSubmatch(sc.Text())
		if m == nil {
			if len(out) > 0 { // the first line after the inits: main has begun
				return out, nil
			}
			continue
		}
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return nil, err
		}
		out = append(out, initTime{pkg: m[1], clock: time.Duration(v * float64(time.Millisecond))})
	}
	if len(out) == 0 {
		return nil, errors.New("start: no inittrace lines")
	}
	return out, nil
}
