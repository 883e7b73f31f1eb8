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

// The targets of issue 34 (the compass's, replacing the harness's own).
const (
	listGoal   = 1.1 // (c) and (d) CPU per request at most this many times (b)
	mcpGoal    = 3.0 // (m) CPU per request at most this many times (d): RULINGS "MCP", the answer's cost (2026-11-28)
	createGoal = 0.5 // (e) and (e-c) creates per second at least this share of (f)'s
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

// report prints the run as Markdown, ready to paste into RESULTS.md, and
// answers how many targets it missed.
func report(w io.Writer, cfg config, e *env, r *results) int {
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
	rows := append(append([]*target{}, e.lists...), e.creates...)
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
	for _, t := range e.creates {
		if ct := r.cpu[t.key]; ct.errs > 0 {
			fmt.Fprintf(w, "- note: %d creates of %s failed, first: %v\n", ct.errs, t.label, ct.firstErr)
		}
	}
	missed := verdicts(w, r, b)
	fmt.Fprintf(w, "\nWhole run, build included: %s\n", r.elapsed.Round(time.Second))
	return missed
}

func responseNote(e *env, key string) string {
	p, ok := e.probes[key]
	switch {
	case !ok && key == "e-c":
		return "200, one item"
	case !ok:
		return "201, one item"
	case p.encoding == "":
		return fmt.Sprintf("%d B identity", p.wireBytes)
	}
	return fmt.Sprintf("%d B %s", p.wireBytes, p.encoding)
}

// verdicts prints each target beside its ratio and answers how many were
// missed. The gzip variants are reported above but held to no target.
func verdicts(w io.Writer, r *results, b time.Duration) int {
	fmt.Fprintln(w, "\nTargets (issue 34):")
	var v verdict
	b0 := r.cpu["b0"].cpuPerReq()
	for _, k := range []string{"c", "d"} {
		ratio := float64(r.cpu[k].cpuPerReq()) / float64(b)
		v.at(w, ratio <= listGoal, "- %-6s list CPU/request %.2f× (b) (%.2f× (b0)), target ≤ %.1f× (b)", k, ratio,
			float64(r.cpu[k].cpuPerReq())/float64(max(b0, 1)), listGoal)
	}
	d := r.cpu["d"].cpuPerReq()
	for _, k := range []string{"m", "m-bare"} {
		ratio := float64(r.cpu[k].cpuPerReq()) / float64(d)
		v.at(w, ratio <= mcpGoal, "- %-6s CPU/request %.2f× (d) Connect JSON, target ≤ %.1f×", k, ratio, mcpGoal)
	}
	for _, k := range []string{"e", "e-c"} {
		ratio := r.cpu[k].rps() / r.rawTx.rate()
		v.at(w, ratio >= createGoal, "- %-6s creates/s %.2f× (f), target ≥ %.1f×", k, ratio, createGoal)
	}
	if g, h := r.cpu["g"], r.cpu["h"]; g != nil && h != nil {
		ratio := float64(g.cpuPerReq()) / float64(max(h.cpuPerReq(), 1))
		v.at(w, ratio <= protocolGoal, "- g      A2A tasks/get CPU/request %.2f× (h) Connect GetQueueItem, target ≤ %.1f×", ratio, protocolGoal)
	}
	return v.missed
}

// verdict counts the targets missed as it prints them.
type verdict struct{ missed int }

func (v *verdict) at(w io.Writer, ok bool, format string, args ...any) {
	fmt.Fprintf(w, format+": %s\n", append(args, met(ok))...)
	if !ok {
		v.missed++
	}
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
	rest, conn, tx := r.cpu["e"], r.cpu["e-c"], r.tx
	txCPU := tx.CPU / time.Duration(max(tx.Creates, 1))
	fmt.Fprintln(w, "Create against its baseline (f):")
	fmt.Fprintf(w, "- e    REST create: CPU/create %.2f× (f), creates/s %.2f× (f)\n",
		float64(rest.cpuPerReq())/float64(rawCPU), rest.rps()/r.rawTx.rate())
	fmt.Fprintf(w, "- e-c  Connect create: CPU/create %.2f× (f), creates/s %.2f× (f)\n",
		float64(conn.cpuPerReq())/float64(rawCPU), conn.rps()/r.rawTx.rate())
	fmt.Fprintf(w, "- e-tx in-process create: CPU/create %.2f× (f), creates/s %.2f× (f)\n",
		float64(txCPU)/float64(rawCPU), tx.rate()/r.rawTx.rate())
	if lk := r.rawLockedTx; lk.Creates > 0 {
		lkCPU := lk.CPU / time.Duration(lk.Creates)
		fmt.Fprintf(w, "- e    REST create against (f-lk): CPU/create %.2f×, creates/s %.2f×\n",
			float64(rest.cpuPerReq())/float64(lkCPU), rest.rps()/lk.rate())
		fmt.Fprintf(w, "- e-c  Connect create against (f-lk): CPU/create %.2f×, creates/s %.2f×\n",
			float64(conn.cpuPerReq())/float64(lkCPU), conn.rps()/lk.rate())
		fmt.Fprintf(w, "- e-tx in-process create against (f-lk): CPU/create %.2f×, creates/s %.2f×\n",
			float64(txCPU)/float64(lkCPU), tx.rate()/lk.rate())
	}
	fmt.Fprintln(w)
}
