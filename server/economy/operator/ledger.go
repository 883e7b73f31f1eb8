package operator

import (
	"context"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/ent/ledgerentry"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/economy"
	"github.com/switchboard-hq/switchboard/server/page"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// ListEconomyLedger lists the caller's money rows of the economy, newest
// first: the lines of the caller's own account (holds, releases, refunds,
// earnings) and, for the contracts the caller is the client of, what was
// paid out of escrow to the provider and as the fee. totals puts the
// caller's engagement income beside the store's.
func (x *Service) ListEconomyLedger(ctx context.Context, req *switchboardv1.ListEconomyLedgerRequest) (*switchboardv1.ListEconomyLedgerResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	db := x.core.DB
	hired, err := db.Contract.Query().Where(contract.ClientUserID(p.UserID)).IDs(ctx)
	if err != nil {
		return nil, err
	}
	paidOut := []string{}
	for _, k := range []string{"capture", "earning", "fee"} {
		paidOut = append(paidOut, economy.LedgerPrefix+k)
	}
	q := db.LedgerEntry.Query().Where(ledgerentry.KindHasPrefix(economy.LedgerPrefix), ledgerentry.Or(
		ledgerentry.Account(p.UserID),
		ledgerentry.And(ledgerentry.HoldIDIn(hired...), ledgerentry.KindIn(paidOut...), ledgerentry.AccountNEQ(economy.Escrow))))
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := q.Order(ent.Desc(ledgerentry.FieldCreatedAt), ent.Desc(ledgerentry.FieldID)).Limit(pg.Limit).Offset(pg.Offset).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListEconomyLedgerResponse{Rows: make([]*switchboardv1.EconomyLedgerRow, 0, len(rows)),
		Pagination: pg.Of(total, len(rows)), Totals: []*switchboardv1.EconomyEarnings{}}
	for _, r := range rows {
		amount := r.Amount
		if r.Account != p.UserID { // paid out of the caller's escrow: money that left the caller
			amount = -amount
		}
		out.Rows = append(out.Rows, &switchboardv1.EconomyLedgerRow{Id: r.ID, ContractId: r.HoldID,
			Kind: economy.LedgerKind(r.Kind), AmountCents: economy.Wire(amount), Currency: r.Currency, CreatedAt: timestamp(r.CreatedAt)})
	}
	earned, err := db.LedgerEntry.Query().Where(ledgerentry.Account(p.UserID),
		ledgerentry.KindIn(economy.LedgerPrefix+"earning", payments.KindCaptureDeveloper)).All(ctx)
	if err != nil {
		return nil, err
	}
	byCurrency := map[string]*switchboardv1.EconomyEarnings{}
	for _, r := range earned {
		t := byCurrency[r.Currency]
		if t == nil {
			t = &switchboardv1.EconomyEarnings{Currency: r.Currency}
			byCurrency[r.Currency] = t
			out.Totals = append(out.Totals, t)
		}
		if strings.HasPrefix(r.Kind, economy.LedgerPrefix) {
			t.EngagementCents += economy.Wire(r.Amount)
		} else {
			t.StoreCents += economy.Wire(r.Amount)
		}
	}
	return out, nil
}
