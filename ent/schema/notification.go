package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Notification is one notification a connection's peer sent to a user here
// (RULINGS "The operator network": Notifications). It outlives its
// connection: connection_id is a plain id, not an edge.
type Notification struct{ ent.Schema }

// Mixin of the Notification.
func (Notification) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the Notification.
func (Notification) Fields() []ent.Field {
	return []ent.Field{
		// The recipient.
		field.String("user_id").Immutable(),
		field.String("connection_id").Optional().Nillable(),
		field.Enum("type").Values(vocab.Values("notification_type")...).Immutable(),
		field.Text("title").Immutable(),
		field.Text("body").Default("").Immutable(),
		// The sender's object, JSON.
		field.Text("metadata").Default("{}").Immutable(),
		field.String("from_user_name").Default("").Immutable(),
		field.String("from_user_email").Immutable(),
		// The sender's verified origin.
		field.String("from_instance_url").Immutable(),
		field.Time("read_at").Optional().Nillable(),
	}
}

// Edges of the Notification.
func (Notification) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("notifications").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Notification.
func (Notification) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "created_at"),
	}
}
