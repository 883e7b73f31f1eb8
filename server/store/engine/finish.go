package engine

import (
	"context"
	"errors"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

func (e *Engine) finish(ctx context.Context, id string, status execution.Status, output *string, reason string) (*Outcome, error) {
	return e.finishTimed(ctx, id, status, output, reason, nil)
}

// finishTimed ends a running execution (see the package doc) and sends the
// next queued one after commit. An execution that already ended is answered
// as it is: a late answer after a timeout changes nothing.
func (e *Engine) finishTimed(ctx context.Context, id string, status execution.Status, output *string, reason string, elapsedMS *int) (*Outcome, error) {
	var next []string
	err := e.DB.InTx(ctx, func(tx *db.Tx) error {
		var err error
		next, err = e.end(ctx, tx, id, status, output, reason, elapsedMS, "")
		return err
	})
	if errors.Is(err, errNotRunning) {
		return e.outcome(ctx, id)
	}
	if err != nil {
		return nil, apperr.Wrap(err)
	}
	e.sendAll(next)
	return e.outcome(ctx, id)
}

// end is finish's transaction body. phase, when set, becomes the
// pricing_phase (a declined quote).
func (e *Engine) end(ctx context.Context, tx *db.Tx, id string, status execution.Status, output *string, reason string, elapsedMS *int, phase string) ([]string, error) {
	ex, err := tx.Execution.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	agentID := store.AgentOf(ex)
	if agentID == "" {
		// Unlinked: its listing was removed, which is refused while it runs.
		return nil, errNotRunning
	}
	if err := e.DB.Serialize(ctx, tx, store.LockKey(agentID)); err != nil {
		return nil, err
	}
	now := e.now()
	if elapsedMS == nil && ex.StartedAt != nil {
		ms := int(now.Sub(*ex.StartedAt).Milliseconds())
		elapsedMS = &ms
	}
	up := tx.Execution.Update().Where(execution.ID(id), execution.StatusEQ(execution.StatusRunning)).
		SetStatus(status).SetFinishedAt(now).SetUpdatedAt(now).ClearQueuePosition().SetNillableOutput(output)
	if elapsedMS != nil {
		up.SetResponseTimeMs(max(*elapsedMS, 0))
	}
	if reason != "" {
		up.SetFailureReason(clipReason(reason))
	}
	if phase != "" {
		up.SetPricingPhase(phase)
	}
	n, err := up.Save(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errNotRunning
	}
	if ex, err = tx.Execution.Get(ctx, id); err != nil {
		return nil, err
	}
	if status != execution.StatusCompleted {
		if ex, err = payments.Release(ctx, tx, e.Payments, ex, now); err != nil {
			return nil, err
		}
	}
	if err := tx.StoreAgent.UpdateOneID(agentID).AddExecutionCount(1).Exec(ctx); err != nil {
		return nil, err
	}
	if err := tx.Publish(ctx, ExecutionFinished{Execution: ex}); err != nil {
		return nil, err
	}
	if _, err := tx.StoreAgent.Update().Where(storeagent.ID(agentID), storeagent.CurrentExecutionID(id)).
		ClearCurrentExecutionID().Save(ctx); err != nil {
		return nil, err
	}
	return e.promote(ctx, tx, agentID)
}

// promote locks the oldest queued execution of a free agent, holds its
// payment, and renumbers the rest; it answers the ids to send after commit.
// One whose payment cannot be held fails and the next is tried.
func (e *Engine) promote(ctx context.Context, tx *db.Tx, agentID string) ([]string, error) {
	agent, err := tx.StoreAgent.Get(ctx, agentID)
	if err != nil {
		return nil, err
	}
	var sent []string
	if agent.CurrentExecutionID == nil {
		for {
			head, err := queue(tx, agentID).First(ctx)
			if ent.IsNotFound(err) {
				break
			} else if err != nil {
				return nil, err
			}
			locked, err := e.tryLock(ctx, tx, agentID, head.ID)
			if err != nil || !locked {
				return nil, err
			}
			now := e.now()
			head, err = head.Update().SetStatus(execution.StatusRunning).SetStartedAt(now).ClearQueuePosition().
				SetUpdatedAt(now).Save(ctx)
			if err != nil {
				return nil, err
			}
			if _, err := e.holdAtDispatch(ctx, tx, agent, head); err != nil {
				var ae *apperr.Error
				if !errors.As(err, &ae) || ae.Kind == apperr.KindInternal {
					return nil, err
				}
				if err := head.Update().SetStatus(execution.StatusFailed).SetFinishedAt(now).
					SetFailureReason(clipReason(ae.Message)).Exec(ctx); err != nil {
					return nil, err
				}
				if _, err := tx.StoreAgent.UpdateOneID(agentID).ClearCurrentExecutionID().Save(ctx); err != nil {
					return nil, err
				}
				continue
			}
			sent = append(sent, head.ID)
			break
		}
	}
	return sent, renumber(ctx, tx, agentID)
}

// queue is an agent's queued executions, FIFO.
func queue(tx *db.Tx, agentID string) *ent.ExecutionQuery {
	return tx.Execution.Query().Where(execution.AgentID(agentID), execution.StatusEQ(execution.StatusQueued)).
		Order(ent.Asc(execution.FieldQueuedAt), ent.Asc(execution.FieldQueuePosition), ent.Asc(execution.FieldID))
}

// renumber gives the queued executions positions 1..n in FIFO order.
func renumber(ctx context.Context, tx *db.Tx, agentID string) error {
	rows, err := queue(tx, agentID).Select(execution.FieldID, execution.FieldQueuePosition).All(ctx)
	if err != nil {
		return err
	}
	for i, r := range rows {
		if r.QueuePosition != nil && *r.QueuePosition == i+1 {
			continue
		}
		if err := tx.Execution.UpdateOneID(r.ID).SetQueuePosition(i + 1).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Requeue makes a new execution for the same requester and input as denied,
// at the back of its agent's queue (a deny queues a new
// execution, no priority boost). It runs in the caller's transaction; call
// Kick with the agent id after commit so a free lock takes it at once. An
// unlinked execution (its listing removed, docs/decisions.md "Federation
// platform routes (issue 14)") is not queued again: it answers nil.
func (e *Engine) Requeue(ctx context.Context, tx *db.Tx, denied *ent.Execution) (*ent.Execution, error) {
	agentID := store.AgentOf(denied)
	if agentID == "" {
		return nil, nil
	}
	if err := e.DB.Serialize(ctx, tx, store.LockKey(agentID)); err != nil {
		return nil, err
	}
	// The listing may have been removed while the lock was awaited.
	if ok, err := tx.StoreAgent.Query().Where(storeagent.ID(agentID)).Exist(ctx); err != nil || !ok {
		return nil, err
	}
	pos, err := tx.Execution.Query().Where(execution.AgentID(agentID), execution.StatusEQ(execution.StatusQueued)).Count(ctx)
	if err != nil {
		return nil, err
	}
	now := e.now()
	c := tx.Execution.Create().SetUserID(denied.UserID).SetAgentID(agentID).SetInput(denied.Input).
		SetIsOwnAgent(denied.IsOwnAgent).SetTaskOrigin(denied.TaskOrigin).SetIsolationMode(denied.IsolationMode).
		SetNillableRequesterName(denied.RequesterName).SetNillableRequesterEmail(denied.RequesterEmail).
		SetNillableCallerInstanceURL(denied.CallerInstanceURL).SetNillableSourceInstanceID(denied.SourceInstanceID).
		SetNillableSourceInstanceName(denied.SourceInstanceName).SetNillableCallbackURL(denied.CallbackURL).
		SetNillableRequesterUserID(denied.RequesterUserID).
		SetNillablePaymentMethodID(denied.PaymentMethodID).
		SetStatus(execution.StatusQueued).SetQueuedAt(now).SetQueuePosition(pos + 1).SetCreatedAt(now).SetUpdatedAt(now)
	if denied.TaskInputs != nil {
		c.SetTaskInputs(denied.TaskInputs)
	}
	again, err := c.Save(ctx)
	if err != nil {
		return nil, err
	}
	return again, e.created(ctx, tx, again)
}

// Kick promotes agentID's queue when its lock is free and sends the
// promoted execution; a no-op otherwise.
func (e *Engine) Kick(ctx context.Context, agentID string) error {
	var next []string
	err := e.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := e.DB.Serialize(ctx, tx, store.LockKey(agentID)); err != nil {
			return err
		}
		var err error
		next, err = e.promote(ctx, tx, agentID)
		return err
	})
	if err != nil {
		return err
	}
	e.sendAll(next)
	return nil
}

// Capture takes ex's held payment (the review's confirm) in tx.
func (e *Engine) Capture(ctx context.Context, tx *db.Tx, ex *ent.Execution) (*ent.Execution, error) {
	return payments.Capture(ctx, tx, e.Payments, ex, e.now())
}

// Release gives ex's held payment back (the review's deny) in tx; without a
// hold it answers ex unchanged.
func (e *Engine) Release(ctx context.Context, tx *db.Tx, ex *ent.Execution) (*ent.Execution, error) {
	return payments.Release(ctx, tx, e.Payments, ex, e.now())
}
