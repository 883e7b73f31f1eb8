package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ChatMessage is one message of an account's shared chat, which the operator,
// the assistant and outside agents all write to. Messages are never edited.
type ChatMessage struct{ ent.Schema }

// Mixin of the ChatMessage.
func (ChatMessage) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the ChatMessage.
func (ChatMessage) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		// Free text (`user`, `assistant`, `system` in practice), published as stored.
		field.String("role"),
		field.Text("content"),
		// JSON text, passed through as given.
		field.Text("metadata").Optional(),
		// The `type` key of metadata, copied out so the comms filter is an index lookup.
		field.String("metadata_type").Optional().Nillable(),
		field.String("agent_name").Optional().Nillable(),
		field.Time("cleared_at").Optional().Nillable(),
		field.String("sandbox_id").Optional().Nillable(),
		field.Time("created_at").Immutable(),
	}
}

// Edges of the ChatMessage.
func (ChatMessage) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("chat_messages").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ChatMessage.
func (ChatMessage) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "created_at"),
		index.Fields("user_id", "metadata_type", "created_at"),
	}
}
