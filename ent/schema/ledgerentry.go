package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/money"
)

// LedgerEntry is one append-only line of the built-in payment ledger: an
// authorization, a capture (split into the developer's and the platform's
// lines) or a release of a PaymentHold. Rows are never changed.
type LedgerEntry struct{ ent.Schema }

// Mixin of the LedgerEntry.
func (LedgerEntry) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the LedgerEntry.
func (LedgerEntry) Fields() []ent.Field {
	return []ent.Field{
		field.String("hold_id").Immutable(),
		field.String("execution_id").Immutable(),
		// authorize, capture_developer, capture_platform or release.
		field.String("kind").Immutable(),
		// A user id, or "platform" for the store's fee.
		field.String("account").Immutable(),
		// In cents of currency. Positive: owed to the account; the payer's
		// authorize is negative.
		field.Int64("amount").GoType(money.Cents(0)).Immutable(),
		field.String("currency").Immutable(),
	}
}

// Indexes of the LedgerEntry.
func (LedgerEntry) Indexes() []ent.Index {
	return []ent.Index{index.Fields("hold_id"), index.Fields("account", "created_at")}
}
