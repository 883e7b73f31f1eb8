package engine

import (
	"context"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
)

// Start recovers after a restart and runs the timeout sweep until Stop:
// running executions never sent are sent, free agents with a queue are
// promoted, and running executions past their timeout time out.
func (e *Engine) Start(ctx context.Context) {
	e.bg, e.stop = context.WithCancel(context.WithoutCancel(ctx))
	every := e.SweepEvery
	if every <= 0 {
		every = time.Second
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.Sweep(e.bg)
		t := e.Clock.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-e.bg.Done():
				return
			case <-t.Chan():
				e.Sweep(e.bg)
			}
		}
	}()
}

// Stop ends the sweep and waits for calls in flight.
func (e *Engine) Stop() {
	if e.stop != nil {
		e.stop()
	}
	e.wg.Wait()
}

// Sweep is one pass of recovery and timeouts; exported for tests and
// operators that drive it themselves.
func (e *Engine) Sweep(ctx context.Context) {
	if err := e.sweepTimeouts(ctx); err != nil && ctx.Err() == nil {
		e.log().Error("store executions: timeout sweep", "err", err)
	}
	if err := e.recover(ctx); err != nil && ctx.Err() == nil {
		e.log().Error("store executions: recovery", "err", err)
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

// recover sends running executions that were never sent and promotes the
// queues of free agents.
func (e *Engine) recover(ctx context.Context) error {
	unsent, err := e.DB.Execution.Query().Where(execution.StatusEQ(execution.StatusRunning), execution.DispatchedAtIsNil(),
		execution.PricingPhaseIsNil()).IDs(ctx)
	if err != nil {
		return err
	}
	e.sendAll(unsent)
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
	for _, id := range ids {
		ctx := e.bg
		if ctx == nil {
			ctx = context.Background()
		}
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			if _, err := e.run(ctx, id, false); err != nil && ctx.Err() == nil {
				e.log().Error("store executions: dispatch", "execution", id, "err", err)
			}
		}()
	}
}
