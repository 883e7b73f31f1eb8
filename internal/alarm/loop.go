package alarm

import (
	"context"
	"time"

	"github.com/jonboulle/clockwork"
)

// Loop is a background loop over due rows (a durable timer): each pass does
// what is due and answers when something is next due (zero: nothing waits),
// and the loop sleeps until then, at most poll, or until Wake. The due times
// are rows, so a loop started after a restart does what fell due meanwhile.
type Loop struct {
	alarm *Alarm
	done  chan struct{}
}

// Start runs pass on clock until Close; failed hears a pass's error (not
// one caused by Close).
func Start(clock clockwork.Clock, poll time.Duration, pass func(ctx context.Context) (time.Time, error),
	failed func(ctx context.Context, err error)) *Loop {
	l := &Loop{alarm: New(clock), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			<-l.alarm.Stopped()
			cancel()
		}()
		for ctx.Err() == nil {
			wait := poll
			next, err := pass(ctx)
			if err != nil && ctx.Err() == nil {
				failed(ctx, err)
			}
			if err == nil && !next.IsZero() {
				wait = min(wait, next.Sub(clock.Now()))
			}
			if !l.alarm.Sleep(wait) {
				return
			}
		}
	}()
	return l
}

// Wake makes the loop look again now.
func (l *Loop) Wake() { l.alarm.Wake() }

// Close stops the loop and waits for a pass in progress.
func (l *Loop) Close() {
	if !l.alarm.Stop() {
		return
	}
	<-l.done
}
