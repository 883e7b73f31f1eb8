package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// WorkPattern is what a user publishes to the operator network of how they
// take work (RULINGS "The operator network": patterns); peers read it.
type WorkPattern struct{ ent.Schema }

// Mixin of the WorkPattern.
func (WorkPattern) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the WorkPattern.
func (WorkPattern) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.Strings("task_types").Optional(),
		field.Strings("skills").Optional(),
		field.Int("max_concurrent").Default(0),
		field.Float("typical_turnaround_hours").Default(0),
	}
}

// Edges of the WorkPattern.
func (WorkPattern) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("work_pattern").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the WorkPattern.
func (WorkPattern) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id").Unique()}
}
