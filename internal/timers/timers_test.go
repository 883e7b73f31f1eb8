package timers_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/internal/timers"
)

const lease = 10 * time.Second

// replicas are three Sets on one database, as three processes would be.
func replicas(t *testing.T, clock clockwork.Clock) []*timers.Set {
	t.Helper()
	d := dbtest.Open(t)
	sets := make([]*timers.Set, 3)
	for i := range sets {
		sets[i] = timers.New(timers.Config{DB: d.Client, Clock: clock, Holder: fmt.Sprintf("replica-%d", i), Lease: lease})
		t.Cleanup(sets[i].Close)
	}
	return sets
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Three replicas woken at once run one pass at a time, and every due item
// of the timer is taken once.
func TestOnePassAtATimeAcrossReplicas(t *testing.T) {
	clock := clockwork.NewFakeClock()
	sets := replicas(t, clock)
	var (
		mu      sync.Mutex
		due     = 60
		taken   = map[int]int{}
		running atomic.Int32
		overlap atomic.Bool
	)
	pass := func(ctx context.Context) (time.Time, error) {
		if running.Add(1) > 1 {
			overlap.Store(true)
		}
		defer running.Add(-1)
		mu.Lock()
		item := due
		if item > 0 {
			due--
		}
		mu.Unlock()
		if item > 0 {
			time.Sleep(time.Millisecond) // long enough for another replica to try
			mu.Lock()
			taken[item]++
			mu.Unlock()
		}
		return time.Time{}, nil
	}
	loops := make([]interface{ Wake() }, len(sets))
	for i, s := range sets {
		loops[i] = s.Start(timers.Timer{Name: "items", Poll: time.Hour, Pass: pass})
	}
	eventually(t, "every item taken", func() bool {
		for _, l := range loops {
			l.Wake()
		}
		// A replica that found the lease held sleeps until it lapses; the
		// Wake ends that sleep. The clock stands still, so no lease lapses
		// under a pass that a loaded machine makes slow.
		mu.Lock()
		defer mu.Unlock()
		return len(taken) == 60
	})
	mu.Lock()
	defer mu.Unlock()
	if overlap.Load() {
		t.Fatal("two replicas ran a pass at once")
	}
	for item, n := range taken {
		if n != 1 {
			t.Fatalf("item %d taken %d times", item, n)
		}
	}
	if len(taken) != 60 {
		t.Fatalf("%d items taken, want 60", len(taken))
	}
}

// A replica killed mid-pass leaves its lease row as it was and never renews
// it: the others wait for it to lapse, then one of them takes the work.
func TestAKilledHolderHandsOverAfterItsLease(t *testing.T) {
	clock := clockwork.NewFakeClock()
	d := dbtest.Open(t)
	d.Client.TimerLease.Create().SetID("job").SetHolder("killed").SetUntil(clock.Now().UTC().Add(lease)).SaveX(t.Context())
	set := timers.New(timers.Config{DB: d.Client, Clock: clock, Holder: "alive", Lease: lease})
	defer set.Close()
	var ran atomic.Int32
	set.Start(timers.Timer{Name: "job", Poll: time.Hour, Pass: func(context.Context) (time.Time, error) {
		ran.Add(1)
		return time.Time{}, nil
	}})
	// The loop looked, found the lease held, and sleeps until it lapses.
	if err := clock.BlockUntilContext(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(lease - time.Second)
	if err := clock.BlockUntilContext(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	if ran.Load() != 0 {
		t.Fatal("ran while another replica's lease was held")
	}
	if n := set.Yielded("job"); n != 1 {
		t.Fatalf("yielded %d times to the held lease, want 1 (one look, then asleep until it lapses)", n)
	}
	clock.Advance(time.Second)
	eventually(t, "the pass after the lease lapsed", func() bool { return ran.Load() == 1 })
	// The lease is released once the pass has returned, a moment after it
	// counted itself.
	var row *ent.TimerLease
	eventually(t, "the lease released after the pass", func() bool {
		row = d.Client.TimerLease.GetX(t.Context(), "job")
		return row.Holder == ""
	})
	if row.Passes != 1 || ran.Load() != 1 {
		t.Fatalf("after the pass: %d passes recorded, %d run", row.Passes, ran.Load())
	}
}

// Draining a replica ends its pass in flight and releases the lease at
// once: another replica runs without waiting for the lease to lapse.
func TestDrainReleasesTheLeaseAtOnce(t *testing.T) {
	clock := clockwork.NewFakeClock()
	sets := replicas(t, clock)
	entered := make(chan struct{})
	sets[0].Start(timers.Timer{Name: "job", Poll: time.Hour, Pass: func(ctx context.Context) (time.Time, error) {
		close(entered)
		<-ctx.Done() // a long pass: only the drain ends it
		return time.Time{}, ctx.Err()
	}})
	<-entered
	var ran atomic.Int32
	other := sets[1].Start(timers.Timer{Name: "job", Poll: time.Hour, Pass: func(context.Context) (time.Time, error) {
		ran.Add(1)
		return time.Time{}, nil
	}})
	sets[0].Drain()
	// No clock moves: the lease was released, not left to lapse.
	eventually(t, "the other replica's pass", func() bool {
		other.Wake()
		return ran.Load() >= 1
	})
}

// A pass whose lease another replica took (its holder was thought dead)
// is ended, so two passes never go on together for long.
func TestALostLeaseEndsThePass(t *testing.T) {
	clock := clockwork.NewFakeClock()
	d := dbtest.Open(t)
	set := timers.New(timers.Config{DB: d.Client, Clock: clock, Holder: "slow", Lease: lease})
	defer set.Close()
	entered, ended := make(chan struct{}), make(chan struct{})
	set.Start(timers.Timer{Name: "job", Poll: time.Hour, Pass: func(ctx context.Context) (time.Time, error) {
		close(entered)
		<-ctx.Done()
		close(ended)
		return time.Time{}, nil
	}})
	<-entered
	d.Client.TimerLease.UpdateOneID("job").SetHolder("other").ExecX(t.Context())
	select {
	case <-ended:
		t.Fatal("the pass ended before its renewal found the lease lost")
	default:
	}
	// The renewal ticks every third of a lease.
	eventually(t, "the pass ended", func() bool {
		clock.Advance(lease / 3)
		select {
		case <-ended:
			return true
		default:
			return false
		}
	})
}

// The registry knows every timer once.
func TestRegistryNamesEachTimerOnce(t *testing.T) {
	clock := clockwork.NewFakeClock()
	d := dbtest.Open(t)
	set := timers.New(timers.Config{DB: d.Client, Clock: clock, Holder: "only"})
	defer set.Close()
	idle := func(context.Context) (time.Time, error) { return time.Time{}, nil }
	set.Start(timers.Timer{Name: "b", Pass: idle})
	set.Own("a")
	if got := fmt.Sprint(set.Names()); got != "[a b]" {
		t.Fatalf("names %s", got)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a name registered twice was accepted")
		}
	}()
	set.Start(timers.Timer{Name: "a", Pass: idle})
}
