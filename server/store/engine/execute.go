package engine

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// Execute makes an execution of r.AgentID for r.UserID. A listing that is
// not available is refused before the lock is tried (400, failed
// precondition). With the lock free the execution runs now and the outcome
// carries the agent's answer (or, for a quote or an agent answering later,
// a running execution); with the lock held it is queued.
func (e *Engine) Execute(ctx context.Context, r Request) (*Outcome, error) {
	if strings.TrimSpace(r.Input) == "" {
		return nil, apperr.Invalid("input is required (the task text)")
	}
	if !utf8.ValidString(r.Input) || len(r.Input) > MaxInput {
		return nil, apperr.Invalid("input must be UTF-8 text of at most %d bytes", MaxInput)
	}
	if origins := vocab.Get("execution_origin"); r.Origin != "" && !origins.Has(r.Origin) {
		return nil, apperr.OneOf("taskOrigin", r.Origin, origins.Values)
	}
	agent, err := e.runnable(ctx, r.UserID, r.AgentID)
	if err != nil {
		return nil, err
	}
	own := agent.UserID == r.UserID
	origin := r.Origin
	if origin == "" {
		origin = OriginMarketplace
		if own {
			origin = OriginOwner
		}
	}
	isolation := execution.IsolationModeOutputOnly
	if origin == OriginOwner {
		isolation = execution.IsolationModeFullAccess
	}
	var method string
	pays, err := e.pays(ctx, e.DB.Client, agent, own, r.UserID)
	if err != nil {
		return nil, err
	}
	if pays {
		// Resolved before the transaction so a bad method writes nothing.
		if method, err = e.Payments.Method(ctx, nil, r.UserID, r.PaymentMethodID); err != nil {
			return nil, methodError(err)
		}
	} else if r.PaymentMethodID != "" {
		if method, err = e.Payments.Method(ctx, nil, r.UserID, r.PaymentMethodID); err != nil {
			return nil, methodError(err)
		}
	}
	id := ids.New()
	var ex *ent.Execution
	err = e.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := e.DB.Serialize(ctx, tx, store.LockKey(agent.ID)); err != nil {
			return err
		}
		now := e.now()
		create := tx.Execution.Create().SetID(id).SetUserID(r.UserID).SetAgentID(agent.ID).SetInput(r.Input).
			SetIsOwnAgent(own).SetTaskOrigin(execution.TaskOrigin(origin)).SetIsolationMode(isolation).
			SetRunOrigin(execution.RunOrigin(RunOrigin(origin, auth.DoorOf(ctx)))).
			SetNillableRequesterName(r.RequesterName).SetNillableRequesterEmail(r.RequesterEmail).
			SetNillableCallerInstanceURL(r.CallerInstanceURL).SetNillableSourceInstanceID(r.SourceInstanceID).
			SetNillableSourceInstanceName(r.SourceInstanceName).SetNillableCallbackURL(r.CallbackURL).
			SetNillableRequesterUserID(r.RequesterUserID).
			SetNillableRemoteExecutionID(r.RemoteExecutionID).SetNillableCallbackTokenSealed(r.CallbackTokenSealed).
			SetCreatedAt(now).SetUpdatedAt(now)
		if r.TaskInputs != nil {
			create.SetTaskInputs(r.TaskInputs)
		}
		if method != "" {
			create.SetPaymentMethodID(method)
		}
		locked, err := e.tryLock(ctx, tx, agent.ID, id)
		if err != nil {
			return err
		}
		if !locked {
			pos, err := tx.Execution.Query().Where(execution.AgentID(agent.ID), execution.StatusEQ(execution.StatusQueued)).Count(ctx)
			if err != nil {
				return err
			}
			// Storage errors are mapped once, by the transports (apperr.From):
			// the same refusal on either path.
			if ex, err = create.SetStatus(execution.StatusQueued).SetQueuedAt(now).SetQueuePosition(pos + 1).Save(ctx); err != nil {
				return err
			}
			return e.created(ctx, tx, ex)
		}
		if ex, err = create.SetStatus(execution.StatusRunning).SetStartedAt(now).Save(ctx); err != nil {
			return err
		}
		if ex, err = e.holdAtDispatch(ctx, tx, agent, ex); err != nil {
			return err
		}
		return e.created(ctx, tx, ex)
	})
	if err != nil {
		return nil, err
	}
	if ex.Status == execution.StatusQueued {
		return &Outcome{Execution: ex, Agent: agent}, nil
	}
	if r.Background {
		e.sendAllIn(ctx, []string{ex.ID})
		return &Outcome{Execution: ex, Agent: agent}, nil
	}
	return e.run(context.WithoutCancel(ctx), ex.ID, false)
}

