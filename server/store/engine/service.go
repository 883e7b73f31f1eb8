package engine

import (
	"context"
	"net/url"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/schema"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/store"
)

// Service is StoreExecutionService over the engine: it reads the caller and
// the request, and renders the outcome.
type Service struct {
	Engine *Engine
	// Global runs a listing of the hub's store (an id this instance does not
	// have) through the hub, on an instance that may join one; nil for none.
	Global func(ctx context.Context, userID, id, input string) (*switchboardv1.ExecuteStoreAgentResponse, error)
}

// ExecuteStoreAgent runs a listing for the caller.
func (s *Service) ExecuteStoreAgent(ctx context.Context, req *switchboardv1.ExecuteStoreAgentRequest) (*switchboardv1.ExecuteStoreAgentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	r := Request{AgentID: req.GetId(), UserID: p.UserID, Input: req.GetInput(), PaymentMethodID: req.GetPaymentMethodId(),
		RequesterName: req.RequesterName, RequesterEmail: req.RequesterEmail}
	if req.TaskType != nil || req.Tone != nil || req.OutputType != nil || req.Deadline != nil || req.AdditionalContext != nil {
		r.TaskInputs = &schema.TaskInputs{TaskType: req.GetTaskType(), Tone: req.GetTone(), OutputType: req.GetOutputType(),
			Deadline: req.GetDeadline(), AdditionalContext: req.GetAdditionalContext()}
	}
	out, err := s.Engine.Execute(ctx, r)
	if err != nil {
		// An id this instance does not know may be the hub's (the id a
		// browse shows under scope=global).
		if s.Global != nil && apperr.From(err).Kind == apperr.KindNotFound {
			return s.Global(ctx, p.UserID, req.GetId(), req.GetInput())
		}
		return nil, err
	}
	return s.Engine.Render(out), nil
}

// DecideStoreQuote approves or declines a quote.
func (s *Service) DecideStoreQuote(ctx context.Context, req *switchboardv1.DecideStoreQuoteRequest) (*switchboardv1.DecideStoreQuoteResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetId() == "" {
		return nil, apperr.Invalid("id is required")
	}
	out, err := s.Engine.Decide(ctx, p.UserID, req.GetId(), req.GetExecutionId(), req.GetAction(), req.GetPaymentMethodId())
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DecideStoreQuoteResponse{Execution: s.Engine.Render(out)}, nil
}

// DeliverStoreCallback records an agent's asynchronous result.
func (s *Service) DeliverStoreCallback(ctx context.Context, req *switchboardv1.DeliverStoreCallbackRequest) (*switchboardv1.DeliverStoreCallbackResponse, error) {
	out, err := s.Engine.Deliver(ctx, Delivery{ExecutionID: req.GetExecutionId(), Token: req.GetCallbackToken(),
		Status: req.GetStatus(), Output: req.Output, Error: req.GetError()})
	if err != nil {
		return nil, err
	}
	ex := out.Execution
	return &switchboardv1.DeliverStoreCallbackResponse{ExecutionId: ex.ID, Status: string(ex.Status),
		Received: ex.CallbackReceivedAt != nil, ReceivedAt: tsp(ex.CallbackReceivedAt)}, nil
}

// GetStoreCallback answers whether an execution's result was delivered.
func (s *Service) GetStoreCallback(ctx context.Context, req *switchboardv1.GetStoreCallbackRequest) (*switchboardv1.GetStoreCallbackResponse, error) {
	ex, err := s.Engine.Receipt(ctx, req.GetExecutionId())
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetStoreCallbackResponse{ExecutionId: ex.ID, Status: string(ex.Status),
		Received: ex.CallbackReceivedAt != nil, ReceivedAt: tsp(ex.CallbackReceivedAt)}, nil
}

// Render is the execution contract's answer for an outcome.
func (e *Engine) Render(o *Outcome) *switchboardv1.ExecuteStoreAgentResponse {
	ex := o.Execution
	out := &switchboardv1.ExecuteStoreAgentResponse{
		ExecutionId: ex.ID, AgentId: store.AgentOf(ex), Status: string(ex.Status), Output: ex.Output,
		IsOwnAgent: ex.IsOwnAgent, TaskOrigin: string(ex.TaskOrigin), IsolationMode: string(ex.IsolationMode),
		PaymentHoldStatus: string(ex.PaymentHoldStatus), PricingPhase: ex.PricingPhase, Error: ex.FailureReason,
	}
	if ex.ResponseTimeMs != nil {
		v := int32(*ex.ResponseTimeMs)
		out.ResponseTimeMs = &v
	}
	if ex.QueuePosition != nil {
		v := int32(*ex.QueuePosition)
		out.QueuePosition = &v
	}
	out.QueuedAt = tsp(ex.QueuedAt)
	if ex.Gross != nil {
		out.Revenue = &switchboardv1.StoreRevenue{Gross: ex.Gross.Float(), DeveloperPayout: money.FloatOrZero(ex.DeveloperPayout),
			PlatformFee: money.FloatOrZero(ex.PlatformFee), FeePercent: deref(ex.FeePercent)}
		if ex.Currency != nil {
			out.Revenue.Currency = *ex.Currency
		}
	}
	if ex.PricingPhase != nil && *ex.PricingPhase == PhaseQuoted && ex.QuoteAmount != nil && ex.AgentID != nil {
		q := &switchboardv1.StoreQuote{Amount: ex.QuoteAmount.Float(), ApproveUrl: e.PublicURL + "/api/marketplace/" +
			url.PathEscape(*ex.AgentID) + "/execute/" + url.PathEscape(ex.ID)}
		if ex.QuoteCurrency != nil {
			q.Currency = *ex.QuoteCurrency
		}
		if ex.QuoteBreakdown != nil {
			q.Breakdown = *ex.QuoteBreakdown
		}
		out.Quote = q
		out.Widget = paymentPrompt(o.Agent, q)
	}
	return out
}

// paymentPrompt is the widget asking the requester to approve a quote.
func paymentPrompt(a *ent.StoreAgent, q *switchboardv1.StoreQuote) *switchboardv1.AgentWidgetData {
	name := "the agent"
	if a != nil {
		name = a.Name
	}
	sub := q.Breakdown
	w := &switchboardv1.AgentWidgetData{
		Type:  "payment_prompt",
		Title: "Approve " + formatAmount(q.Amount, q.Currency) + " for " + name + "?",
		Items: []*switchboardv1.AgentWidgetItem{{Id: "quote", Label: formatAmount(q.Amount, q.Currency),
			Actions: vocab.Values("quote_action")}},
	}
	if sub != "" {
		w.Subtitle = &sub
		w.Items[0].Description = &sub
	}
	layout := "vertical"
	w.Layout = &layout
	return w
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
