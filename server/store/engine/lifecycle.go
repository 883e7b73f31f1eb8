package engine

import (
	"context"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/internal/timers"
)

// SweepTimer is the sweep's name in the timers' registry.
const SweepTimer = "store_executions"

// Start recovers after a restart and runs the timeout sweep in set until
// Stop: running executions never sent are sent, free agents with a queue are
// promoted, and running executions past their timeout time out.
func (e *Engine) Start(ctx context.Context, set *timers.Set) {
	e.bg, e.stop = context.WithCancel(context.WithoutCancel(ctx))
	every := e.SweepEvery
	if every <= 0 {
		every = time.Second
	}
	var recovered bool
	e.sweeper = set.Start(timers.Timer{Name: SweepTimer, Poll: every, Pass: func(ctx context.Context) (time.Time, error) {
		if !recovered {
			recovered = true
			// Only on this process's first pass: nothing of it is in flight
			// yet, so a running execution never sent is one a stopped
			// process left.
			if err := e.resend(e.bg); err != nil && e.bg.Err() == nil {
				e.log().Error("store executions: recovery", "err", err)
			}
		}
		e.Sweep(ctx)
		return time.Time{}, nil
	}})
}

// Stop ends the sweep and waits for calls in flight.
func (e *Engine) Stop() {
	if e.sweeper != nil {
		e.sweeper.Close()
	}
	if e.stop != nil {
		e.stop()
	}
	e.wg.Wait()
}

// Sweep is one pass: timeouts, then the queues of free agents; exported for
// tests and operators that drive it themselves.
func (e *Engine) Sweep(ctx context.Context) {
	if err := e.sweepTimeouts(ctx); err != nil && ctx.Err() == nil {
		e.log().Error("store executions: timeout sweep", "err", err)
	}
	if err := e.promoteFree(ctx); err != nil && ctx.Err() == nil {
		e.log().Error("store executions: queue promotion", "err", err)
	}
}

func (e *Engine) sweepTimeouts(ctx context.Context) error {
	running, err := e.DB.Execution.Query().Where(execution.StatusEQ(execution.StatusRunning), execution.StartedAtNotNil()).
		WithStoreAgent(func(q *ent.StoreAgentQuery) { q.Select(storeagent.FieldID, storeagent.FieldExecutionTimeout) }).
		All(ctx)
	if err != nil {
		return err
	}
	now := e.now()
	for _, ex := range running {
		a := ex.Edges.StoreAgent
		if a == nil || now.Before(ex.StartedAt.Add(time.Duration(a.ExecutionTimeout)*time.Second)) {
			continue
		}
		if _, err := e.finish(ctx, ex.ID, execution.StatusTimeout, nil,
			"the execution passed its executionTimeout of "+(time.Duration(a.ExecutionTimeout)*time.Second).String()); err != nil {
			return err
		}
	}
	return nil
}

// resend sends running executions that took the lock but were never sent
// (including an approved quote's real run).
func (e *Engine) resend(ctx context.Context) error {
	unsent, err := e.DB.Execution.Query().Where(execution.StatusEQ(execution.StatusRunning), execution.DispatchedAtIsNil(),
		execution.Or(execution.PricingPhaseIsNil(), execution.PricingPhaseEQ(PhaseApproved))).IDs(ctx)
	if err != nil {
		return err
	}
	e.sendAll(unsent)
	return nil
}

// promoteFree promotes the queues of agents whose lock is free (a Requeue
// nobody kicked, or a promotion lost with a stopped process).
func (e *Engine) promoteFree(ctx context.Context) error {
	free, err := e.DB.Execution.Query().Where(execution.StatusEQ(execution.StatusQueued),
		execution.HasStoreAgentWith(storeagent.CurrentExecutionIDIsNil())).
		Unique(true).Select(execution.FieldAgentID).Strings(ctx)
	if err != nil {
		return err
	}
	for _, id := range free {
		if err := e.Kick(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// sendAll sends executions in the background, on the engine's context (so
// Stop waits for them).
func (e *Engine) sendAll(ids []string) {
	e.sendAllIn(context.Background(), ids)
}

// sendAllIn is sendAll in the trace of from, if it has one.
func (e *Engine) sendAllIn(from context.Context, ids []string) {
	for _, id := range ids {
		ctx := e.bg
		if ctx == nil {
			ctx = context.Background()
		}
		ctx = traced(from, ctx)
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			if _, err := e.run(ctx, id, false); err != nil && ctx.Err() == nil {
				e.log().Error("store executions: dispatch", "execution", id, "err", err)
			}
		}()
	}
}
