package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// StoreUnlock is an account's unlock of a store agent with the listing's
// access password: that account's executions of the agent are not charged.
type StoreUnlock struct{ ent.Schema }

// Mixin of the StoreUnlock.
func (StoreUnlock) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the StoreUnlock.
func (StoreUnlock) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("agent_id").Immutable(),
	}
}

// Edges of the StoreUnlock.
func (StoreUnlock) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("store_unlocks").Field("user_id").Unique().Required().Immutable(),
		edge.From("store_agent", StoreAgent.Type).Ref("unlocks").Field("agent_id").Unique().Required().Immutable(),
	}
}

// Indexes of the StoreUnlock.
func (StoreUnlock) Indexes() []ent.Index {
	return []ent.Index{
		// One unlock per account and agent; unlocking again finds it.
		index.Fields("user_id", "agent_id").Unique(),
		index.Fields("agent_id"),
	}
}
