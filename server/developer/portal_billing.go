package developer

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"entgo.io/ent/dialect/sql"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/ledgerentry"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// The store's ledger journals each captured payment as two lines of one
// hold: the developer's share (capture_developer, to the agent's owner) and
// the platform's fee (capture_platform). The portal reads money only from
// those lines (docs/decisions.md "The developer portal (issue 31)"): a
// payment's earnings are its two lines together, its fee the platform's, its
// payout the developer's.

// developerHolds keeps the ledger lines of the holds whose developer line
// is userID's.
func developerHolds(userID string) predicate.LedgerEntry {
	return func(s *sql.Selector) {
		t := sql.Table(ledgerentry.Table).As("developer_lines")
		s.Where(sql.In(s.C(ledgerentry.FieldHoldID), sql.Select(t.C(ledgerentry.FieldHoldID)).From(t).
			Where(sql.And(sql.EQ(t.C(ledgerentry.FieldKind), payments.KindCaptureDeveloper), sql.EQ(t.C(ledgerentry.FieldAccount), userID)))))
	}
}

// executionsOf keeps the ledger lines of agentID's executions.
func executionsOf(agentID string) predicate.LedgerEntry {
	return func(s *sql.Selector) {
		t := sql.Table(execution.Table)
		s.Where(sql.In(s.C(ledgerentry.FieldExecutionID), sql.Select(t.C(execution.FieldID)).From(t).
			Where(sql.EQ(t.C(execution.FieldAgentID), agentID))))
	}
}

// captures are the two kinds of a captured payment's lines.
var captures = []string{payments.KindCaptureDeveloper, payments.KindCapturePlatform}

// sums totals the amounts of q's lines by kind and currency.
type sums map[[2]string]struct {
	cents money.Cents
	count int
}

func sumLines(ctx context.Context, q *ent.LedgerEntryQuery) (sums, error) {
	var rows []struct {
		Kind     string        `json:"kind"`
		Currency string        `json:"currency"`
		Sum      sql.NullInt64 `json:"sum"`
		Count    int           `json:"count"`
	}
	err := q.GroupBy(ledgerentry.FieldKind, ledgerentry.FieldCurrency).
		Aggregate(ent.As(ent.Sum(ledgerentry.FieldAmount), "sum"), ent.Count()).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	out := sums{}
	for _, r := range rows {
		out[[2]string{r.Kind, r.Currency}] = struct {
			cents money.Cents
			count int
		}{money.Cents(r.Sum.Int64), r.Count}
	}
	return out, nil
}

