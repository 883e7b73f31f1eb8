package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/store/dispatch"
)

// run sends a running execution to its agent and records the answer. It is
// the only place calls leave; an execution is sent by one goroutine at a
// time (inflight).
func (e *Engine) run(ctx context.Context, id string, approved bool) (*Outcome, error) {
	if !e.claim(id) {
		return e.outcome(ctx, id)
	}
	defer e.unclaim(id)
	loaded, err := e.outcome(ctx, id)
	if err != nil {
		return nil, err
	}
	ex, agent := loaded.Execution, loaded.Agent
	if agent.SourceInstanceID != nil {
		return e.runRemote(ctx, ex, agent)
	}
	// An approved quote's real run, also when a restart sends it.
	approved = approved || (ex.PricingPhase != nil && *ex.PricingPhase == PhaseApproved)
	call, err := e.call(ex, agent, approved)
	if err != nil {
		// A credential that no longer opens is the listing's fault: the
		// execution fails instead of waiting for its timeout.
		return e.finish(ctx, id, execution.StatusFailed, nil, err.Error())
	}
	token, sent, err := e.markDispatched(ctx, id)
	if err != nil || !sent {
		return e.ended(ctx, id, err)
	}
	call.CallbackToken = token
	sctx, span := e.span(ctx, SpanDispatch, id, agent.ID)
	res, sendErr := e.Dispatch.Send(sctx, call)
	endSpan(span, sendErr)
	elapsed := int(res.Elapsed.Milliseconds())
	switch {
	case sendErr != nil:
		return e.finishTimed(ctx, id, failure(sendErr), nil, sendErr.Error(), &elapsed)
	case res.Kind == dispatch.KindAccepted:
		return e.outcome(ctx, id)
	case res.Kind == dispatch.KindQuote:
		if agent.PricingModel != "dynamic" || approved {
			return e.finish(ctx, id, execution.StatusFailed, nil, "the agent answered a price quote where none is expected (pricingModel "+agent.PricingModel+")")
		}
		return e.quoted(ctx, id, agent, res.Quote)
	}
	out := res.Output
	return e.finishTimed(ctx, id, execution.StatusCompleted, &out, "", &elapsed)
}

// runRemote hands an execution of a synced listing to its instance, through
// the breaker of the instance's address. An accepted execution stays running
// until the instance delivers its result with the callback token, or the
// timeout sweep ends it.
func (e *Engine) runRemote(ctx context.Context, ex *ent.Execution, agent *ent.StoreAgent) (*Outcome, error) {
	if e.Remote == nil {
		return e.finish(ctx, ex.ID, execution.StatusFailed, nil, "the agent lives on another instance, which this one does not dispatch to")
	}
	target, err := e.Remote.Target(ctx, agent)
	if err != nil {
		return e.finish(ctx, ex.ID, execution.StatusFailed, nil, "the agent's instance takes no executions now: "+err.Error())
	}
	token, sent, err := e.markDispatched(ctx, ex.ID)
	if err != nil || !sent {
		return e.ended(ctx, ex.ID, err)
	}
	refused := ""
	sctx, span := e.span(ctx, SpanRemote, ex.ID, agent.ID)
	err = e.Dispatch.Guarded(sctx, target, func(ctx context.Context) error {
		var err error
		refused, err = e.Remote.Send(ctx, ex, agent, token)
		return err
	})
	endSpan(span, err)
	switch {
	case err != nil:
		return e.finish(ctx, ex.ID, failure(err), nil, "the agent's instance could not be reached: "+err.Error())
	case refused != "":
		return e.finish(ctx, ex.ID, execution.StatusFailed, nil, "the agent's instance refused the execution: "+refused)
	}
	return e.outcome(ctx, ex.ID)
}

// markDispatched records that a running execution is being sent, with the
// hash of its new callback token; sent is false when it ended meanwhile
// (timed out).
func (e *Engine) markDispatched(ctx context.Context, id string) (token string, sent bool, err error) {
	token = newCallbackToken()
	now := e.now()
	n, err := e.DB.Execution.Update().Where(execution.ID(id), execution.StatusEQ(execution.StatusRunning)).
		SetDispatchedAt(now).SetCallbackTokenHash(auth.HashToken(token)).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return "", false, err
	}
	return token, n == 1, nil
}

