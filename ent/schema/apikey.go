package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// APIKey lets an outside agent act on one account; only a hash of it is kept.
type APIKey struct{ ent.Schema }

// Mixin of the APIKey.
func (APIKey) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the APIKey.
func (APIKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("label").NotEmpty().MaxLen(500),
		// Empty means every scope.
		field.Strings("scopes").Default([]string{}),
		// The first characters of the key, shown to recognise it.
		field.String("prefix").Immutable(),
		// SHA-256 of the key, hex. Keys carry 256 random bits, so a fast hash is
		// as safe as a slow one and keeps every request's lookup cheap.
		field.String("key_hash").Unique().Immutable().Sensitive(),
		field.Bool("active").Default(true),
		field.Time("created_at").Immutable(),
		field.Time("last_used_at").Optional().Nillable(),
		field.Time("expires_at").Optional().Nillable(),
	}
}

// Edges of the APIKey.
func (APIKey) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("api_keys").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the APIKey.
func (APIKey) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id")}
}
