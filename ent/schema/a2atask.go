package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// A2ATask is an A2A task: the queue item an outside agent's message created,
// and what the protocol must remember after the item is gone (docs/decisions.md
// "A2A (issue 13)").
type A2ATask struct{ ent.Schema }

// Mixin of the A2ATask.
func (A2ATask) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the A2ATask.
func (A2ATask) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		// The task id the agent knows: ours for v0.3 and v1.0, the agent's
		// own for the legacy tasks/send. Unique per account.
		field.String("task_id").NotEmpty().Immutable(),
		field.String("context_id").NotEmpty().Immutable(),
		// The queue item; it may be gone (deleted, rejected), the task stays.
		field.String("item_id").Immutable(),
		// Which method family created the task: legacy, v0.3 or v1.0; the
		// legacy tasks/get answers a legacy task in the document's shape.
		field.String("protocol").Immutable(),
		// The key that created it ("a2a:<label>" is the item's source).
		field.String("key_label"),
		// The messages the agent sent, as a JSON array of stored messages.
		field.Text("history"),
		// Set once the item is gone: the task's final state (completed,
		// canceled, rejected), its status message and artifacts (JSON).
		field.String("final_state").Optional().Nillable(),
		field.Text("final_message").Optional().Nillable(),
		field.Text("artifacts").Optional().Nillable(),
	}
}

// Edges of the A2ATask.
func (A2ATask) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("a2a_tasks").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the A2ATask.
func (A2ATask) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "task_id").Unique(),
		index.Fields("item_id"),
	}
}
