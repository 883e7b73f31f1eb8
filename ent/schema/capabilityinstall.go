package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CapabilityInstall is a capability pack installed by one account, with that
// account's values for the editable fields and the prompt they resolve to.
// Uninstalling clears active and keeps the row, so a later install restores
// the customizations.
type CapabilityInstall struct{ ent.Schema }

// Mixin of the CapabilityInstall.
func (CapabilityInstall) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}, ProvenanceMixin{}} }

// Fields of the CapabilityInstall.
func (CapabilityInstall) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("capability_id").Immutable(),
		field.Bool("active").Default(true),
		field.JSON("customizations", map[string]string{}).Default(map[string]string{}),
		field.Text("resolved_prompt").Optional().Nillable(),
	}
}

// Edges of the CapabilityInstall.
func (CapabilityInstall) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("capability_installs").Field("user_id").Unique().Required().Immutable(),
		edge.From("capability", CapabilityPack.Type).Ref("installs").Field("capability_id").Unique().Required().Immutable(),
	}
}

// Indexes of the CapabilityInstall.
func (CapabilityInstall) Indexes() []ent.Index {
	return []ent.Index{
		// One row per account and pack; reinstalling reactivates it.
		index.Fields("user_id", "capability_id").Unique(),
		index.Fields("capability_id"),
	}
}
