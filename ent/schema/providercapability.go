package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// ProviderCapability is one thing a user offers as a provider (document 2,
// ProviderCapability; RULINGS "The operator network": Jobs): what jobs are
// matched against.
type ProviderCapability struct{ ent.Schema }

// Mixin of the ProviderCapability.
func (ProviderCapability) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the ProviderCapability.
func (ProviderCapability) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.Enum("task_type").Values(vocab.Values("job_task_type")...),
		field.Strings("skills").Optional(),
		field.Text("description").Default(""),
		field.Enum("pricing_model").Values(vocab.Values("capability_pricing_model")...).Optional().Nillable(),
		field.Float("price").Optional().Nillable(),
		field.String("currency").Optional().Nillable(),
		field.String("unit").Optional().Nillable(),
		field.Int("turnaround_days").Optional().Nillable(),
		field.Int("max_concurrent").Optional().Nillable(),
		field.String("sample_work_url").Optional().Nillable(),
		field.Text("requirements").Optional().Nillable(),
	}
}

// Edges of the ProviderCapability.
func (ProviderCapability) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("provider_capabilities").Field("user_id").Unique().Required().Immutable(),
	}
}
