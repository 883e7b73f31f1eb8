package payments

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/paymenthold"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/money"
)

// Ledger is the built-in provider: holds and an append-only journal in the
// instance's own database. It moves no real money; it records who owes whom,
// which is what earnings and a later payout run read. Every account has one
// payment method, DefaultMethod.
type Ledger struct {
	// Now stamps settlements (required: the server's injected clock).
	Now func() time.Time
}

var _ Provider = Ledger{}

// KindCaptureDeveloper is the line of a developer's share of a captured
// execution: what the store earned them.
const KindCaptureDeveloper = "capture_developer"

// KindCapturePlatform is the platform's fee of the same capture.
const KindCapturePlatform = "capture_platform"

// PlatformAccount is the ledger account of the store's fee.
const PlatformAccount = "platform"

func (l Ledger) now() time.Time { return l.Now().UTC() }

// Method accepts the default method, by name or left out.
func (Ledger) Method(_ context.Context, _ *db.Tx, _ string, requested string) (string, error) {
	if requested == "" || requested == DefaultMethod {
		return DefaultMethod, nil
	}
	return "", fmt.Errorf("%w %q: the built-in ledger has one method per account, %q", ErrUnknownMethod, requested, DefaultMethod)
}

// Authorize records the hold and the payer's authorization line.
func (l Ledger) Authorize(ctx context.Context, tx *db.Tx, a Authorization) error {
	r := a.Revenue
	h, err := tx.PaymentHold.Create().SetExecutionID(a.ExecutionID).SetPayerID(a.PayerID).SetPayeeID(a.PayeeID).
		SetPaymentMethodID(a.MethodID).SetAmount(r.Gross).SetCurrency(r.Currency).SetDeveloperPayout(r.DeveloperPayout).
		SetPlatformFee(r.PlatformFee).SetFeePercent(r.FeePercent).SetStatus(paymenthold.StatusHeld).
		SetExpiresAt(a.ExpiresAt).Save(ctx)
	if err != nil {
		return fmt.Errorf("ledger: authorize: %w", err)
	}
	return tx.LedgerEntry.Create().SetHoldID(h.ID).SetExecutionID(a.ExecutionID).SetKind("authorize").
		SetAccount(a.PayerID).SetAmount(-r.Gross).SetCurrency(r.Currency).Exec(ctx)
}

// Capture pays the developer and the platform their shares.
func (l Ledger) Capture(ctx context.Context, tx *db.Tx, executionID string) error {
	h, err := l.settle(ctx, tx, executionID, paymenthold.StatusCaptured)
	if err != nil {
		return err
	}
	return tx.LedgerEntry.CreateBulk(
		tx.LedgerEntry.Create().SetHoldID(h.ID).SetExecutionID(executionID).SetKind(KindCaptureDeveloper).
			SetAccount(h.PayeeID).SetAmount(h.DeveloperPayout).SetCurrency(h.Currency),
		tx.LedgerEntry.Create().SetHoldID(h.ID).SetExecutionID(executionID).SetKind(KindCapturePlatform).
			SetAccount(PlatformAccount).SetAmount(h.PlatformFee).SetCurrency(h.Currency),
	).Exec(ctx)
}

// Release gives the payer the authorized amount back.
func (l Ledger) Release(ctx context.Context, tx *db.Tx, executionID string) error {
	h, err := l.settle(ctx, tx, executionID, paymenthold.StatusReleased)
	if err != nil {
		return err
	}
	return tx.LedgerEntry.Create().SetHoldID(h.ID).SetExecutionID(executionID).SetKind("release").
		SetAccount(h.PayerID).SetAmount(h.Amount).SetCurrency(h.Currency).Exec(ctx)
}

func (l Ledger) settle(ctx context.Context, tx *db.Tx, executionID string, to paymenthold.Status) (*ent.PaymentHold, error) {
	n, err := tx.PaymentHold.Update().Where(paymenthold.ExecutionID(executionID), paymenthold.StatusEQ(paymenthold.StatusHeld)).
		SetStatus(to).SetSettledAt(l.now()).Save(ctx)
	if err != nil {
		return nil, fmt.Errorf("ledger: %s: %w", to, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("ledger: %w: no held payment for execution %s", ErrNotHeld, executionID)
	}
	return tx.PaymentHold.Query().Where(paymenthold.ExecutionID(executionID)).Only(ctx)
}

// Subscription charges are ledger lines outside any execution: the payer's
// debit and the platform's credit for one period of a team's plan
// (RULINGS "Teams, projects, invites, profiles": billing). HoldID names the
// subscription, ExecutionID the period.
const (
	KindSubscription         = "subscription"
	KindSubscriptionPlatform = "subscription_platform"
)

// ChargeSubscription records one period's price paid by payerID to the
// platform. The built-in ledger moves no money, so it never declines; a
// processor outside the machine could (the renewal then goes past due).
func (l Ledger) ChargeSubscription(ctx context.Context, tx *db.Tx, subscriptionID, period, payerID string, amount money.Cents, currency string) error {
	return tx.LedgerEntry.CreateBulk(
		tx.LedgerEntry.Create().SetHoldID(subscriptionID).SetExecutionID(period).SetKind(KindSubscription).
			SetAccount(payerID).SetAmount(-amount).SetCurrency(currency),
		tx.LedgerEntry.Create().SetHoldID(subscriptionID).SetExecutionID(period).SetKind(KindSubscriptionPlatform).
			SetAccount(PlatformAccount).SetAmount(amount).SetCurrency(currency),
	).Exec(ctx)
}
