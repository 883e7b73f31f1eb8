package engine

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// Decide approves or declines a quoted price of the caller's execution.
// Approve holds the quoted amount (unless the owner runs their own agent)
// and sends the real run, answering its outcome; decline ends the execution
// failed with pricing_phase declined, nothing charged, and the lock passes
// to the next queued execution.
func (e *Engine) Decide(ctx context.Context, userID, agentID, executionID, action, methodID string) (*Outcome, error) {
	if action != "approve" && action != "decline" {
		return nil, apperr.OneOf("action", action, vocab.Values("quote_action"))
	}
	if executionID == "" {
		return nil, apperr.Invalid("executionId is required")
	}
	var method string
	if action == "approve" || methodID != "" {
		var err error
		if method, err = e.Payments.Method(ctx, nil, userID, methodID); err != nil {
			return nil, methodError(err)
		}
	}
	var next []string
	err := e.DB.InTx(ctx, func(tx *db.Tx) error {
		// The listing's lock first, so the state read below is current
		// (a sweep's timeout or another decision may be finishing it).
		if err := e.DB.Serialize(ctx, tx, store.LockKey(agentID)); err != nil {
			return err
		}
		ex, err := tx.Execution.Query().Where(execution.ID(executionID), execution.UserID(userID), execution.AgentID(agentID)).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFound("execution %q not found among your executions of agent %q", executionID, agentID)
		} else if err != nil {
			return err
		}
		if ex.Status != execution.StatusRunning || ex.PricingPhase == nil || *ex.PricingPhase != PhaseQuoted {
			return apperr.IllegalMove("execution %q has no quote waiting for a decision (status %s)", ex.ID, ex.Status)
		}
		if action == "decline" {
			next, err = e.end(ctx, tx, ex.ID, execution.StatusFailed, nil, "the requester declined the quoted price", nil, PhaseDeclined)
			return err
		}
		now := e.now()
		// dispatched_at cleared: the real run is not sent yet, and a restart
		// before it is sent sends it (recover).
		ex, err = ex.Update().SetPricingPhase(PhaseApproved).ClearDispatchedAt().SetUpdatedAt(now).Save(ctx)
		if err != nil || ex.IsOwnAgent {
			return err
		}
		agent, err := tx.StoreAgent.Get(ctx, agentID)
		if err != nil {
			return err
		}
		// An unlocked agent's quotes are not charged either.
		if unlocked, err := store.Unlocked(ctx, tx.Client(), userID, agentID); err != nil || unlocked {
			return err
		}
		cur := agent.Currency
		if ex.QuoteCurrency != nil && *ex.QuoteCurrency != "" {
			cur = *ex.QuoteCurrency
		}
		r := payments.Split(*ex.QuoteAmount, store.StoreFeePercent, cur)
		_, err = payments.Hold(ctx, tx, e.Payments, ex, agent.UserID, method, r, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if action == "decline" {
		e.sendAll(next)
		return e.outcome(ctx, executionID)
	}
	return e.run(context.WithoutCancel(ctx), executionID, true)
}
