package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// AssistantMessage is one turn of the operator's private conversation with
// the assistant, apart from the shared chat: the operator's message as sent,
// and the assistant's reply once it finished (a reply that failed midway is
// never stored), with what its action tags did.
type AssistantMessage struct{ ent.Schema }

// Mixin of the AssistantMessage.
func (AssistantMessage) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the AssistantMessage.
func (AssistantMessage) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		// user (the operator) or assistant.
		field.Enum("role").Values(vocab.Values("assistant_role")...).Immutable(),
		field.Text("content").Immutable(),
		// The reply's executed tags as the REST mirror renders them (a JSON
		// array); empty for the operator's turns. A held tag the operator
		// runs later is replaced by what it did.
		field.Text("tags").Optional(),
		// The reply's prompt held text from outside the operator (relays,
		// A2A tasks, kits…): a later prompt that carries this turn is
		// outside too.
		field.Bool("outside").Default(false).Immutable(),
		field.Time("created_at").Immutable(),
	}
}

// Edges of the AssistantMessage.
func (AssistantMessage) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("assistant_messages").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the AssistantMessage.
func (AssistantMessage) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id", "created_at")}
}
