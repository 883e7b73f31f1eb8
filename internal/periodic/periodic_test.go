package periodic_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/internal/periodic"
	"github.com/switchboard-hq/switchboard/internal/timers"
)

// Two replicas on one database (two handles, as two processes hold): of
// their claims on each due period exactly one runs it, and nothing runs
// before the first period has passed.
func TestOnePeriodOneRun(t *testing.T) {
	ctx := context.Background()
	dsn := dbtest.DSN(t)
	var handles []*db.DB
	for range 2 {
		d, err := db.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = d.Close() })
		handles = append(handles, d)
	}
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	claims := func(now time.Time) int32 {
		var won atomic.Int32
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, _, err := periodic.Claim(ctx, handles[i%2].Client, "scan", 6*time.Hour, now)
				if err != nil {
					t.Error(err)
				}
				if ok {
					won.Add(1)
				}
			}()
		}
		wg.Wait()
		return won.Load()
	}
	if n := claims(start); n != 0 {
		t.Fatalf("a fresh timer ran %d times at once", n)
	}
	if n := claims(start.Add(6*time.Hour - time.Second)); n != 0 {
		t.Fatalf("ran %d times before its period", n)
	}
	if n := claims(start.Add(6 * time.Hour)); n != 1 {
		t.Fatalf("the due period ran %d times, want once", n)
	}
	if n := claims(start.Add(6*time.Hour + time.Minute)); n != 0 {
		t.Fatalf("the same period ran again %d times", n)
	}
}

// The loop runs the job once each period on the injected clock.
func TestLoopRunsEachPeriod(t *testing.T) {
	d := dbtest.Open(t)
	clock := clockwork.NewFakeClockAt(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	ran := make(chan struct{}, 4)
	set := timers.New(timers.Config{DB: d.Client, Clock: clock, Holder: "test"})
	defer set.Close()
	loop := periodic.Start(set, clock, d.Client, periodic.Timer{Name: "daily", Every: 24 * time.Hour, Run: func(context.Context) error {
		ran <- struct{}{}
		return nil
	}}, func(_ context.Context, err error) { t.Error(err) })
	defer loop.Close()
	for day := 1; day <= 2; day++ {
		// Advance in steps the loop sleeps through until the day is due.
		deadline := time.After(10 * time.Second)
		for done := false; !done; {
			_ = clock.BlockUntilContext(context.Background(), 1)
			clock.Advance(time.Hour)
			select {
			case <-ran:
				done = true
			case <-deadline:
				t.Fatalf("day %d did not run", day)
			default:
			}
		}
	}
	select {
	case <-ran:
		t.Fatal("ran more than once a day")
	default:
	}
}
