package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Team groups operators (RULINGS "Teams, projects, invites, profiles"). It
// belongs to no one account: its members reach it through TeamMember, and
// every read checks the caller's membership (or the team's visibility).
type Team struct{ ent.Schema }

// Mixin of the Team.
func (Team) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the Team.
func (Team) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty(),
		// In the usernames' namespace (server/accounts checks both ways).
		field.String("handle").Unique().NotEmpty(),
		field.Text("description").Optional().Nillable(),
		field.String("avatar_url").Optional().Nillable(),
		field.Enum("visibility").Values(vocab.Values("team_visibility")...).Default("public"),
		field.String("origin_instance_url").Optional().Nillable(),
		field.Bool("is_self_hosted").Default(true),
		field.String("owner_id"),
		// A mirror of another instance's team, joined over the network
		// (relay v2.3.2): the connection it came through and its id there.
		field.String("origin_connection_id").Optional().Nillable().Immutable(),
		field.String("origin_id").Optional().Nillable().Immutable(),
	}
}

// Edges of the Team.
func (Team) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("members", TeamMember.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("invites", TeamInvite.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Team.
func (Team) Indexes() []ent.Index {
	return []ent.Index{index.Fields("origin_connection_id", "origin_id").Unique()}
}

// TeamMember is one member of a team: a local user, or a connection's peer
// (connection_id set, user_id empty).
type TeamMember struct{ ent.Schema }

// Mixin of the TeamMember.
func (TeamMember) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the TeamMember.
func (TeamMember) Fields() []ent.Field {
	return []ent.Field{
		field.String("team_id").Immutable(),
		field.String("user_id").Optional().Nillable().Immutable(),
		field.String("connection_id").Optional().Nillable().Immutable(),
		field.Enum("role").Values(vocab.Values("team_role")...),
	}
}

// Edges of the TeamMember.
func (TeamMember) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("team", Team.Type).Ref("members").Field("team_id").Unique().Required().Immutable(),
	}
}

// Indexes of the TeamMember.
func (TeamMember) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("team_id", "user_id").Unique(),
		index.Fields("team_id", "connection_id").Unique(),
		// A user's teams.
		index.Fields("user_id"),
	}
}

// TeamInvite is a token invite to a team, stored by the token's hash.
type TeamInvite struct{ ent.Schema }

// Mixin of the TeamInvite.
func (TeamInvite) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the TeamInvite.
func (TeamInvite) Fields() []ent.Field {
	return []ent.Field{
		field.String("team_id").Immutable(),
		field.String("token_hash").Unique().Immutable().Sensitive(),
		field.Enum("role").Values(vocab.Values("team_role")...),
		field.Text("message").Optional().Nillable(),
		// The target: at most one; none is an open link.
		field.String("target_email").Optional().Nillable(),
		field.String("target_user_id").Optional().Nillable(),
		field.String("target_connection_id").Optional().Nillable(),
		// pending, accepted, declined or cancelled; expired is read from expires_at.
		field.Enum("status").Values(vocab.Values("invite_status")...).Default("pending"),
		field.String("invited_by"),
		field.Time("expires_at"),
		field.Time("answered_at").Optional().Nillable(),
		field.String("answered_by").Optional().Nillable(),
		field.String("relay_id").Optional().Nillable(),
	}
}

// Edges of the TeamInvite.
func (TeamInvite) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("team", Team.Type).Ref("invites").Field("team_id").Unique().Required().Immutable(),
	}
}

// Indexes of the TeamInvite.
func (TeamInvite) Indexes() []ent.Index {
	return []ent.Index{index.Fields("team_id", "status")}
}
