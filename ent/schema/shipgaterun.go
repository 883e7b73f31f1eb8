package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ShipGateRun is one conformance probe of a self-registered agent and its
// verdict (document 2, "Developer self-registration"): the task the probe
// sent (the auto-seeded agent task), whether the answer conformed, and why
// not. An admin approves a pending agent only when a passing run exists.
type ShipGateRun struct{ ent.Schema }

// Mixin of the ShipGateRun.
func (ShipGateRun) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the ShipGateRun.
func (ShipGateRun) Fields() []ent.Field {
	return []ent.Field{
		field.String("agent_id").Immutable(),
		// registration (the seeded run) or test_run.
		field.Enum("trigger").Values("registration", "test_run").Immutable(),
		// The seeded task's text, as the probe sent it.
		field.Text("task").Immutable(),
		field.Bool("passed").Immutable(),
		field.String("hint").Optional().Immutable(),
		// HTTP status of the agent's answer; absent when none came.
		field.Int("http_status").Optional().Nillable().Immutable(),
		field.Int("response_time_ms").Default(0).Immutable(),
		field.Time("created_at").Immutable(),
	}
}

// Edges of the ShipGateRun.
func (ShipGateRun) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("agent", StoreAgent.Type).Ref("ship_gate_runs").Field("agent_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ShipGateRun.
func (ShipGateRun) Indexes() []ent.Index {
	return []ent.Index{index.Fields("agent_id", "passed", "created_at")}
}
