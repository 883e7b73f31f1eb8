package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// BehaviorSignal is one thing an operator did (document 2 "Other records"),
// kept 180 days for the learnings' analysis and the admin's workflows.
type BehaviorSignal struct{ ent.Schema }

// Mixin of the BehaviorSignal.
func (BehaviorSignal) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the BehaviorSignal.
func (BehaviorSignal) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("action").NotEmpty().Immutable(),
		// A JSON object, at most 4 KB.
		field.Text("context").Default("{}").Immutable(),
		// 0 to 23 and 0 (Sunday) to 6, in the account's timezone.
		field.Int("hour").Immutable(),
		field.Int("day_of_week").Immutable(),
		// Milliseconds, when the client said.
		field.Int64("duration").Optional().Nillable().Immutable(),
	}
}

// Edges of the BehaviorSignal.
func (BehaviorSignal) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("behavior_signals").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the BehaviorSignal.
func (BehaviorSignal) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "created_at"),
		index.Fields("created_at"),
	}
}
