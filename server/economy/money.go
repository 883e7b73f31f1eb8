package economy

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contract"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
)

// A contract's money is journalled in the store's ledger (LedgerEntry,
// server/store/payments): the client's hold moves the price into escrow,
// a close moves escrow to the provider and the fee, a release or refund
// moves it back. hold_id and execution_id name the contract; the kinds
// carry LedgerPrefix so the store's own lines never mix with them.
const (
	LedgerPrefix = "contract_"
	// Escrow is the account that holds a contract's price until it settles.
	Escrow = "escrow"
	// PlatformAccount is the fee's account (the store's, too).
	PlatformAccount = "platform"
	// PeerAccount prefixes a connection's id: a remote provider's earning
	// on the client's ledger, or a remote client's payment on the
	// provider's.
	PeerAccount = "peer:"
)

// The kinds of a contract's ledger lines (the vocabulary economy_ledger_kind).
var (
	kindHold      = string(vocab.EconomyLedgerKindHold)
	kindHoldRaise = string(vocab.EconomyLedgerKindHoldRaise)
	kindCapture   = string(vocab.EconomyLedgerKindCapture)
	kindFee       = string(vocab.EconomyLedgerKindFee)
	kindRefund    = string(vocab.EconomyLedgerKindRefund)
	kindRelease   = string(vocab.EconomyLedgerKindRelease)
	kindEarning   = string(vocab.EconomyLedgerKindEarning)
)

// CodePaymentRequired is the refusal of a hold the ledger will not take.
const CodePaymentRequired = "PAYMENT_REQUIRED"

// ledger writes a contract's lines on the injected clock, holding no more
// than limit open per client (0: no limit).
type ledger struct {
	now   func() time.Time
	limit money.Cents
}

func (s *Core) ledger() ledger { return ledger{now: s.now, limit: s.HoldLimit} }

type line struct {
	kind, account string
	amount        money.Cents
}

func (l ledger) journal(ctx context.Context, tx *db.Tx, c *ent.Contract, lines ...line) error {
	bulk := make([]*ent.LedgerEntryCreate, 0, len(lines))
	now := l.now()
	for _, ln := range lines {
		if ln.amount == 0 {
			continue
		}
		bulk = append(bulk, tx.LedgerEntry.Create().SetHoldID(c.ID).SetExecutionID(c.ID).SetKind(LedgerPrefix+ln.kind).
			SetAccount(ln.account).SetAmount(ln.amount).SetCurrency(c.Currency).SetCreatedAt(now).SetUpdatedAt(now))
	}
	if len(bulk) == 0 {
		return nil
	}
	return tx.LedgerEntry.CreateBulk(bulk...).Exec(ctx)
}

// hold takes amount more from the client into escrow, refused with 402
// when the client's open holds would pass the instance's limit.
func (l ledger) hold(ctx context.Context, tx *db.Tx, c *ent.Contract, clientID string, amount money.Cents, kind string) error {
	if l.limit > 0 {
		if err := tx.Serialize(ctx, "economy hold "+clientID); err != nil {
			return err
		}
		open, err := l.openHolds(ctx, tx, clientID, c.ID)
		if err != nil {
			return err
		}
		held := c.PriceCents
		if kind == kindHold {
			held = 0
		}
		if open+held+amount > l.limit {
			return &apperr.Error{Kind: apperr.KindPaymentRequired,
				Message: fmt.Sprintf("the ledger refuses to hold %s more: this account holds %s open and may hold at most %s",
					cents(amount, c.Currency), cents(open+held, c.Currency), cents(l.limit, c.Currency)),
				Detail: &switchboardv1.ErrorInfo{Code: CodePaymentRequired}}
		}
	}
	return l.journal(ctx, tx, c, line{kind, clientID, -amount}, line{kind, Escrow, amount})
}

// openHolds sums the prices the client holds open on contracts other than
// except.
func (l ledger) openHolds(ctx context.Context, tx *db.Tx, clientID, except string) (money.Cents, error) {
	rows, err := tx.Contract.Query().Where(contract.ClientUserID(clientID), contract.IDNEQ(except),
		contract.HoldStatusIn(contract.HoldStatusHeld, contract.HoldStatusFrozen)).
		Select(contract.FieldPriceCents).All(ctx)
	if err != nil {
		return 0, err
	}
	var sum money.Cents
	for _, r := range rows {
		sum += r.PriceCents
	}
	return sum, nil
}

// release gives the client the whole price back (a declined or withdrawn
// offer).
func (l ledger) release(ctx context.Context, tx *db.Tx, c *ent.Contract) error {
	return l.journal(ctx, tx, c, line{kindRelease, Escrow, -c.PriceCents}, line{kindRelease, *c.ClientUserID, c.PriceCents})
}

// settle pays out escrow as p says: the provider's share, the fee, the
// client's refund.
func (l ledger) settle(ctx context.Context, tx *db.Tx, c *ent.Contract, p rules.Payout) error {
	provider := PeerAccount + deref(c.ConnectionID)
	if c.ProviderUserID != nil {
		provider = *c.ProviderUserID
	}
	kind := kindEarning
	if Remote(c) {
		kind = kindCapture
	}
	return l.journal(ctx, tx, c,
		line{kindCapture, Escrow, -(p.Provider + p.Fee)}, line{kind, provider, p.Provider}, line{kindFee, PlatformAccount, p.Fee},
		line{kindRefund, Escrow, -p.Refund}, line{kindRefund, *c.ClientUserID, p.Refund})
}

// earned records, on the provider's instance, what the client's instance
// reported paying.
func (l ledger) earned(ctx context.Context, tx *db.Tx, c *ent.Contract, amount money.Cents) error {
	return l.journal(ctx, tx, c, line{kindEarning, *c.ProviderUserID, amount},
		line{kindEarning, PeerAccount + deref(c.ConnectionID), -amount})
}

func cents(c money.Cents, currency string) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d %s", sign, c/100, c%100, currency)
}

// LedgerKind is a stored contract line's kind as its reader sees it, ""
// for a line that is not a contract's.
func LedgerKind(stored string) string {
	if len(stored) > len(LedgerPrefix) && stored[:len(LedgerPrefix)] == LedgerPrefix {
		return stored[len(LedgerPrefix):]
	}
	return ""
}
