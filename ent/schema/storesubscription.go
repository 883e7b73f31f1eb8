package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// StoreSubscription is an account's subscription to a store agent.
type StoreSubscription struct{ ent.Schema }

// Mixin of the StoreSubscription.
func (StoreSubscription) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the StoreSubscription.
func (StoreSubscription) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("agent_id").Immutable(),
	}
}

// Edges of the StoreSubscription.
func (StoreSubscription) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("store_subscriptions").Field("user_id").Unique().Required().Immutable(),
		edge.From("store_agent", StoreAgent.Type).Ref("subscriptions").Field("agent_id").Unique().Required().Immutable(),
	}
}

// Indexes of the StoreSubscription.
func (StoreSubscription) Indexes() []ent.Index {
	return []ent.Index{
		// One subscription per account and agent; a second is a 409.
		index.Fields("user_id", "agent_id").Unique(),
		index.Fields("agent_id"),
	}
}
