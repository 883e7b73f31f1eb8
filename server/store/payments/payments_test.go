package payments_test

import (
	"errors"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/ledgerentry"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// Document 2, "Limits" (15 % store fee floor) and RULINGS (revenue split
// from the fee percent with the floors): the fee rounds to cents and the
// developer gets the rest, so the parts always add up to the gross.
func TestSplit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		gross, fee, dev money.Cents
		pct, usedPct    float64
	}{
		{250, 38, 212, 15, 15}, // 0.375 rounds half away from zero
		{1250, 188, 1062, 15, 15},
		{1000, 150, 850, 5, 15}, // below the floor: raised
		{1000, 200, 800, 20, 20},
		{1, 0, 1, 15, 15},
		{1999, 300, 1699, 15, 15},
		{213, 32, 181, 15, 15},
	} {
		r := payments.Split(tc.gross, tc.pct, "USD")
		if r.PlatformFee != tc.fee || r.DeveloperPayout != tc.dev || r.FeePercent != tc.usedPct || r.PlatformFee+r.DeveloperPayout != r.Gross {
			t.Errorf("Split(%v, %v) = %+v", tc.gross, tc.pct, r)
		}
	}
}

// RULINGS "Store, federation, MCP, A2A" (manual-capture holds): a hold is
// captured or released once; settling twice is refused and moves nothing.
func TestLedgerSettlesOnce(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t)
	ctx := t.Context()
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	l := payments.Ledger{Now: func() time.Time { return at }}
	d.SetClock(l.Now)
	auth := func(ex string) error {
		return d.InTx(ctx, func(tx *db.Tx) error {
			return l.Authorize(ctx, tx, payments.Authorization{ExecutionID: ex, PayerID: "payer", PayeeID: "dev",
				MethodID: payments.DefaultMethod, Revenue: payments.Split(400, 15, "USD"), ExpiresAt: at.Add(time.Hour)})
		})
	}
	settle := func(f func(ctx2 *db.Tx) error) error { return d.InTx(ctx, f) }
	if err := auth("ex1"); err != nil {
		t.Fatal(err)
	}
	if err := auth("ex1"); err == nil {
		t.Error("a second hold for one execution")
	}
	if err := settle(func(tx *db.Tx) error { return l.Capture(ctx, tx, "ex1") }); err != nil {
		t.Fatal(err)
	}
	for _, again := range []func(*db.Tx) error{
		func(tx *db.Tx) error { return l.Capture(ctx, tx, "ex1") },
		func(tx *db.Tx) error { return l.Release(ctx, tx, "ex1") },
	} {
		if err := settle(again); !errors.Is(err, payments.ErrNotHeld) {
			t.Errorf("settling a captured hold: %v", err)
		}
	}
	if err := auth("ex2"); err != nil {
		t.Fatal(err)
	}
	if err := settle(func(tx *db.Tx) error { return l.Release(ctx, tx, "ex2") }); err != nil {
		t.Fatal(err)
	}
	sum := func(ex string) (total money.Cents, n int) {
		rows, err := d.LedgerEntry.Query().Where(ledgerentry.ExecutionID(ex)).All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			total += r.Amount
		}
		return total, len(rows)
	}
	if total, n := sum("ex1"); total != 0 || n != 3 {
		t.Errorf("captured: %d lines summing to %v (authorize −4, developer 3.40, platform 0.60)", n, total)
	}
	if total, n := sum("ex2"); total != 0 || n != 2 {
		t.Errorf("released: %d lines summing to %v", n, total)
	}
	if _, err := (payments.Ledger{}).Method(ctx, nil, "payer", "pm_card"); !errors.Is(err, payments.ErrUnknownMethod) {
		t.Errorf("unknown method: %v", err)
	}
}
