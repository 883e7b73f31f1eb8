package alarm

import (
	"context"
	"sync/atomic"
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
	fires Fires
}

// Fires counts a timer's passes that found something due and did it, for
// the metrics (switchboard_timers_fired_total); the zero value is ready.
type Fires struct{ n atomic.Uint64 }

// Add counts one pass that did work.
func (f *Fires) Add() { f.n.Add(1) }

// Count is how many passes did work so far.
func (f *Fires) Count() uint64 { return f.n.Load() }

type firesKey struct{}

// Fired tells the loop running the pass in ctx that this pass found
// something due and did it (a pass that only looked does not call it). Out
// of a loop's pass it does nothing.
func Fired(ctx context.Context) {
	if f, ok := ctx.Value(firesKey{}).(*Fires); ok {
		f.Add()
	}
}

// Fires is how many of the loop's passes did work (Fired).
func (l *Loop) Fires() uint64 { return l.fires.Count() }

// Start runs pass on clock until Close; failed hears a pass's error (not
// one caused by Close).
func Start(clock clockwork.Clock, poll time.Duration, pass func(ctx context.Context) (time.Time, error),
	failed func(ctx context.Context, err error)) *Loop {
	l := &Loop{alarm: New(clock), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		ctx, cancel := context.WithCancel(context.WithValue(context.Background(), firesKey{}, &l.fires))
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
