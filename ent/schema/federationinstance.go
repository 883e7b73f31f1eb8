package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// FederationInstance is a spoke registered with this hub. The hub keeps the
// hash of the platform token it issued (the spoke presents it) and the
// spoke's own secret sealed (the hub presents it on its calls to the spoke).
type FederationInstance struct{ ent.Schema }

// Mixin of the FederationInstance.
func (FederationInstance) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the FederationInstance.
func (FederationInstance) Fields() []ent.Field {
	return []ent.Field{
		field.String("name"),
		// Verified at registration; the only address the hub calls.
		field.String("base_url").Unique().Immutable(),
		// SHA-256 of the spoke's secret (sbi_…), hex: a re-registration
		// with another secret is refused.
		field.String("api_key_hash").Sensitive(),
		// The spoke's secret sealed with the instance key (row-bound).
		field.String("api_key_sealed").Sensitive(),
		// SHA-256 of the current platform token (sbp_…), hex.
		field.String("token_hash").Unique().Sensitive(),
		// The first characters of the platform token, shown to admins.
		field.String("token_prefix"),
		// Set by an admin's deactivation, cleared by reactivation.
		field.Time("deactivated_at").Optional().Nillable(),
		// Set when the spoke leaves; its token no longer works.
		field.Time("left_at").Optional().Nillable(),
		field.Enum("health").Values(vocab.Values("instance_health")...).Default("healthy"),
		field.String("version").Optional().Nillable(),
		field.Int("user_count").Default(0),
		field.Int("agent_count").Default(0),
		field.JSON("capabilities", map[string]any{}).Optional(),
		field.Bool("store_participation").Default(false),
		field.Time("last_heartbeat_at").Optional().Nillable(),
		// The hub account whose connect token registered it.
		field.String("registered_by"),
	}
}

// Indexes of the FederationInstance.
func (FederationInstance) Indexes() []ent.Index {
	return []ent.Index{index.Fields("created_at")}
}
