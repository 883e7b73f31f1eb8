// Package payments holds the store's money (docs/decisions.md "Store,
// federation, MCP, A2A": payments go through a provider interface; the built-in provider is a
// ledger with manual-capture holds). A paid execution gets a hold when it is
// dispatched (Authorize), the hold is captured when the requester confirms
// the result (Capture) and released on deny, failure, timeout or a declined
// quote (Release). The revenue split follows the store fee with its 15 %
// floor (docs/decisions.md "Store limits").
//
// The helpers Hold, Capture and Release move an execution's
// payment_hold_status together with the provider, inside the caller's
// transaction, so the execution row and the ledger never disagree.
package payments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/money"
)

// MinFeePercent is the store fee floor (docs/decisions.md "Store limits").
const MinFeePercent = 15.0

// HoldLifetime is how long an authorization stays valid: longer than the
// 48-hour review window plus a queue wait, like a card network's week.
const HoldLifetime = 7 * 24 * time.Hour

// DefaultMethod is the ledger provider's one payment method per account,
// taken when an execute names none.
const DefaultMethod = "ledger_default"

// ErrUnknownMethod marks a payment method the provider does not know.
var ErrUnknownMethod = errors.New("unknown payment method")

// Authorization asks for a hold.
type Authorization struct {
	ExecutionID string
	PayerID     string
	PayeeID     string
	MethodID    string
	Revenue     Revenue
	ExpiresAt   time.Time
}

// Provider takes, captures and releases manual-capture holds. Methods run in
// the caller's transaction; a provider outside the machine (a card
// processor) would record its reference in the same transaction and call
// out after it commits.
type Provider interface {
	// Method resolves a requested payment method ("" for the default) to
	// the id to hold with; ErrUnknownMethod when it is not the payer's. tx
	// is nil for the check made before a transaction starts.
	Method(ctx context.Context, tx *db.Tx, payerID, requested string) (string, error)
	Authorize(ctx context.Context, tx *db.Tx, a Authorization) error
	Capture(ctx context.Context, tx *db.Tx, executionID string) error
	Release(ctx context.Context, tx *db.Tx, executionID string) error
}

// Revenue is the split of one paid execution, in cents of Currency.
type Revenue struct {
	Gross           money.Cents
	DeveloperPayout money.Cents
	PlatformFee     money.Cents
	FeePercent      float64
	Currency        string
}

// Split divides gross at feePercent (raised to the store's floor), the fee
// rounded half away from zero to the cent and the developer getting the
// rest, so the two always add up to the gross: integer arithmetic throughout.
func Split(gross money.Cents, feePercent float64, currency string) Revenue {
	return split(gross, feePercent, MinFeePercent, currency)
}

// split is Split with the floor given: the store's, or recruiting's for
// ValidatePayment.
func split(gross money.Cents, feePercent, floor float64, currency string) Revenue {
	feePercent = math.Max(feePercent, floor)
	fee := gross.Percent(feePercent)
	return Revenue{Gross: gross, PlatformFee: fee, DeveloperPayout: gross - fee, FeePercent: feePercent, Currency: currency}
}

// Hold authorizes r for ex and records it on the execution: status held,
// the expiry, the revenue split and the method.
func Hold(ctx context.Context, tx *db.Tx, p Provider, ex *ent.Execution, payeeID, methodID string, r Revenue, now time.Time) (*ent.Execution, error) {
	if ex.PaymentHoldStatus != execution.PaymentHoldStatusNone {
		return nil, fmt.Errorf("payments: execution %s already has a hold (%s)", ex.ID, ex.PaymentHoldStatus)
	}
	expires := now.Add(HoldLifetime)
	err := p.Authorize(ctx, tx, Authorization{ExecutionID: ex.ID, PayerID: ex.UserID, PayeeID: payeeID,
		MethodID: methodID, Revenue: r, ExpiresAt: expires})
	if err != nil {
		return nil, err
	}
	return tx.Execution.UpdateOneID(ex.ID).SetPaymentHoldStatus(execution.PaymentHoldStatusHeld).
		SetHoldExpiresAt(expires).SetPaymentMethodID(methodID).SetCurrency(r.Currency).SetGross(r.Gross).
		SetDeveloperPayout(r.DeveloperPayout).SetPlatformFee(r.PlatformFee).SetFeePercent(r.FeePercent).
		SetUpdatedAt(now).Save(ctx)
}

// Capture takes a held payment (the review's confirm). Anything but held is
// refused: capturing twice or after a release would move money twice.
func Capture(ctx context.Context, tx *db.Tx, p Provider, ex *ent.Execution, now time.Time) (*ent.Execution, error) {
	return settle(ctx, tx, ex, now, execution.PaymentHoldStatusCaptured, p.Capture)
}

// Release gives a held payment back (deny, failure, timeout, declined
// quote). An execution without a hold is answered unchanged, so callers may
// release on every failure path.
func Release(ctx context.Context, tx *db.Tx, p Provider, ex *ent.Execution, now time.Time) (*ent.Execution, error) {
	if ex.PaymentHoldStatus == execution.PaymentHoldStatusNone {
		return ex, nil
	}
	return settle(ctx, tx, ex, now, execution.PaymentHoldStatusReleased, p.Release)
}

func settle(ctx context.Context, tx *db.Tx, ex *ent.Execution, now time.Time, to execution.PaymentHoldStatus,
	move func(context.Context, *db.Tx, string) error) (*ent.Execution, error) {
	// Conditional on held, so two settlements racing cannot both move money.
	n, err := tx.Execution.Update().Where(execution.ID(ex.ID), execution.PaymentHoldStatusEQ(execution.PaymentHoldStatusHeld)).
		SetPaymentHoldStatus(to).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: execution %s is %s, not held", ErrNotHeld, ex.ID, ex.PaymentHoldStatus)
	}
	if err := move(ctx, tx, ex.ID); err != nil {
		return nil, err
	}
	return tx.Execution.Get(ctx, ex.ID)
}

// ErrNotHeld marks a capture or release of a payment that is not held.
var ErrNotHeld = errors.New("payment not held")

// HubCheck is a joined spoke's validate-payment answer at the settlement of
// a paid execution of its own listing: Validated whether the hub accepted
// the fee (false too when the hub could not be reached, and then the local
// fee is kept), EnforcedFeePercent the hub's enforced fee (nil when it
// could not be reached).
type HubCheck struct {
	Validated          bool
	EnforcedFeePercent *float64
}
