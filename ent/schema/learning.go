package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Learning is one thing Switchboard learned of an operator (document 2
// "Other records"): written by hand or derived by the analysis, which
// refreshes a learning of the same content instead of adding another.
type Learning struct{ ent.Schema }

// Mixin of the Learning.
func (Learning) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the Learning.
func (Learning) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.Enum("category").Values(vocab.Values("learning_category")...),
		field.Text("content"),
		// The analysis's key of what the learning says (category and subject),
		// stable when the content is edited or phrased; nil for a manual one.
		field.String("key").Optional().Nillable(),
		field.Float("confidence").Default(1),
		field.String("source").Default("manual"),
		field.Int("evidence").Default(0),
		field.Bool("dismissed").Default(false),
		field.Time("seen_at").Optional().Nillable(),
	}
}

// Edges of the Learning.
func (Learning) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("learnings").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Learning.
func (Learning) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "key").Unique(),
		index.Fields("user_id", "created_at"),
	}
}
