package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// DeveloperTeamMember is one member of a developer account's team (RULINGS
// "Onboarding, sprite, admin views, the developer portal"): another account
// of this instance, added by email, who may manage the owner's agents in the
// developer portal.
type DeveloperTeamMember struct{ ent.Schema }

// Mixin of the DeveloperTeamMember.
func (DeveloperTeamMember) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the DeveloperTeamMember.
func (DeveloperTeamMember) Fields() []ent.Field {
	return []ent.Field{
		// The developer account whose team it is.
		field.String("owner_id").Immutable(),
		// The member's account.
		field.String("member_id").Immutable(),
	}
}

// Edges of the DeveloperTeamMember.
func (DeveloperTeamMember) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("owner", User.Type).Ref("developer_team").Field("owner_id").Unique().Required().Immutable(),
		edge.From("member", User.Type).Ref("developer_memberships").Field("member_id").Unique().Required().Immutable(),
	}
}

// Indexes of the DeveloperTeamMember.
func (DeveloperTeamMember) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("owner_id", "member_id").Unique(),
		// Whose agents a member may manage.
		index.Fields("member_id"),
	}
}
