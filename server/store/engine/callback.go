package engine

import (
	"context"
	"crypto/subtle"
	"errors"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// MaxOutput bounds a delivered output.
const MaxOutput = 1 << 20

// Delivery is an agent's asynchronous result.
type Delivery struct {
	ExecutionID string
	Token       string
	// completed (default) or failed.
	Status string
	Output *string
	Error  string
}

// Deliver records an agent's result for a running execution it accepted.
// The token sent with the task is the agent's credential: a wrong token or
// an unknown execution is 404 alike (no probing for ids); a delivery for an
// execution that already ended (timed out) is 400 and changes nothing.
func (e *Engine) Deliver(ctx context.Context, d Delivery) (*Outcome, error) {
	if d.ExecutionID == "" || d.Token == "" {
		return nil, apperr.Invalid("executionId and callbackToken are required")
	}
	status := execution.StatusCompleted
	switch d.Status {
	case "", string(vocab.CallbackStatusCompleted):
	case string(vocab.CallbackStatusFailed):
		status = execution.StatusFailed
	default:
		return nil, apperr.OneOf("status", d.Status, vocab.Values("callback_status"))
	}
	if d.Output != nil && (len(*d.Output) > MaxOutput || !utf8.ValidString(*d.Output)) {
		return nil, apperr.Invalid("output must be UTF-8 text of at most %d bytes", MaxOutput)
	}
	ex, err := e.DB.Execution.Get(ctx, d.ExecutionID)
	if ent.IsNotFound(err) || (err == nil && (ex.CallbackTokenHash == nil ||
		subtle.ConstantTimeCompare([]byte(*ex.CallbackTokenHash), []byte(auth.HashToken(d.Token))) != 1)) {
		return nil, apperr.NotFound("execution %q not found, or the callback token does not match", d.ExecutionID)
	} else if err != nil {
		return nil, err
	}
	if ex.Status != execution.StatusRunning || (ex.PricingPhase != nil && *ex.PricingPhase == PhaseQuoted) {
		return nil, apperr.IllegalMove("execution %q is %s; it takes no result now", ex.ID, ex.Status)
	}
	var output *string
	reason := ""
	if status == execution.StatusCompleted {
		output = d.Output
	} else if reason = d.Error; reason == "" {
		reason = "the agent reported a failure"
	}
	// Receipt and finish in one transaction: a delivery is recorded whole
	// or not at all, so an agent may retry one that failed.
	var next []string
	err = e.DB.InTx(ctx, func(tx *db.Tx) error {
		n, err := tx.Execution.Update().Where(execution.ID(ex.ID), execution.StatusEQ(execution.StatusRunning),
			execution.CallbackReceivedAtIsNil()).SetCallbackReceivedAt(e.now()).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.IllegalMove("execution %q already received its result or ended", ex.ID)
		}
		next, err = e.end(ctx, tx, ex.ID, status, output, reason, nil, "")
		if errors.Is(err, errNotRunning) {
			return apperr.IllegalMove("execution %q ended before its result arrived", ex.ID)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	e.sendAll(next)
	return e.outcome(ctx, ex.ID)
}

// Receipt answers an execution's callback receipt status.
func (e *Engine) Receipt(ctx context.Context, executionID string) (*ent.Execution, error) {
	if executionID == "" {
		return nil, apperr.Invalid("executionId is required")
	}
	ex, err := e.DB.Execution.Get(ctx, executionID)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("execution %q not found", executionID)
	} else if err != nil {
		return nil, err
	}
	return ex, nil
}
