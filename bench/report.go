package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// Targets from issue 3, item 8.
const (
	listGoal   = 3.0  // (c) and (d) CPU per request at most this many times (b)
	mcpGoal    = 3.0  // (m) CPU per request at most this many times (d): RULINGS "MCP", the answer's cost (2026-11-28)
	createGoal = 3000 // create-item transactions per second
)

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// report prints the run as Markdown, ready to paste into RESULTS.md.
func report(w io.Writer, cfg config, e *env, r *results) {
	fmt.Fprintf(w, "### Run of %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "- command: `%s`\n", strings.Join(append([]string{"go run ./bench"}, os.Args[1:]...), " "))
	fmt.Fprintf(w, "- machine: %d cores (nproc), %s, %s %s/%s\n", runtime.NumCPU(), cpuModel(),
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "- database: %s (a fresh one for the run)\n", e.dbName)
	fmt.Fprintf(w, "- %d seeded items; %d rounds × %s batch per variant, %d workers; open loop %s at ½ capacity; create %s × %d workers\n",
		cfg.items, cfg.rounds, cfg.batch, cfg.workers, cfg.latency, cfg.createFor, cfg.createWorkers)
	fmt.Fprintf(w, "- page: 50 items, %d JSON bytes (REST form); (b) byte-identical to (c): %v (equal after JSON normalisation: checked)\n",
		e.probes["c"].jsonBytes, e.identical)
	fmt.Fprintf(w, "- CPU = utime+stime of the serving process from /proc/PID/stat (tick %s), charged per batch\n\n", clockTick)

	a, b := r.cpu["a"].cpuPerReq(), r.cpu["b"].cpuPerReq()
	fmt.Fprintln(w, "| variant | req/s (closed loop) | server CPU µs/req | × (a) | × (b) | response | p50 ms | p99 ms | at req/s (½ cap) |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|---|--:|--:|--:|")
	rows := append(append([]*target{}, e.lists...), e.create)
	for _, t := range rows {
		tl := r.cpu[t.key]
		cpu := tl.cpuPerReq()
		p50, p99 := p50p99(r.lat[t.key].lat)
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.1f | %.2f | %s | %.2f | %.2f | %.0f |\n",
			t.label, tl.rps(), us(cpu), float64(cpu)/float64(a), float64(cpu)/float64(b),
			responseNote(e, t.key), ms(p50), ms(p99), r.rate[t.key])
	}
	txCPU := r.tx.CPU / time.Duration(max(r.tx.Creates, 1))
	fmt.Fprintf(w, "| (e) create transaction in-process (queue.Service, %d goroutines, no HTTP) | %.0f | %.0f | %.1f | %.2f | one item | | | |\n",
		cfg.txWorkers, r.tx.rate(), us(txCPU), float64(txCPU)/float64(a), float64(txCPU)/float64(b))
	rawCPU := r.rawTx.CPU / time.Duration(max(r.rawTx.Creates, 1))
	fmt.Fprintf(w, "| (f) create baseline: the same statements with database/sql (%d goroutines, a transaction each) | %.0f | %.0f | %.1f | %.2f | one item | | | |\n",
		cfg.txWorkers, r.rawTx.rate(), us(rawCPU), float64(rawCPU)/float64(a), float64(rawCPU)/float64(b))
	if lk := r.rawLockedTx; lk.Creates > 0 {
		lkCPU := lk.CPU / time.Duration(lk.Creates)
		fmt.Fprintf(w, "| (f-lk) the same with the server's two per-account locks (column, events) | %.0f | %.0f | %.1f | %.2f | one item | | | |\n",
			lk.rate(), us(lkCPU), float64(lkCPU)/float64(a), float64(lkCPU)/float64(b))
	}
	fmt.Fprintln(w)
	createRatios(w, r, rawCPU)
	for _, t := range rows {
		if l := r.lat[t.key]; l.errs > 0 {
			fmt.Fprintf(w, "- note: %s had %d failed requests in the open-loop run\n", t.label, l.errs)
		}
	}
	if ct := r.cpu["e"]; ct.errs > 0 {
		fmt.Fprintf(w, "- note: %d creates failed, first: %v\n", ct.errs, ct.firstErr)
	}
	verdicts(w, r, b)
	fmt.Fprintf(w, "\nWhole run, build included: %s\n", r.elapsed.Round(time.Second))
}

func responseNote(e *env, key string) string {
	p, ok := e.probes[key]
	switch {
	case !ok:
		return "201, one item"
	case p.encoding == "":
		return fmt.Sprintf("%d B identity", p.wireBytes)
	}
	return fmt.Sprintf("%d B %s", p.wireBytes, p.encoding)
}

func verdicts(w io.Writer, r *results, b time.Duration) {
	fmt.Fprintln(w, "\nTargets:")
	for _, k := range []string{"c", "c+gz", "d", "d+gz"} {
		ratio := float64(r.cpu[k].cpuPerReq()) / float64(b)
		fmt.Fprintf(w, "- %-4s CPU/request %.2f× (b), target ≤ %.0f×: %s\n", k, ratio, listGoal, met(ratio <= listGoal))
	}
	d := r.cpu["d"].cpuPerReq()
	for _, k := range []string{"m", "m-bare"} {
		ratio := float64(r.cpu[k].cpuPerReq()) / float64(d)
		fmt.Fprintf(w, "- %-6s CPU/request %.2f× (d) Connect JSON, target ≤ %.1f×: %s\n", k, ratio, mcpGoal, met(ratio <= mcpGoal))
	}
	rate := r.cpu["e"].rps()
	fmt.Fprintf(w, "- e    %.0f creates/s over REST (HTTP client on the same cores), target ≥ %d/s: %s\n", rate, createGoal, met(rate >= createGoal))
	fmt.Fprintf(w, "- e-tx %.0f create transactions/s in-process, target ≥ %d/s: %s\n", r.tx.rate(), createGoal, met(r.tx.rate() >= createGoal))
	protocolVerdict(w, r)
}

func met(ok bool) string {
	if ok {
		return "MET"
	}
	return "NOT MET"
}

// createRatios reports create against its database/sql baseline (f), as list
// is reported against (b): CPU per create and creates per second. On
// PostgreSQL the database's own CPU is in neither figure.
func createRatios(w io.Writer, r *results, rawCPU time.Duration) {
	rest, tx := r.cpu["e"], r.tx
	txCPU := tx.CPU / time.Duration(max(tx.Creates, 1))
	fmt.Fprintln(w, "Create against its baseline (f):")
	fmt.Fprintf(w, "- e    REST create: CPU/create %.2f× (f), creates/s %.2f× (f)\n",
		float64(rest.cpuPerReq())/float64(rawCPU), rest.rps()/r.rawTx.rate())
	fmt.Fprintf(w, "- e-tx in-process create: CPU/create %.2f× (f), creates/s %.2f× (f)\n",
		float64(txCPU)/float64(rawCPU), tx.rate()/r.rawTx.rate())
	if lk := r.rawLockedTx; lk.Creates > 0 {
		lkCPU := lk.CPU / time.Duration(lk.Creates)
		fmt.Fprintf(w, "- e    REST create against (f-lk): CPU/create %.2f×, creates/s %.2f×\n",
			float64(rest.cpuPerReq())/float64(lkCPU), rest.rps()/lk.rate())
		fmt.Fprintf(w, "- e-tx in-process create against (f-lk): CPU/create %.2f×, creates/s %.2f×\n",
			float64(txCPU)/float64(lkCPU), tx.rate()/lk.rate())
	}
	fmt.Fprintln(w)
}
