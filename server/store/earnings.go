package store

import (
	"cmp"
	"context"
	"slices"

	"entgo.io/ent/dialect/sql"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// The fee structure (docs/decisions.md "Store limits"
// and "Store, federation, MCP, A2A": the revenue split follows the fee
// percent with the documented floors). This instance
// charges the floors: the store fee is the payments floor the split applies.
const (
	StoreFeePercent      = payments.MinFeePercent
	RecruitingFeePercent = 10.0
	ReviewWindowHours    = 48
	FeeCurrency          = "USD"
)

// GetStoreFeeInfo answers the fee structure; no credential needed.
func (s *Service) GetStoreFeeInfo(context.Context, *switchboardv1.GetStoreFeeInfoRequest) (*switchboardv1.GetStoreFeeInfoResponse, error) {
	return &switchboardv1.GetStoreFeeInfoResponse{
		StoreFeePercent:       StoreFeePercent,
		RecruitingFeePercent:  RecruitingFeePercent,
		DeveloperSharePercent: 100 - StoreFeePercent,
		Currency:              FeeCurrency,
		ReviewWindowHours:     ReviewWindowHours,
		PricingModels:         slices.Clone(PricingModels),
	}, nil
}

// GetStoreEarnings sums the paid executions of the caller's listings:
// captured payments are earned, held ones pending; released ones earned
// nothing. Sums are per currency (an execution without one is in its
// listing's). Executions unlinked from a removed listing still count, listed
// under its name without an agent id (docs/decisions.md "Federation
// platform routes (issue 14)").
func (s *Service) GetStoreEarnings(ctx context.Context, _ *switchboardv1.GetStoreEarningsRequest) (*switchboardv1.GetStoreEarningsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		AgentID  sql.NullString `json:"agent_id"`
		Name     sql.NullString `json:"agent_name"`
		Currency sql.NullString `json:"currency"`
		Hold     string         `json:"payment_hold_status"`
		Count    int            `json:"count"`
		Gross    sql.NullInt64  `json:"gross"`
		Payout   sql.NullInt64  `json:"payout"`
		Fee      sql.NullInt64  `json:"fee"`
	}
	err = s.DB.Execution.Query().
		Where(execution.Or(execution.HasStoreAgentWith(storeagent.UserID(p.UserID)), execution.AgentOwnerID(p.UserID)),
			execution.GrossNotNil(),
			execution.PaymentHoldStatusIn(execution.PaymentHoldStatusCaptured, execution.PaymentHoldStatusHeld)).
		GroupBy(execution.FieldAgentID, execution.FieldAgentName, execution.FieldCurrency, execution.FieldPaymentHoldStatus).
		Aggregate(ent.Count(), ent.As(ent.Sum(execution.FieldGross), "gross"),
			ent.As(ent.Sum(execution.FieldDeveloperPayout), "payout"), ent.As(ent.Sum(execution.FieldPlatformFee), "fee")).
		Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	agents := map[string]*ent.StoreAgent{}
	if len(rows) > 0 {
		ids := make([]string, 0, len(rows))
		for _, r := range rows {
			if r.AgentID.Valid {
				ids = append(ids, r.AgentID.String)
			}
		}
		list, err := s.DB.StoreAgent.Query().Where(storeagent.IDIn(ids...), storeagent.UserID(p.UserID)).
			Select(storeagent.FieldID, storeagent.FieldName, storeagent.FieldSlug, storeagent.FieldCurrency).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, a := range list {
			agents[a.ID] = a
		}
	}
	type key struct{ agent, currency string }
	per := map[key]*earned{}
	totals := map[string]*earned{}
	for _, r := range rows {
		a := agents[r.AgentID.String]
		if !r.AgentID.Valid {
			// Unlinked: the removed listing's name stands for it.
			a = &ent.StoreAgent{Name: r.Name.String, Currency: FeeCurrency}
		}
		if a == nil {
			continue
		}
		cur := a.Currency
		if r.Currency.Valid && r.Currency.String != "" {
			cur = r.Currency.String
		}
		k := key{a.ID + "\x00" + a.Name, cur}
		if per[k] == nil {
			per[k] = &earned{agent: a, currency: cur}
		}
		if totals[cur] == nil {
			totals[cur] = &earned{currency: cur}
		}
		per[k].add(r.Hold, r.Count, r.Gross.Int64, r.Payout.Int64, r.Fee.Int64)
		totals[cur].add(r.Hold, r.Count, r.Gross.Int64, r.Payout.Int64, r.Fee.Int64)
	}
	out := &switchboardv1.GetStoreEarningsResponse{
		Totals: make([]*switchboardv1.EarningsTotal, 0, len(totals)),
		Agents: make([]*switchboardv1.AgentEarnings, 0, len(per)),
	}
	for _, t := range totals {
		out.Totals = append(out.Totals, t.total())
	}
	slices.SortFunc(out.Totals, func(a, b *switchboardv1.EarningsTotal) int { return cmp.Compare(a.Currency, b.Currency) })
	for _, e := range per {
		out.Agents = append(out.Agents, e.agentEarnings())
	}
	slices.SortFunc(out.Agents, func(a, b *switchboardv1.AgentEarnings) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.AgentId, b.AgentId), cmp.Compare(a.Currency, b.Currency))
	})
	return out, nil
}

// earned sums one listing's (or one currency's) paid executions in cents,
// so the totals are exact.
type earned struct {
	agent                       *ent.StoreAgent
	currency                    string
	count                       int32
	gross, payout, fee, pending money.Cents
}

// add counts a group of executions: held ones are pending, captured ones
// earned.
func (e *earned) add(hold string, count int, gross, payout, fee int64) {
	if hold == string(execution.PaymentHoldStatusHeld) {
		e.pending += money.Cents(payout)
		return
	}
	e.gross += money.Cents(gross)
	e.payout += money.Cents(payout)
	e.fee += money.Cents(fee)
	e.count += int32(count)
}

func (e *earned) total() *switchboardv1.EarningsTotal {
	return &switchboardv1.EarningsTotal{Currency: e.currency, Gross: e.gross.Float(), DeveloperPayout: e.payout.Float(),
		PlatformFee: e.fee.Float(), PendingPayout: e.pending.Float(), PaidExecutionCount: e.count}
}

func (e *earned) agentEarnings() *switchboardv1.AgentEarnings {
	return &switchboardv1.AgentEarnings{AgentId: e.agent.ID, Name: e.agent.Name, Slug: e.agent.Slug, Currency: e.currency,
		Gross: e.gross.Float(), DeveloperPayout: e.payout.Float(), PlatformFee: e.fee.Float(), PendingPayout: e.pending.Float(),
		PaidExecutionCount: e.count}
}
