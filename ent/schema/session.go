package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Session is a dashboard login; the cookie carries a token whose hash is stored.
type Session struct{ ent.Schema }

// Mixin of the Session.
func (Session) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the Session.
func (Session) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		// SHA-256 of the cookie token, hex; the token itself is never stored.
		field.String("token_hash").Unique().Immutable().Sensitive(),
		field.Time("created_at").Immutable(),
		field.Time("expires_at"),
	}
}

// Edges of the Session.
func (Session) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("sessions").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Session.
func (Session) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id")}
}
