package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// QualitySignals are the agent-quality signals and their weights (document
// 2, "Agent store": POST /api/agent-quality).
var QualitySignals = map[string]float64{
	"no_correction":     0.8,
	"widget_confirmed":  0.9,
	"payment_completed": 1.0,
	"user_edited":       -0.3,
	"follow_up_needed":  -0.5,
}

// AgentQualitySignal is one signal an account's agent reported about a store
// agent's work on one of its executions; the listing keeps the aggregate
// (quality_score).
type AgentQualitySignal struct{ ent.Schema }

// Mixin of the AgentQualitySignal.
func (AgentQualitySignal) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the AgentQualitySignal.
func (AgentQualitySignal) Fields() []ent.Field {
	return []ent.Field{
		// Who reported it.
		field.String("user_id").Immutable(),
		field.String("agent_id").Immutable(),
		field.Enum("signal").Values(vocab.Values("quality_signal")...).Immutable(),
		// The weight at the time of the report, so a later change of the
		// table does not rewrite history.
		field.Float("weight").Immutable(),
		// A JSON object encoded as a string, as given.
		field.Text("metadata").Optional().Nillable().Immutable(),
		// The reporter's completed execution of the agent the signal is
		// about: one signal per execution, decided by the unique index so
		// that concurrent reports cannot both be stored. NULL on signals
		// stored before it was required.
		field.String("execution_id").Optional().Nillable().Immutable().Unique(),
	}
}

// Edges of the AgentQualitySignal.
func (AgentQualitySignal) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("quality_signals").Field("user_id").Unique().Required().Immutable(),
		edge.From("store_agent", StoreAgent.Type).Ref("quality_signals").Field("agent_id").Unique().Required().Immutable(),
	}
}

// Indexes of the AgentQualitySignal.
func (AgentQualitySignal) Indexes() []ent.Index {
	return []ent.Index{index.Fields("agent_id", "created_at")}
}
