// Package timers runs the durable timers (review windows, the outbox's
// retries, heartbeats, digests, scans, renewals, auctions) so that each fires
// once across replicas (RULINGS "Replicas and operations"). Every timer is
// registered in one Set under a stable name; its due work is rows, and a pass
// runs only under the timer's lease, a row of timer_leases that one replica
// holds at a time. A pass renews its lease while it runs and releases it when
// it ends; a replica killed mid-pass stops renewing, so another takes the
// work once the lease lapses (at most --timer-lease later). Draining releases
// every lease at once. Leases are taken on SQLite too: one process owns a
// SQLite file in production, but two servers on one file (tests) still fire
// each timer once.
package timers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/timerlease"
	"github.com/switchboard-hq/switchboard/internal/alarm"
)

// DefaultLease is --timer-lease's default.
const DefaultLease = 10 * time.Second

// Timer is one durable timer.
type Timer struct {
	// Name is the timer's key, stable across releases.
	Name string
	// Poll is the longest the timer sleeps without looking at its rows
	// (rows another replica wrote wake no loop here).
	Poll time.Duration
	// Pass does what is due and answers when something is next due (zero:
	// nothing waits). It runs under the lease: one replica at a time.
	Pass func(ctx context.Context) (time.Time, error)
}

// Config is what a Set needs.
type Config struct {
	DB     *ent.Client
	Clock  clockwork.Clock
	Logger *slog.Logger
	// Holder names this replica in the leases it holds.
	Holder string
	// Lease is how long a lease lasts unless renewed; DefaultLease when zero.
	Lease time.Duration
}

// Set is the registry of a process's timers.
type Set struct {
	cfg Config

	mu    sync.Mutex
	loops map[string]*alarm.Loop
	// own are timers that run their own loop and claim each due row
	// themselves (the outbox's dispatcher): registered, not leased.
	own    map[string]bool
	closed bool
	// running are the contexts of passes in flight, by timer, so Drain can
	// end them.
	running map[string]context.CancelFunc
	// passes counts the passes this replica ran, by timer.
	passes map[string]int64
	// yielded counts the passes this replica did not run because another
	// holder's lease was live, by timer.
	yielded map[string]int64
}

// New makes an empty Set.
func New(cfg Config) *Set {
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Set{cfg: cfg, loops: map[string]*alarm.Loop{}, own: map[string]bool{}, running: map[string]context.CancelFunc{}, passes: map[string]int64{},
		yielded: map[string]int64{}}
}

// Lease is the lease's length.
func (s *Set) Lease() time.Duration { return s.cfg.Lease }

// Start registers t and starts its loop; the loop is closed by the Set's
// Close (or the answer's Close). A name registered twice panics: two loops
// under one lease would take turns, hiding the mistake.
func (s *Set) Start(t Timer) *alarm.Loop {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.loops[t.Name]; dup || s.own[t.Name] {
		panic(fmt.Sprintf("timers: %q registered twice", t.Name))
	}
	if t.Poll <= 0 {
		t.Poll = time.Hour
	}
	l := alarm.Start(s.cfg.Clock, t.Poll, s.guarded(t), func(ctx context.Context, err error) {
		s.cfg.Logger.ErrorContext(ctx, "timer pass failed", "timer", t.Name, "error", err)
	})
	s.loops[t.Name] = l
	return l
}

// Own registers a timer that runs its own loop and claims each due row
// with a lease of its own (the outbox's dispatcher, whose rows are claimed
// one by one so that several replicas send at once).
func (s *Set) Own(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.loops[name]; dup || s.own[name] {
		panic(fmt.Sprintf("timers: %q registered twice", name))
	}
	s.own[name] = true
}

// Fires is how many passes of the named timer did work on this replica
// (a pass says so with alarm.Fired): the metrics' timers_fired_total. A
// timer registered with Own counts its own.
func (s *Set) Fires(name string) uint64 {
	s.mu.Lock()
	l := s.loops[name]
	s.mu.Unlock()
	if l == nil {
		return 0
	}
	return l.Fires()
}

// Owns answers whether name runs its own loop (registered with Own).
func (s *Set) Owns(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.own[name]
}

