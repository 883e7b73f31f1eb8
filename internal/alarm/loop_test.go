package alarm

import (
	"context"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
)

// A loop counts the passes that say they did work (the metrics'
// timers_fired_total), not those that only looked; Fired outside a loop's
// pass counts nowhere.
func TestLoopCountsFires(t *testing.T) {
	Fired(context.Background())
	passes := make(chan int)
	n := 0
	l := Start(clockwork.NewFakeClock(), time.Hour, func(ctx context.Context) (time.Time, error) {
		n++
		if n%2 == 0 {
			Fired(ctx)
		}
		select {
		case passes <- n:
		case <-ctx.Done(): // closed: the test has read its passes
		}
		return time.Time{}, nil
	}, func(context.Context, error) {})
	defer l.Close()
	for want := 1; want <= 4; want++ {
		if got := <-passes; got != want {
			t.Fatalf("pass %d, want %d", got, want)
		}
		if f := l.Fires(); f != uint64(want/2) {
			t.Fatalf("after pass %d: %d fires, want %d", want, f, want/2)
		}
		l.Wake()
	}
}
