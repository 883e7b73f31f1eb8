package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// TeamSubscription is a platform team's plan on the managed platform
// (RULINGS "Teams, projects, invites, profiles": billing): one per team,
// charged monthly to its payer through the store's ledger.
type TeamSubscription struct{ ent.Schema }

// Mixin of the TeamSubscription.
func (TeamSubscription) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the TeamSubscription.
func (TeamSubscription) Fields() []ent.Field {
	return []ent.Field{
		field.String("team_id").Unique().Immutable(),
		// Who pays: the owner who subscribed.
		field.String("payer_id"),
		field.Enum("plan").Values(vocab.Values("team_plan")...),
		field.Enum("status").Values(vocab.Values("subscription_status")...),
		field.Int("extra_seats").Default(0),
		field.Int64("amount_cents").GoType(money.Cents(0)),
		field.String("currency"),
		field.Time("current_period_end"),
		field.Time("past_due_since").Optional().Nillable(),
	}
}

// Indexes of the TeamSubscription.
func (TeamSubscription) Indexes() []ent.Index {
	// The renewal timer reads what is due.
	return []ent.Index{index.Fields("status", "current_period_end")}
}
