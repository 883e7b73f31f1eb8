// Package alarm is the sleep of a background loop that looks for due rows
// (the webhook dispatcher, the store's review timer): it sleeps on the injected
// clock until the next row is due, until something asks it to look again now,
// or until it is stopped.
package alarm

import (
	"time"

	"github.com/jonboulle/clockwork"
)

// Alarm wakes one loop. Wake and Stop may be called from any goroutine.
type Alarm struct {
	clock clockwork.Clock
	wake  chan struct{}
	stop  chan struct{}
}

// New is an alarm sleeping on clock.
func New(clock clockwork.Clock) *Alarm {
	return &Alarm{clock: clock, wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

// Wake ends the current or next Sleep early; wakes that come while one is
// pending fold into it.
func (a *Alarm) Wake() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// Stop stops the alarm: Sleep reports false from then on. It reports whether
// this call stopped it (false when it was stopped already).
func (a *Alarm) Stop() bool {
	select {
	case <-a.stop:
		return false
	default:
	}
	close(a.stop)
	return true
}

// Stopped is closed once Stop is called.
func (a *Alarm) Stopped() <-chan struct{} { return a.stop }

// Sleep waits for d on the clock, a Wake, or Stop, and reports false when the
// alarm was stopped. A d of zero or less returns at once, true: the loop looks
// again without sleeping.
func (a *Alarm) Sleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := a.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-a.stop:
		return false
	case <-a.wake:
	case <-t.Chan():
	}
	return true
}
