package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// StoreInstall is a store agent installed into an account's assistant
// toolkit. Installing also writes the agent's integration kit as memory
// entries (MemoryEntry, source "store_agent"); uninstalling removes both.
type StoreInstall struct{ ent.Schema }

// Mixin of the StoreInstall.
func (StoreInstall) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the StoreInstall.
func (StoreInstall) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("agent_id").Immutable(),
	}
}

// Edges of the StoreInstall.
func (StoreInstall) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("store_installs").Field("user_id").Unique().Required().Immutable(),
		edge.From("store_agent", StoreAgent.Type).Ref("installs").Field("agent_id").Unique().Required().Immutable(),
	}
}

// Indexes of the StoreInstall.
func (StoreInstall) Indexes() []ent.Index {
	return []ent.Index{
		// One installation per account and agent; a second is a 409.
		index.Fields("user_id", "agent_id").Unique(),
		index.Fields("agent_id"),
	}
}