// GetDeveloperBilling answers the caller's earnings, fees and payouts in one
// currency (USD unless asked), with the captured payments newest first.
func (p *Portal) GetDeveloperBilling(ctx context.Context, req *switchboardv1.GetDeveloperBillingRequest) (*switchboardv1.GetDeveloperBillingResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	currency := strings.ToUpper(strings.TrimSpace(req.GetCurrency()))
	if currency == "" {
		currency = store.FeeCurrency
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	c := p.dev.DB.Client
	lines := c.LedgerEntry.Query().Where(ledgerentry.KindIn(captures...), developerHolds(pr.UserID))
	totals, err := sumLines(ctx, lines.Clone())
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.GetDeveloperBillingResponse{Currency: currency, Currencies: []string{}, Ledger: []*switchboardv1.BillingLine{}}
	payouts := totals[[2]string{payments.KindCaptureDeveloper, currency}]
	fees := totals[[2]string{payments.KindCapturePlatform, currency}]
	out.PayoutsCents, out.FeesCents = cents32(payouts.cents), cents32(fees.cents)
	out.EarningsCents = cents32(payouts.cents + fees.cents)
	for k := range totals {
		if k[0] == payments.KindCaptureDeveloper {
			out.Currencies = append(out.Currencies, k[1])
		}
	}
	slices.Sort(out.Currencies)
	// One line per payment: page its developer lines, then read the
	// platform's lines of those holds.
	dev, err := lines.Clone().Where(ledgerentry.Kind(payments.KindCaptureDeveloper), ledgerentry.Currency(currency)).
		Order(ent.Desc(ledgerentry.FieldCreatedAt), ent.Desc(ledgerentry.FieldID)).Limit(pg.Limit).Offset(pg.Offset).All(ctx)
	if err != nil {
		return nil, err
	}
	out.Pagination = pg.Of(payouts.count, len(dev))
	if len(dev) == 0 {
		return out, nil
	}
	if out.Ledger, err = billingLines(ctx, c, dev); err != nil {
		return nil, err
	}
	return out, nil
}

// billingLines joins each developer line with its hold's platform line and
// its execution's agent.
func billingLines(ctx context.Context, c *ent.Client, dev []*ent.LedgerEntry) ([]*switchboardv1.BillingLine, error) {
	holds, execIDs := make([]string, len(dev)), make([]string, len(dev))
	for i, d := range dev {
		holds[i], execIDs[i] = d.HoldID, d.ExecutionID
	}
	platform, err := c.LedgerEntry.Query().Where(ledgerentry.Kind(payments.KindCapturePlatform), ledgerentry.HoldIDIn(holds...)).All(ctx)
	if err != nil {
		return nil, err
	}
	fee := make(map[string]money.Cents, len(platform))
	for _, l := range platform {
		fee[l.HoldID] += l.Amount
	}
	execs, err := c.Execution.Query().Where(execution.IDIn(execIDs...)).WithStoreAgent(func(q *ent.StoreAgentQuery) {
		q.Select(storeagent.FieldID, storeagent.FieldName)
	}).All(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*ent.Execution, len(execs))
	for _, e := range execs {
		byID[e.ID] = e
	}
	out := make([]*switchboardv1.BillingLine, 0, len(dev))
	for _, d := range dev {
		line := &switchboardv1.BillingLine{Id: d.HoldID, ExecutionId: d.ExecutionID, Currency: d.Currency,
			PayoutCents: cents32(d.Amount), FeeCents: cents32(fee[d.HoldID]), EarningsCents: cents32(d.Amount + fee[d.HoldID]),
			SettledAt: ts(d.CreatedAt)}
		if e := byID[d.ExecutionID]; e != nil {
			switch {
			case e.Edges.StoreAgent != nil:
				line.AgentId, line.AgentName = &e.Edges.StoreAgent.ID, e.Edges.StoreAgent.Name
			case e.AgentName != nil:
				line.AgentName = *e.AgentName
			}
		}
		out = append(out, line)
	}
	return out, nil
}

// GetPortalAgentEarnings sums an agent's captured payments per currency from
// the ledger, with the developer's share of payments still held.
func (p *Portal) GetPortalAgentEarnings(ctx context.Context, req *switchboardv1.GetPortalAgentEarningsRequest) (*switchboardv1.GetPortalAgentEarningsResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	c := p.dev.DB.Client
	row, _, err := managed(ctx, c, pr.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	totals, err := sumLines(ctx, c.LedgerEntry.Query().Where(ledgerentry.KindIn(captures...), executionsOf(row.ID)))
	if err != nil {
		return nil, err
	}
	var held []struct {
		Currency sql.NullString `json:"currency"`
		Payout   sql.NullInt64  `json:"payout"`
	}
	err = c.Execution.Query().Where(execution.AgentID(row.ID), execution.PaymentHoldStatusEQ(execution.PaymentHoldStatusHeld)).
		GroupBy(execution.FieldCurrency).Aggregate(ent.As(ent.Sum(execution.FieldDeveloperPayout), "payout")).Scan(ctx, &held)
	if err != nil {
		return nil, err
	}
	per := map[string]*switchboardv1.PortalEarnings{}
	entry := func(cur string) *switchboardv1.PortalEarnings {
		if per[cur] == nil {
			per[cur] = &switchboardv1.PortalEarnings{Currency: cur}
		}
		return per[cur]
	}
	for k, v := range totals {
		e := entry(k[1])
		if k[0] == payments.KindCaptureDeveloper {
			e.PayoutsCents, e.PaidExecutions = cents32(v.cents), int32(v.count)
		} else {
			e.FeesCents = cents32(v.cents)
		}
	}
	for _, h := range held {
		cur := row.Currency
		if h.Currency.Valid && h.Currency.String != "" {
			cur = h.Currency.String
		}
		entry(cur).PendingCents += cents32(money.Cents(h.Payout.Int64))
	}
	out := &switchboardv1.GetPortalAgentEarningsResponse{AgentId: row.ID, Totals: make([]*switchboardv1.PortalEarnings, 0, len(per))}
	for _, e := range per {
		e.EarningsCents = e.PayoutsCents + e.FeesCents
		out.Totals = append(out.Totals, e)
	}
	slices.SortFunc(out.Totals, func(a, b *switchboardv1.PortalEarnings) int { return cmp.Compare(a.Currency, b.Currency) })
	return out, nil
}

func toPortalExecution(e *ent.Execution) *switchboardv1.PortalExecution {
	out := &switchboardv1.PortalExecution{
		Id: e.ID, Status: string(e.Status), TaskOrigin: string(e.TaskOrigin), PaymentHoldStatus: string(e.PaymentHoldStatus),
		CreatedAt: ts(e.CreatedAt), Currency: e.Currency,
	}
	if e.ResponseTimeMs != nil {
		v := int32(*e.ResponseTimeMs)
		out.ResponseTimeMs = &v
	}
	if e.ReviewStatus != nil {
		v := string(*e.ReviewStatus)
		out.ReviewStatus = &v
	}
	if e.Rating != nil {
		v := int32(*e.Rating)
		out.Rating = &v
	}
	if e.Gross != nil {
		g := cents32(*e.Gross)
		var f, d int32
		if e.PlatformFee != nil {
			f = cents32(*e.PlatformFee)
		}
		if e.DeveloperPayout != nil {
			d = cents32(*e.DeveloperPayout)
		}
		out.GrossCents, out.FeeCents, out.PayoutCents = &g, &f, &d
	}
	if e.FinishedAt != nil {
		out.FinishedAt = ts(*e.FinishedAt)
	}
	return out
}

// ListPortalAgentExecutions pages an agent's executions, newest first.
func (p *Portal) ListPortalAgentExecutions(ctx context.Context, req *switchboardv1.ListPortalAgentExecutionsRequest) (*switchboardv1.ListPortalAgentExecutionsResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	c := p.dev.DB.Client
	row, _, err := managed(ctx, c, pr.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	q := c.Execution.Query().Where(execution.AgentID(row.ID))
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := q.Order(ent.Desc(execution.FieldCreatedAt), ent.Desc(execution.FieldID)).Limit(pg.Limit).Offset(pg.Offset).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListPortalAgentExecutionsResponse{Executions: make([]*switchboardv1.PortalExecution, len(rows)), Pagination: pg.Of(total, len(rows))}
	for i, e := range rows {
		out.Executions[i] = toPortalExecution(e)
	}
	return out, nil
}
