package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// FederationMembership is this instance's membership of a hub: one row at
// most. While joining it holds the secret being registered, sealed, so that
// the hub's verification can be answered by any replica; once joined it
// holds the platform token sealed and the secret hashed.
type FederationMembership struct{ ent.Schema }

// Mixin of the FederationMembership.
func (FederationMembership) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the FederationMembership.
func (FederationMembership) Fields() []ent.Field {
	return []ent.Field{
		field.String("hub_url"),
		// The secret (sbi_…) being registered, sealed; cleared once joined.
		field.String("pending_api_key_sealed").Optional().Nillable().Sensitive(),
		// Until when the pending secret answers verification.
		field.Time("pending_until").Optional().Nillable(),
		// SHA-256 of the secret (sbi_…), hex: the hub presents the secret.
		field.String("api_key_hash").Optional().Nillable().Sensitive(),
		// The platform token (sbp_…) sealed with the instance key.
		field.String("platform_token_sealed").Optional().Nillable().Sensitive(),
		// This instance's id on the hub.
		field.String("instance_id").Optional().Nillable(),
		field.Time("joined_at").Optional().Nillable(),
		field.Bool("store_participation").Default(false),
		field.Time("last_sync_at").Optional().Nillable(),
		field.Time("last_heartbeat_at").Optional().Nillable(),
		field.Bool("last_heartbeat_ok").Default(false),
		field.String("last_heartbeat_error").Optional().Nillable(),
		field.Int("network_instances").Default(0),
		field.Int("network_users").Default(0),
		field.Int("network_agents").Default(0),
		// The health this instance announces in its heartbeats, set by its
		// admin (maintenance stops the hub's dispatch here).
		field.Enum("health").Values(vocab.Values("instance_health")...).Default("healthy"),
	}
}
