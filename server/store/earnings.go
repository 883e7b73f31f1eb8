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
	"github.com/switchboard-hq/switchboard/server/apperr"
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
// listing's).
func (s *Service) GetStoreEarnings(ctx context.Context, _ *switchboardv1.GetStoreEarningsRequest) (*switchboardv1.GetStoreEarningsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		AgentID  string          `json:"agent_id"`
		Currency sql.NullString  `json:"currency"`
		Hold     string          `json:"payment_hold_status"`
		Count    int             `json:"count"`
		Gross    sql.NullFloat64 `json:"gross"`
		Payout   sql.NullFloat64 `json:"payout"`
		Fee      sql.NullFloat64 `json:"fee"`
	}
	err = s.DB.Execution.Query().
		Where(execution.HasStoreAgentWith(storeagent.UserID(p.UserID)), execution.GrossNotNil(),
			execution.PaymentHoldStatusIn(execution.PaymentHoldStatusCaptured, execution.PaymentHoldStatusHeld)).
		GroupBy(execution.FieldAgentID, execution.FieldCurrency, execution.FieldPaymentHoldStatus).
		Aggregate(ent.Count(), ent.As(ent.Sum(execution.FieldGross), "gross"),
			ent.As(ent.Sum(execution.FieldDeveloperPayout), "payout"), ent.As(ent.Sum(execution.FieldPlatformFee), "fee")).
		Scan(ctx, &rows)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	agents := map[string]*ent.StoreAgent{}
	if len(rows) > 0 {
		ids := make([]string, 0, len(rows))
		for _, r := range rows {
			ids = append(ids, r.AgentID)
		}
		list, err := s.DB.StoreAgent.Query().Where(storeagent.IDIn(ids...), storeagent.UserID(p.UserID)).
			Select(storeagent.FieldID, storeagent.FieldName, storeagent.FieldSlug, storeagent.FieldCurrency).All(ctx)
		if err != nil {
			return nil, apperr.Internal(err)
		}
		for _, a := range list {
			agents[a.ID] = a
		}
	}
	type key struct{ agent, currency string }
	per := map[key]*switchboardv1.AgentEarnings{}
	totals := map[string]*switchboardv1.EarningsTotal{}
	for _, r := range rows {
		a := agents[r.AgentID]
		if a == nil {
			continue
		}
		cur := a.Currency
		if r.Currency.Valid && r.Currency.String != "" {
			cur = r.Currency.String
		}
		e := per[key{a.ID, cur}]
		if e == nil {
			e = &switchboardv1.AgentEarnings{AgentId: a.ID, Name: a.Name, Slug: a.Slug, Currency: cur}
			per[key{a.ID, cur}] = e
		}
		t := totals[cur]
		if t == nil {
			t = &switchboardv1.EarningsTotal{Currency: cur}
			totals[cur] = t
		}
		if r.Hold == string(execution.PaymentHoldStatusHeld) {
			e.PendingPayout += r.Payout.Float64
			t.PendingPayout += r.Payout.Float64
			continue
		}
		e.Gross += r.Gross.Float64
		e.DeveloperPayout += r.Payout.Float64
		e.PlatformFee += r.Fee.Float64
		e.PaidExecutionCount += int32(r.Count)
		t.Gross += r.Gross.Float64
		t.DeveloperPayout += r.Payout.Float64
		t.PlatformFee += r.Fee.Float64
		t.PaidExecutionCount += int32(r.Count)
	}
	out := &switchboardv1.GetStoreEarningsResponse{
		Totals: make([]*switchboardv1.EarningsTotal, 0, len(totals)),
		Agents: make([]*switchboardv1.AgentEarnings, 0, len(per)),
	}
	// Sums of binary floating point amounts are rounded back to cents, so
	// 0.1 + 0.2 does not answer 0.30000000000000004.
	for _, t := range totals {
		t.Gross, t.DeveloperPayout, t.PlatformFee, t.PendingPayout = payments.Cents(t.Gross), payments.Cents(t.DeveloperPayout), payments.Cents(t.PlatformFee), payments.Cents(t.PendingPayout)
		out.Totals = append(out.Totals, t)
	}
	slices.SortFunc(out.Totals, func(a, b *switchboardv1.EarningsTotal) int { return cmp.Compare(a.Currency, b.Currency) })
	for _, e := range per {
		e.Gross, e.DeveloperPayout, e.PlatformFee, e.PendingPayout = payments.Cents(e.Gross), payments.Cents(e.DeveloperPayout), payments.Cents(e.PlatformFee), payments.Cents(e.PendingPayout)
		out.Agents = append(out.Agents, e)
	}
	slices.SortFunc(out.Agents, func(a, b *switchboardv1.AgentEarnings) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.AgentId, b.AgentId), cmp.Compare(a.Currency, b.Currency))
	})
	return out, nil
}
