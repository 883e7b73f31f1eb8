package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// NetworkPreference is how one user takes relays from their connections
// (RULINGS "The operator network": GET|PUT /api/federation/preferences). An
// account without a row has the defaults.
type NetworkPreference struct{ ent.Schema }

// Mixin of the NetworkPreference.
func (NetworkPreference) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the NetworkPreference.
func (NetworkPreference) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		// Accept requests from allowlisted origins at once.
		field.Bool("auto_accept").Default(false),
		field.Strings("muted_topics").Optional(),
		// Quiet hours as HH:MM in time_zone; absent when there are none.
		field.String("quiet_start").Optional().Nillable(),
		field.String("quiet_end").Optional().Nillable(),
		field.String("quiet_time_zone").Optional().Nillable(),
		field.Bool("ambient_enabled").Default(true),
		field.Int("max_open_relays").Default(50),
		// When the operator last read the network briefing (its "since").
		field.Time("briefed_at").Optional().Nillable(),
		// The linked-card digest (server/network/relays, digest.go): when the
		// changes heard since cards_digested_at are next due as a comms message.
		field.Time("cards_digest_due").Optional().Nillable(),
		field.Time("cards_digested_at").Optional().Nillable(),
	}
}

// Edges of the NetworkPreference.
func (NetworkPreference) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("network_preference").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the NetworkPreference.
func (NetworkPreference) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id").Unique()}
}
