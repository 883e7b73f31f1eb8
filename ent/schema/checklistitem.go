package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ChecklistItem is one line of a card's checklist. It belongs to the card's
// account, and keeps user_id as well so that queries can scope by it directly.
type ChecklistItem struct{ ent.Schema }

// Mixin of the ChecklistItem.
func (ChecklistItem) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}, ProvenanceMixin{}} }

// Fields of the ChecklistItem.
func (ChecklistItem) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("card_id").Immutable(),
		field.Text("text").NotEmpty(),
		field.Bool("completed").Default(false),
		field.Int32("order").Default(0),
		field.Text("summary").Optional().Nillable(),
		field.Text("brief").Optional().Nillable(),
		field.Time("due_date").Optional().Nillable(),
		// Known values: `queue`, `queue_review` (rows the queue bridge owns).
		field.String("source_type").Optional().Nillable(),
		// With source_type `queue`, the queue item's id.
		field.String("source_id").Optional().Nillable(),
		// Known values: task_queued, task_in_progress, task_completed,
		// task_failed, pending_review, pending_retry.
		field.String("source_label").Optional().Nillable(),
		// Known values: self, divi, delegated.
		field.String("assignee_type").Optional().Nillable(),
		field.String("assignee_name").Optional().Nillable(),
		field.String("assignee_id").Optional().Nillable(),
		field.String("delegation_status").Optional().Nillable(),
		field.String("child_card_id").Optional().Nillable(),
	}
}

// Edges of the ChecklistItem.
func (ChecklistItem) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("checklist_items").Field("user_id").Unique().Required().Immutable(),
		edge.From("card", Card.Type).Ref("checklist_items").Field("card_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ChecklistItem.
func (ChecklistItem) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("card_id", "order"),
		// The queue bridge finds the rows of one queue item.
		index.Fields("user_id", "source_type", "source_id"),
	}
}
