package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// PeerPattern is what this side learned of a connection's published work
// patterns, kept for routing (RULINGS "The operator network": each side
// keeps what it learns of its peers). It goes with its connection.
type PeerPattern struct{ ent.Schema }

// Mixin of the PeerPattern.
func (PeerPattern) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the PeerPattern.
func (PeerPattern) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("connection_id").Immutable(),
		field.Strings("task_types").Optional(),
		field.Strings("skills").Optional(),
		field.Int("max_concurrent").Default(0),
		field.Float("typical_turnaround_hours").Default(0),
		// When the peer last published them; absent when it never did.
		field.Time("published_at").Optional().Nillable(),
		field.Time("fetched_at"),
	}
}

// Edges of the PeerPattern.
func (PeerPattern) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("peer_patterns").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the PeerPattern.
func (PeerPattern) Indexes() []ent.Index {
	return []ent.Index{index.Fields("connection_id").Unique()}
}
