package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// EditableField is one variable of a capability pack's prompt template.
type EditableField struct {
	Name    string `json:"name"`
	Label   string `json:"label"`
	Type    string `json:"type"`
	Default string `json:"default"`
}

// CapabilityPack is a prompt template with editable fields that extends the
// assistant (document 2, "Capability pack"). Every account sees every pack;
// installing it is per account (CapabilityInstall).
type CapabilityPack struct{ ent.Schema }

// Mixin of the CapabilityPack.
func (CapabilityPack) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}, ProvenanceMixin{}} }

// Fields of the CapabilityPack.
func (CapabilityPack) Fields() []ent.Field {
	return []ent.Field{
		// The creator, who alone sees the access password.
		field.String("user_id").Immutable(),
		field.String("name").NotEmpty(),
		field.Text("description").Optional().Nillable(),
		field.String("icon").Optional().Nillable(),
		field.String("category").Optional().Nillable(),
		field.String("integration_type").Optional().Nillable(),
		field.String("pricing_model").Default("free"),
		// In cents of currency; packs are priced in USD (the API has no
		// currency for them).
		field.Int64("price").GoType(money.Cents(0)).Default(0),
		field.String("currency").Default("USD"),
		field.Text("prompt"),
		field.JSON("editable_fields", []EditableField{}).Default([]EditableField{}),
		// Sealed with the instance key (the pack id as associated data), so
		// the owner can be shown the value; Sensitive keeps it out of String().
		field.Bytes("access_password_sealed").Optional().Nillable().Sensitive(),

		// Capability sync (document 2, "Instance federation"): a pack synced
		// from a spoke keeps that instance's id for it in remote_id, has a
		// slug unique among packs that have one, and waits in the hub's review
		// like a synced listing. Local packs are active and have no slug.
		field.Enum("status").Values(vocab.Values("listing_status")...).Default("active"),
		field.String("status_before_suspend").Optional().Nillable(),
		field.String("slug").Optional().Nillable().Unique(),
		field.String("source_instance_id").Optional().Nillable(),
		field.String("remote_id").Optional().Nillable(),
		// The dynamic module fields: the static prompt group it extends,
		// its case-insensitive signal patterns, its size and whether it loads
		// without a match.
		field.String("prompt_group").Optional().Nillable(),
		// Nullable so that the column can be added to existing rows; read nil
		// as none.
		field.Strings("signal_patterns").Optional(),
		field.Int("token_estimate").Default(0),
		field.Bool("always_load").Default(false),
		// On a spoke, the hub's last decision on this instance's own pack
		// (the capability_approval webhook): its status there, its id
		// there and the decision's time, which orders decisions.
		field.String("hub_status").Optional().Nillable(),
		field.String("marketplace_id").Optional().Nillable(),
		field.Time("hub_decided_at").Optional().Nillable(),
	}
}

// Edges of the CapabilityPack.
func (CapabilityPack) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("capability_packs").Field("user_id").Unique().Required().Immutable(),
		edge.To("installs", CapabilityInstall.Type),
	}
}

// Indexes of the CapabilityPack.
func (CapabilityPack) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("created_at"),
		index.Fields("status", "created_at"),
		index.Fields("source_instance_id", "remote_id").Unique(),
	}
}
