package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Project groups cards and queue items (RULINGS "Teams, projects, invites,
// profiles"). Like a team it belongs to no one account: its members reach
// it through ProjectMember, and reading it is decided by membership and
// visibility. Cards and queue items name it by project_id.
type Project struct{ ent.Schema }

// Mixin of the Project.
func (Project) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the Project.
func (Project) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty(),
		field.Text("description").Optional().Nillable(),
		field.String("team_id").Optional().Nillable(),
		field.String("color"),
		field.Enum("visibility").Values(vocab.Values("project_visibility")...).Default("private"),
		field.Enum("status").Values(vocab.Values("project_status")...).Default("active"),
		field.Enum("kind").Values(vocab.Values("project_kind")...).Default("standard"),
		field.String("lead_id"),
		// A mirror of another instance's project, joined over the network
		// (relay v2.3.2): the connection it came through and its id there.
		field.String("origin_connection_id").Optional().Nillable().Immutable(),
		field.String("origin_id").Optional().Nillable().Immutable(),
	}
}

// Edges of the Project.
func (Project) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("members", ProjectMember.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("invites", ProjectInvite.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Project.
func (Project) Indexes() []ent.Index {
	return []ent.Index{index.Fields("team_id"), index.Fields("origin_connection_id", "origin_id").Unique()}
}

// ProjectMember is one member of a project: a local user, or a connection's
// peer. via_team is set for a member who came through a team assignment
// and is in the project only because of it.
type ProjectMember struct{ ent.Schema }

// Mixin of the ProjectMember.
func (ProjectMember) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the ProjectMember.
func (ProjectMember) Fields() []ent.Field {
	return []ent.Field{
		field.String("project_id").Immutable(),
		field.String("user_id").Optional().Nillable().Immutable(),
		field.String("connection_id").Optional().Nillable().Immutable(),
		field.Enum("role").Values(vocab.Values("project_role")...),
		field.String("via_team_id").Optional().Nillable(),
	}
}

// Edges of the ProjectMember.
func (ProjectMember) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("project", Project.Type).Ref("members").Field("project_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ProjectMember.
func (ProjectMember) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("project_id", "user_id").Unique(),
		index.Fields("project_id", "connection_id").Unique(),
		index.Fields("user_id"),
	}
}

// ProjectInvite is an invite to a project (document 2 "Other states").
type ProjectInvite struct{ ent.Schema }

// Mixin of the ProjectInvite.
func (ProjectInvite) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the ProjectInvite.
func (ProjectInvite) Fields() []ent.Field {
	return []ent.Field{
		field.String("project_id").Immutable(),
		field.Enum("role").Values(vocab.Values("project_role")...),
		// The target: exactly one. An email naming a local user is stored as
		// that user's id, so the same person is one target.
		field.String("target_user_id").Optional().Nillable().Immutable(),
		field.String("target_email").Optional().Nillable().Immutable(),
		field.String("target_connection_id").Optional().Nillable().Immutable(),
		field.Enum("status").Values(vocab.Values("invite_status")...).Default("pending"),
		field.String("invited_by"),
		field.Text("message").Optional().Nillable(),
		field.String("queue_item_id").Optional().Nillable(),
		field.String("relay_id").Optional().Nillable(),
		field.Time("answered_at").Optional().Nillable(),
	}
}

// Edges of the ProjectInvite.
func (ProjectInvite) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("project", Project.Type).Ref("invites").Field("project_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ProjectInvite.
func (ProjectInvite) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("project_id", "status"),
		index.Fields("target_user_id", "status"),
	}
}
