package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/money"
)

// PaymentHold is the built-in ledger provider's manual-capture authorization
// for one paid store execution (RULINGS "Store, federation, MCP, A2A":
// authorize at dispatch, capture on confirm, release on deny, failure or
// timeout). One hold per execution; its money moves only as LedgerEntry
// rows.
type PaymentHold struct{ ent.Schema }

// Mixin of the PaymentHold.
func (PaymentHold) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the PaymentHold.
func (PaymentHold) Fields() []ent.Field {
	return []ent.Field{
		field.String("execution_id").Immutable().Unique(),
		// The requester who pays and the listing's owner who is paid.
		field.String("payer_id").Immutable(),
		field.String("payee_id").Immutable(),
		field.String("payment_method_id").Immutable(),
		// Amounts in cents of currency.
		field.Int64("amount").GoType(money.Cents(0)).Immutable(),
		field.String("currency").Immutable(),
		// The split decided at authorization, so a later fee change does not
		// reprice a held payment.
		field.Int64("developer_payout").GoType(money.Cents(0)).Immutable(),
		field.Int64("platform_fee").GoType(money.Cents(0)).Immutable(),
		field.Float("fee_percent").Immutable(),
		field.Enum("status").Values("held", "captured", "released"),
		field.Time("expires_at"),
		field.Time("settled_at").Optional().Nillable(),
	}
}

// Indexes of the PaymentHold.
func (PaymentHold) Indexes() []ent.Index {
	return []ent.Index{index.Fields("payer_id", "created_at"), index.Fields("status", "expires_at")}
}