// RunOrigin is how a run was started (vocabulary run_origin), for the
// admin's agent activity: for another instance when its task origin is
// federation (a hub's dispatch, a spoke user's run of the global store),
// else the door the request came through (an MCP tool, an A2A task's item,
// the assistant's run of an item it made), else the API (local).
func RunOrigin(taskOrigin string, door auth.Door) string {
	if taskOrigin == OriginFederation {
		return string(vocab.RunOriginFederated)
	}
	switch door {
	case auth.DoorMCP:
		return string(vocab.RunOriginMCP)
	case auth.DoorA2A:
		return string(vocab.RunOriginA2A)
	case auth.DoorAssistant:
		return string(vocab.RunOriginAssistant)
	}
	return string(vocab.RunOriginLocal)
}

// runnable loads a listing r.UserID may execute: active (the owner may also
// run their own in any status), with an endpoint, and available.
func (e *Engine) runnable(ctx context.Context, userID, agentID string) (*ent.StoreAgent, error) {
	if agentID == "" {
		return nil, apperr.Invalid("id is required")
	}
	agent, err := e.DB.StoreAgent.Get(ctx, agentID)
	if ent.IsNotFound(err) || (err == nil && agent.UserID != userID && agent.Status != storeagent.StatusActive) {
		return nil, apperr.NotFound("store agent %q not found", agentID)
	} else if err != nil {
		return nil, err
	}
	if agent.Availability != storeagent.AvailabilityAvailable {
		return nil, apperr.IllegalMove("agent %q is %s; it takes no executions until its owner makes it available", agent.Slug, agent.Availability)
	}
	if agent.SourceInstanceID != nil {
		if e.Remote == nil {
			return nil, apperr.IllegalMove("agent %q lives on another instance, which this one does not dispatch to", agent.Slug)
		}
		if _, err := e.Remote.Target(ctx, agent); err != nil {
			return nil, apperr.IllegalMove("agent %q is unavailable: %s", agent.Slug, err)
		}
		return agent, nil
	}
	if agent.EndpointURL == nil || *agent.EndpointURL == "" {
		return nil, apperr.IllegalMove("agent %q has no endpointUrl to call", agent.Slug)
	}
	return agent, nil
}

// tryLock is the lock: set current_execution_id where it is null.
func (e *Engine) tryLock(ctx context.Context, tx *db.Tx, agentID, executionID string) (bool, error) {
	n, err := tx.StoreAgent.Update().Where(storeagent.ID(agentID), storeagent.CurrentExecutionIDIsNil()).
		SetCurrentExecutionID(executionID).Save(ctx)
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

// charged reports whether runs of agent cost the requester money at
// dispatch: a price above 0 on a model other than free, and not the owner
// running their own agent. Dynamic prices are held when a quote is
// approved instead.
func charged(agent *ent.StoreAgent, own bool) bool {
	return !own && agent.PricingModel != "free" && agent.PricingModel != "dynamic" && agent.PricePerTask > 0
}

// pays reports whether userID's run of agent is charged at dispatch: charged,
// and the requester has not unlocked the agent with its access password
// (store.proto, UnlockStoreAgent). The unlock is read at dispatch, so a
// queued execution dispatched after an unlock is not charged either.
func (e *Engine) pays(ctx context.Context, c *ent.Client, agent *ent.StoreAgent, own bool, userID string) (bool, error) {
	if !charged(agent, own) {
		return false, nil
	}
	unlocked, err := store.Unlocked(ctx, c, userID, agent.ID)
	return !unlocked, err
}

// holdAtDispatch authorizes a charged execution's price as it takes the
// lock.
func (e *Engine) holdAtDispatch(ctx context.Context, tx *db.Tx, agent *ent.StoreAgent, ex *ent.Execution) (*ent.Execution, error) {
	if pays, err := e.pays(ctx, tx.Client(), agent, ex.IsOwnAgent, ex.UserID); err != nil || !pays {
		return ex, err
	}
	method := ""
	if ex.PaymentMethodID != nil {
		method = *ex.PaymentMethodID
	}
	method, err := e.Payments.Method(ctx, tx, ex.UserID, method)
	if err != nil {
		return nil, methodError(err)
	}
	r := payments.Split(agent.PricePerTask, store.StoreFeePercent, agent.Currency)
	out, err := payments.Hold(ctx, tx, e.Payments, ex, agent.UserID, method, r, e.now())
	return out, err
}

func methodError(err error) error {
	if errors.Is(err, payments.ErrUnknownMethod) {
		return apperr.Invalid("paymentMethodId: %v", err)
	}
	return err
}
