package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// target is one variant: how to build its request and whose CPU it costs.
type target struct {
	key    string // short name in the table
	label  string
	proc   *proc
	method string
	path   string
	body   []byte // nil for GET; a fresh reader per request
	header http.Header
	want   int
	// bodyFn, when set, gives a distinct body per request (creates).
	bodyFn func(n int64) []byte
	seq    atomic.Int64
}

// newClient is a pooled keep-alive client that never adds or strips
// compression by itself, so each variant's Accept-Encoding is exactly its own.
// Connections per server are capped: in the open loop a burst then waits for a
// connection (and the wait counts as latency) instead of opening and closing
// new ones, which would measure TCP set-up rather than the handler.
func newClient(workers int) *http.Client {
	tr := &http.Transport{
		MaxConnsPerHost:     4 * workers,
		MaxIdleConns:        4 * workers * 4,
		MaxIdleConnsPerHost: 4 * workers,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// do sends one request and drains the answer; it returns the body length.
func (t *target) do(ctx context.Context, c *http.Client) (int, error) {
	body := t.body
	if t.bodyFn != nil {
		body = t.bodyFn(t.seq.Add(1))
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, t.method, t.proc.url+t.path, rd)
	if err != nil {
		return 0, err
	}
	for k, v := range t.header {
		req.Header[k] = v
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if err != nil {
		return 0, err
	}
	if res.StatusCode != t.want {
		return 0, fmt.Errorf("%s: status %d", t.key, res.StatusCode)
	}
	return int(n), nil
}

// tally accumulates one variant's batches.
type tally struct {
	ok, errs int64
	wall     time.Duration
	cpu      time.Duration
	lat      []time.Duration
	firstErr error
}

func (t *tally) add(b tally) {
	t.ok += b.ok
	t.errs += b.errs
	t.wall += b.wall
	t.cpu += b.cpu
	t.lat = append(t.lat, b.lat...)
	if t.firstErr == nil {
		t.firstErr = b.firstErr
	}
}

func (t *tally) rps() float64 { return float64(t.ok) / t.wall.Seconds() }

func (t *tally) cpuPerReq() time.Duration {
	if t.ok == 0 {
		return 0
	}
	return t.cpu / time.Duration(t.ok)
}

// settle lets the server finish trailing work of a batch before its CPU is read.
const settle = 30 * time.Millisecond

// closedLoop runs workers back to back for d (at most maxReq requests) and
// charges the server process's CPU delta to the batch.
func closedLoop(ctx context.Context, t *target, c *http.Client, workers int, d time.Duration, maxReq int64) (tally, error) {
	cpu0, err := t.proc.cpu()
	if err != nil {
		return tally{}, err
	}
	var (
		mu    sync.Mutex
		out   tally
		count atomic.Int64
		wg    sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local tally
			for time.Now().Before(deadline) && ctx.Err() == nil && count.Add(1) <= maxReq {
				t0 := time.Now()
				if _, err := t.do(ctx, c); err != nil {
					local.errs++
					if local.firstErr == nil {
						local.firstErr = err
					}
					continue
				}
				local.ok++
				local.lat = append(local.lat, time.Since(t0))
			}
			mu.Lock()
			out.add(local)
			mu.Unlock()
		}()
	}
	wg.Wait()
	out.wall = time.Since(start)
	time.Sleep(settle)
	cpu1, err := t.proc.cpu()
	if err != nil {
		return tally{}, err
	}
	out.cpu = cpu1 - cpu0
	return out, ctx.Err()
}

// openLoop sends at a fixed rate for d, whatever the answers do, and measures
// each latency from the request's scheduled time, so queueing behind a slow
// answer counts (no coordinated omission). In-flight requests are capped.
func openLoop(ctx context.Context, t *target, c *http.Client, rate float64, d time.Duration) (tally, error) {
	rate = max(rate, 1)
	n := max(int(rate*d.Seconds()), 1)
	interval := time.Duration(float64(time.Second) / rate)
	lat := make([]time.Duration, n)
	failed := make([]bool, n)
	sem := make(chan struct{}, 512)
	var wg sync.WaitGroup
	start := time.Now()
	sent := 0
	for i := 0; i < n && ctx.Err() == nil; i++ {
		at := start.Add(time.Duration(i) * interval)
		if w := time.Until(at); w > 0 {
			time.Sleep(w)
		}
		sem <- struct{}{}
		wg.Add(1)
		sent++
		go func() {
			defer func() { <-sem; wg.Done() }()
			if _, err := t.do(ctx, c); err != nil {
				failed[i] = true
			}
			lat[i] = time.Since(at)
		}()
	}
	wg.Wait()
	var out tally
	out.wall = time.Since(start)
	for i := range sent {
		if failed[i] {
			out.errs++
			continue
		}
		out.ok++
		out.lat = append(out.lat, lat[i])
	}
	return out, ctx.Err()
}

// percentile of sorted latencies, nearest rank.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func p50p99(lat []time.Duration) (time.Duration, time.Duration) {
	s := slices.Clone(lat)
	slices.Sort(s)
	return percentile(s, 0.50), percentile(s, 0.99)
}
