package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// DeveloperKey is a developer's long-lived key (sbd_…) for the developer API:
// registering and changing its agents. Only a hash is kept. It is not an API
// key (sbk_…): it reaches no account data, only the developer routes.
type DeveloperKey struct{ ent.Schema }

// Mixin of the DeveloperKey.
func (DeveloperKey) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the DeveloperKey.
func (DeveloperKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("label").NotEmpty().MaxLen(500),
		field.String("prefix").Immutable(),
		// SHA-256 of the key, hex.
		field.String("key_hash").Unique().Immutable().Sensitive(),
		field.Bool("active").Default(true),
		field.Time("created_at").Immutable(),
		field.Time("last_used_at").Optional().Nillable(),
	}
}

// Edges of the DeveloperKey.
func (DeveloperKey) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("developer_keys").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the DeveloperKey.
func (DeveloperKey) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id")}
}
