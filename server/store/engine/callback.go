package engine

import (
	"context"
	"crypto/subtle"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/server/apperr"
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
	case "", "completed":
	case "failed":
		status = execution.StatusFailed
	default:
		return nil, apperr.OneOf("status", d.Status, []string{"completed", "failed"})
	}
	if d.Output != nil && (len(*d.Output) > MaxOutput || !utf8.ValidString(*d.Output)) {
		return nil, apperr.Invalid("output must be UTF-8 text of at most %d bytes", MaxOutput)
	}
	if len(d.Error) > 2000 {
		return nil, apperr.Invalid("error must be at most 2000 characters")
	}
	ex, err := e.DB.Execution.Get(ctx, d.ExecutionID)
	if ent.IsNotFound(err) || (err == nil && (ex.CallbackTokenHash == nil ||
		subtle.ConstantTimeCompare([]byte(*ex.CallbackTokenHash), []byte(hashToken(d.Token))) != 1)) {
		return nil, apperr.NotFound("execution %q not found, or the callback token does not match", d.ExecutionID)
	} else if err != nil {
		return nil, apperr.Internal(err)
	}
	if ex.Status != execution.StatusRunning || (ex.PricingPhase != nil && *ex.PricingPhase == PhaseQuoted) {
		return nil, apperr.IllegalMove("execution %q is %s; it takes no result now", ex.ID, ex.Status)
	}
	now := e.now()
	n, err := e.DB.Execution.Update().Where(execution.ID(ex.ID), execution.StatusEQ(execution.StatusRunning),
		execution.CallbackReceivedAtIsNil()).SetCallbackReceivedAt(now).Save(ctx)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	if n == 0 {
		return nil, apperr.IllegalMove("execution %q already received its result", ex.ID)
	}
	if status == execution.StatusCompleted {
		return e.finish(ctx, ex.ID, status, d.Output, "")
	}
	reason := d.Error
	if reason == "" {
		reason = "the agent reported a failure"
	}
	return e.finish(ctx, ex.ID, status, nil, reason)
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
		return nil, apperr.Internal(err)
	}
	return ex, nil
}
