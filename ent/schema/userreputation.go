package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// UserReputation is an account's standing in the task economy (document 2,
// "Other records": User reputation), recalculated after every review it takes
// part in, as requester or as the reviewed agent's owner. No row means no
// review yet.
type UserReputation struct{ ent.Schema }

// Mixin of the UserReputation.
func (UserReputation) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the UserReputation.
func (UserReputation) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Unique().Immutable(),
		field.Enum("task_economy_role").Values(vocab.Values("economy_role")...),
		// 0 to 100.
		field.Float("reputation_score").Default(0),
		// Averages of 1 to 5 stars; nil while there is no rating to average.
		field.Float("avg_rating").Optional().Nillable(),
		field.Float("avg_provider_rating").Optional().Nillable(),
		field.Float("avg_client_rating").Optional().Nillable(),
		// What the averages and the score were computed from.
		field.Int("reviews_received").Default(0),
		field.Int("reviews_given").Default(0),
	}
}

// Edges of the UserReputation.
func (UserReputation) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("reputation").Field("user_id").Unique().Required().Immutable(),
	}
}
