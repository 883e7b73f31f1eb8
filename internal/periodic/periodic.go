// Package periodic runs the timers that fire every period (the board scan
// every 6 hours, the daily learnings and retention, heartbeats) once per
// period across replicas: each timer is a row (ent PeriodicRun) holding its
// next run, run under the timer's lease (internal/timers) and moved on by a
// compare-and-set once the run is done.
// The first period is due one period after the row is first written, so a
// fresh instance does not scan at start.
package periodic

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/periodicrun"
	"github.com/switchboard-hq/switchboard/internal/alarm"
	"github.com/switchboard-hq/switchboard/internal/timers"
)

// Timer is one periodic job.
type Timer struct {
	Name  string        // the row's key, stable across releases
	Every time.Duration // the period
	Run   func(ctx context.Context) error
}

// poll bounds how long a replica sleeps without looking at the row, so
// that it notices another replica's run moved the period on.
const poll = 5 * time.Minute

// Claim answers whether this caller takes the run due at now: true for one
// caller per period across replicas, which moves the row's next run one
// period on; next is when the timer is next due either way.
func Claim(ctx context.Context, c *ent.Client, name string, every time.Duration, now time.Time) (ok bool, next time.Time, err error) {
	row, err := c.PeriodicRun.Get(ctx, name)
	if ent.IsNotFound(err) {
		row, err = first(ctx, c, name, now.Add(every))
	}
	if err != nil {
		return false, time.Time{}, fmt.Errorf("periodic %s: %w", name, err)
	}
	if row.NextAt.After(now) {
		return false, row.NextAt, nil
	}
	next = now.Add(every)
	n, err := c.PeriodicRun.Update().
		Where(periodicrun.ID(name), periodicrun.NextAt(row.NextAt)).
		SetNextAt(next).SetLastRunAt(now).Save(ctx)
	if err != nil {
		return false, time.Time{}, fmt.Errorf("periodic %s: %w", name, err)
	}
	return n == 1, next, nil
}

// first writes name's row, due at next, unless it is there, and answers the
// row: two replicas may write it at once, and the one that loses reads the
// winner's.
func first(ctx context.Context, c *ent.Client, name string, next time.Time) (*ent.PeriodicRun, error) {
	created := c.PeriodicRun.Create().SetID(name).SetNextAt(next).OnConflict().DoNothing().Exec(ctx)
	row, err := c.PeriodicRun.Get(ctx, name)
	if err != nil && created != nil {
		err = errors.Join(created, err)
	}
	return row, err
}

// Durable is t as a durable timer of the registry (internal/timers): each
// pass runs t once the row says a period is due, then moves the row one
// period on, so a replica killed mid-run leaves the period due for the next
// holder of the lease. The row is written before Durable returns, not on the
// loop's first pass, so that nothing is written behind a request's back once
// the server answers.
func Durable(clock clockwork.Clock, c *ent.Client, t Timer, failed func(ctx context.Context, err error)) timers.Timer {
	if _, err := first(context.Background(), c, t.Name, clock.Now().Add(t.Every)); err != nil {
		failed(context.Background(), fmt.Errorf("periodic %s: %w", t.Name, err))
	}
	return timers.Timer{Name: t.Name, Poll: min(poll, t.Every), Pass: func(ctx context.Context) (time.Time, error) {
		now := clock.Now()
		row, err := first(ctx, c, t.Name, now.Add(t.Every))
		if err != nil {
			return time.Time{}, fmt.Errorf("periodic %s: %w", t.Name, err)
		}
		if row.NextAt.After(now) {
			return row.NextAt, nil
		}
		alarm.Fired(ctx)
		if err := t.Run(ctx); err != nil {
			return time.Time{}, err
		}
		_, next, err := Claim(ctx, c, t.Name, t.Every, now)
		return next, err
	}}
}

// Start registers t in set and starts it.
func Start(set *timers.Set, clock clockwork.Clock, c *ent.Client, t Timer, failed func(ctx context.Context, err error)) *alarm.Loop {
	return set.Start(Durable(clock, c, t, failed))
}
