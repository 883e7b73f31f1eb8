package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// WorkflowReview is the admin's mark on one recurring action sequence
// (GET /api/admin/workflows): the sequence's stable hash is the key, so the
// mark holds while the sequence keeps recurring.
type WorkflowReview struct{ ent.Schema }

// Fields of the WorkflowReview.
func (WorkflowReview) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().MaxLen(64).Immutable(),
		field.Time("reviewed_at"),
		field.String("reviewed_by"),
	}
}
