package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

// results are the figures one run produced.
type results struct {
	cpu   map[string]*tally // closed-loop rounds, by variant key
	lat   map[string]tally  // open loop at half capacity
	rate  map[string]float64
	tx    txRun // the create transaction in-process, no HTTP
	rawTx txRun // the same statements with database/sql alone
	// rawLockedTx is rawTx with the server's two per-account locks
	// (PostgreSQL only; zero on SQLite, whose writers queue anyway).
	rawLockedTx txRun
	elapsed     time.Duration
}

func measure(ctx context.Context, e *env, cfg config) (*results, error) {
	c := newClient(max(cfg.workers, cfg.createWorkers))
	r := &results{cpu: map[string]*tally{}, lat: map[string]tally{}, rate: map[string]float64{}}
	for _, t := range e.lists { // warm-up, not counted: connections, page cache, heap size
		if _, err := closedLoop(ctx, t, c, cfg.workers, 300*time.Millisecond, cfg.maxBatchReq); err != nil {
			return nil, err
		}
		r.cpu[t.key] = &tally{}
	}
	if err := cpuRounds(ctx, e.lists, c, cfg, r); err != nil {
		return nil, err
	}
	for _, t := range e.lists {
		if err := halfCapacity(ctx, t, c, r, cfg.latency); err != nil {
			return nil, err
		}
	}
	// Creates last: they grow the tables the list variants read.
	for _, t := range e.creates {
		fmt.Fprintf(os.Stderr, "bench: %s, %d workers for %s\n", t.label, cfg.createWorkers, cfg.createFor)
		ct, err := closedLoop(ctx, t, c, cfg.createWorkers, cfg.createFor, cfg.maxBatchReq)
		if err != nil {
			return nil, err
		}
		r.cpu[t.key] = &ct
		if err := halfCapacity(ctx, t, c, r, cfg.latency); err != nil {
			return nil, err
		}
	}
	var err error
	// The transaction alone, in its own process while the server idles: what
	// the storage path sustains with HTTP, key look-up and rendering set aside.
	fmt.Fprintf(os.Stderr, "bench: create transaction in-process, %d workers for %s\n", cfg.txWorkers, cfg.createFor/2)
	if r.tx, err = runTxCreator(ctx, e.dsn, e.userID, cfg.txWorkers, cfg.createFor/2, "service"); err != nil {
		return nil, err
	}
	// The same statements with database/sql alone, same workers, same length:
	// the yardstick create is reported against, as (b) is for the list.
	fmt.Fprintf(os.Stderr, "bench: raw create baseline, %d workers for %s\n", cfg.txWorkers, cfg.createFor/2)
	if r.rawTx, err = runTxCreator(ctx, e.dsn, e.userID, cfg.txWorkers, cfg.createFor/2, "raw"); err != nil {
		return nil, err
	}
	if strings.HasPrefix(e.dsn, "postgres") {
		fmt.Fprintf(os.Stderr, "bench: raw create baseline with the server's locks, %d workers for %s\n", cfg.txWorkers, cfg.createFor/2)
		if r.rawLockedTx, err = runTxCreator(ctx, e.dsn, e.userID, cfg.txWorkers, cfg.createFor/2, "raw-locked"); err != nil {
			return nil, err
		}
	}
	if r.tx.Errors > 0 || r.rawTx.Errors > 0 || r.rawLockedTx.Errors > 0 {
		return nil, fmt.Errorf("tx-creator: %d failed creates, raw: %d, raw with locks: %d", r.tx.Errors, r.rawTx.Errors, r.rawLockedTx.Errors)
	}
	return r, nil
}

// cpuRounds interleaves the variants: every round runs one batch of each, in
// an order rotated by one each round, so drift (page cache, GC pacing, noisy
// neighbours) spreads over all of them alike.
func cpuRounds(ctx context.Context, ts []*target, c *http.Client, cfg config, r *results) error {
	for round := range cfg.rounds {
		for i := range ts {
			t := ts[(i+round)%len(ts)]
			b, err := closedLoop(ctx, t, c, cfg.workers, cfg.batch, cfg.maxBatchReq)
			if err != nil {
				return err
			}
			r.cpu[t.key].add(b)
		}
		fmt.Fprintf(os.Stderr, "bench: round %d/%d done\n", round+1, cfg.rounds)
	}
	for _, t := range ts {
		if tl := r.cpu[t.key]; tl.errs > 0 {
			return fmt.Errorf("%s: %d failed requests, first: %w", t.label, tl.errs, tl.firstErr)
		}
	}
	return nil
}

// halfCapacity runs t open-loop at half the closed-loop throughput it reached.
func halfCapacity(ctx context.Context, t *target, c *http.Client, r *results, d time.Duration) error {
	rate := r.cpu[t.key].rps() / 2
	r.rate[t.key] = rate
	l, err := openLoop(ctx, t, c, rate, d)
	if err != nil {
		return err
	}
	r.lat[t.key] = l
	return nil
}