// ended answers an execution markDispatched did not send: err, or where it
// stands.
func (e *Engine) ended(ctx context.Context, id string, err error) (*Outcome, error) {
	if err != nil {
		return nil, err
	}
	return e.outcome(ctx, id)
}

// failure is the status a failed call leaves: timeout past the call's
// limit, failed otherwise.
func failure(err error) execution.Status {
	if dispatch.Timeout(err) {
		return execution.StatusTimeout
	}
	return execution.StatusFailed
}

// call builds the outbound request of ex.
func (e *Engine) call(ex *ent.Execution, agent *ent.StoreAgent, approved bool) (dispatch.Call, error) {
	c := dispatch.Call{
		URL: *agent.EndpointURL, ExecutionID: ex.ID, Input: ex.Input, Format: string(agent.InputFormat),
		AuthMethod: string(agent.AuthMethod), Source: "marketplace", QuoteApproved: approved,
		CallbackURL: e.PublicURL + "/api/marketplace/callback",
	}
	if ex.TaskOrigin == execution.TaskOriginFederation {
		c.Source = "federation"
	}
	if agent.AuthMethod != "none" {
		if e.Secrets == nil || agent.AuthCredentialEncrypted == nil || len(*agent.AuthCredentialEncrypted) == 0 {
			return c, fmt.Errorf("the agent's credential cannot be opened on this instance (no secret key or none stored)")
		}
		plain, err := e.Secrets.Open(*agent.AuthCredentialEncrypted, store.CredentialAAD(agent.ID))
		if err != nil {
			// The requester sees this text (the execution's error): words, not
			// the package's error (docs/decisions.md "Errors").
			why := "the stored value is corrupt"
			if errors.Is(err, secrets.ErrWrongKey) {
				why = "it was sealed under a different instance key"
			}
			return c, fmt.Errorf("the agent's credential cannot be opened: %s", why)
		}
		c.Credential = string(plain)
	}
	if ex.IsolationMode == execution.IsolationModeFullAccess {
		ctx := map[string]any{}
		if ex.TaskInputs != nil {
			ctx["taskInputs"] = ex.TaskInputs
		}
		if ex.RequesterName != nil {
			ctx["requesterName"] = *ex.RequesterName
		}
		if ex.RequesterEmail != nil {
			ctx["requesterEmail"] = *ex.RequesterEmail
		}
		c.Context = ctx
	}
	return c, nil
}

// quoted records a dynamic price: the execution keeps the lock and waits for
// approve or decline.
func (e *Engine) quoted(ctx context.Context, id string, agent *ent.StoreAgent, q *dispatch.Quote) (*Outcome, error) {
	cur := q.Currency
	if cur == "" {
		cur = agent.Currency
	}
	now := e.now()
	_, err := e.DB.Execution.Update().Where(execution.ID(id), execution.StatusEQ(execution.StatusRunning)).
		SetPricingPhase(PhaseQuoted).SetQuoteAmount(q.Amount).SetQuoteCurrency(cur).
		SetQuoteBreakdown(q.Breakdown).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return nil, err
	}
	return e.outcome(ctx, id)
}

func (e *Engine) outcome(ctx context.Context, id string) (*Outcome, error) {
	ex, err := e.DB.Execution.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if ex.AgentID == nil {
		return &Outcome{Execution: ex}, nil // unlinked: its listing was removed
	}
	agent, err := e.DB.StoreAgent.Get(ctx, *ex.AgentID)
	if err != nil {
		return nil, err
	}
	return &Outcome{Execution: ex, Agent: agent}, nil
}

func (e *Engine) claim(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.inflight == nil {
		e.inflight = map[string]bool{}
	}
	if e.inflight[id] {
		return false
	}
	e.inflight[id] = true
	return true
}

func (e *Engine) unclaim(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.inflight, id)
}

// errNotRunning marks a finish of an execution that already ended.
var errNotRunning = errors.New("execution is not running")

func clipReason(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 1000 {
		return s[:1000] + "…"
	}
	return s
}

// newCallbackToken is 256 random bits as 64 hex characters, the form agents
// receive in X-Service-Callback-Token (TestAsyncCallback); it is stored as
// auth.HashToken, like every other bearer secret.
func newCallbackToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b)
}