// Names are the registered timers, sorted.
func (s *Set) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.loops)+len(s.own))
	for n := range s.loops {
		names = append(names, n)
	}
	for n := range s.own {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Wake makes the named timer look again now (no-op for an unknown name).
func (s *Set) Wake(name string) {
	s.mu.Lock()
	l := s.loops[name]
	s.mu.Unlock()
	if l != nil {
		l.Wake()
	}
}

// Drain stops every loop, ending passes in flight, and releases the leases
// this replica holds, so another replica takes the work at once. It is
// Close under another name: a drained Set runs nothing again.
func (s *Set) Drain() { s.Close() }

// Close stops every loop and releases this replica's leases.
func (s *Set) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	loops := make([]*alarm.Loop, 0, len(s.loops))
	for _, l := range s.loops {
		loops = append(loops, l)
	}
	for _, cancel := range s.running {
		cancel()
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, l := range loops {
		wg.Go(l.Close)
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Each pass releases its own lease; this catches one whose release
	// failed (the database was away for a moment).
	if _, err := s.cfg.DB.TimerLease.Update().Where(timerlease.Holder(s.cfg.Holder)).
		SetHolder("").SetUntil(s.cfg.Clock.Now().UTC()).Save(ctx); err != nil {
		s.cfg.Logger.Warn("timers: releasing leases", "error", err)
	}
}

// guarded is t's pass under its lease.
func (s *Set) guarded(t Timer) func(ctx context.Context) (time.Time, error) {
	return func(ctx context.Context) (time.Time, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if !s.begin(t.Name, cancel) {
			return time.Time{}, nil
		}
		defer s.end(t.Name)
		held, until, err := s.acquire(ctx, t.Name)
		if err == nil && !held {
			s.yield(t.Name)
		}
		if err != nil || !held {
			// Look again when the holder's lease lapses.
			return until, err
		}
		stop := s.renew(ctx, cancel, t.Name)
		next, err := t.Pass(ctx)
		stop()
		s.fired(t.Name)
		if rerr := s.release(t.Name); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return next, err
	}
}

func (s *Set) begin(name string, cancel context.CancelFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.running[name] = cancel
	return true
}

func (s *Set) end(name string) {
	s.mu.Lock()
	delete(s.running, name)
	s.mu.Unlock()
}

// Passes is how many passes of the named timer this replica has run.
func (s *Set) Passes(name string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.passes[name]
}

// Yielded is how many times this replica found the named timer's lease
// held by another and ran no pass.
func (s *Set) Yielded(name string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.yielded[name]
}

func (s *Set) yield(name string) {
	s.mu.Lock()
	s.yielded[name]++
	s.mu.Unlock()
}

func (s *Set) fired(name string) {
	s.mu.Lock()
	s.passes[name]++
	s.mu.Unlock()
}

// acquire takes name's lease if it is free, lapsed or this replica's, and
// answers whether it did; when not, until is when the holder's lease lapses.
func (s *Set) acquire(ctx context.Context, name string) (held bool, until time.Time, err error) {
	now := s.cfg.Clock.Now().UTC()
	take := func() (int, error) {
		return s.cfg.DB.TimerLease.Update().
			Where(timerlease.ID(name), timerlease.Or(timerlease.Holder(""), timerlease.Holder(s.cfg.Holder), timerlease.UntilLTE(now))).
			SetHolder(s.cfg.Holder).SetUntil(now.Add(s.cfg.Lease)).AddPasses(1).Save(ctx)
	}
	n, err := take()
	if err == nil && n == 0 {
		// Held elsewhere, or no replica has written the row yet: write it
		// (a concurrent writer's row is as good) and take again. ent answers
		// an error for "nothing inserted" on some engines; a row truly
		// missing shows in the Get below.
		_ = s.cfg.DB.TimerLease.Create().SetID(name).SetUntil(now).OnConflict().DoNothing().Exec(ctx)
		n, err = take()
	}
	if err != nil {
		return false, time.Time{}, fmt.Errorf("timers: lease %s: %w", name, err)
	}
	if n == 1 {
		return true, time.Time{}, nil
	}
	row, err := s.cfg.DB.TimerLease.Get(ctx, name)
	if err != nil {
		return false, time.Time{}, fmt.Errorf("timers: lease %s: %w", name, err)
	}
	return false, row.Until, nil
}

// renew extends name's lease every third of a lease while the pass runs;
// a lease lost (the database says another holds it) ends the pass.
func (s *Set) renew(ctx context.Context, cancel context.CancelFunc, name string) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := s.cfg.Clock.NewTicker(s.cfg.Lease / 3)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.Chan():
			}
			now := s.cfg.Clock.Now().UTC()
			n, err := s.cfg.DB.TimerLease.Update().Where(timerlease.ID(name), timerlease.Holder(s.cfg.Holder)).
				SetUntil(now.Add(s.cfg.Lease)).Save(ctx)
			if err == nil && n == 0 {
				s.cfg.Logger.Warn("timers: lease lost mid-pass; ending the pass", "timer", name)
				cancel()
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// release frees name's lease at once.
func (s *Set) release(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := s.cfg.DB.TimerLease.Update().Where(timerlease.ID(name), timerlease.Holder(s.cfg.Holder)).
		SetHolder("").SetUntil(s.cfg.Clock.Now().UTC()).Save(ctx)
	if err != nil {
		return fmt.Errorf("timers: release %s: %w", name, err)
	}
	return nil
}
