package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// Onboarding is where one account's onboarding checklist stands (RULINGS
// "Onboarding, sprite, admin views, the developer portal"): made by
// setup-project, once per user. The steps completed are kept here, so the
// checklist survives its card being edited or deleted on the board; the card
// "Getting started" and its project are the checklist as the board shows it.
type Onboarding struct{ ent.Schema }

// Mixin of the Onboarding.
func (Onboarding) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the Onboarding.
func (Onboarding) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Unique().Immutable(),
		field.String("project_id").Optional().Nillable(),
		field.String("card_id").Optional().Nillable(),
		// The keys of the completed steps (vocabulary onboarding_step), in
		// the order they were completed.
		field.Strings("steps").Default([]string{}),
		// When the sixth step was completed.
		field.Time("completed_at").Optional().Nillable(),
	}
}
