package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// QueueCount is how many queue items one user has in one status. Triggers on
// queue_items keep it, in the transaction of every insert, status change and
// delete whoever writes (internal/db/counts.go), so that a page's total is a
// sum of a few rows instead of a count of the queue.
type QueueCount struct{ ent.Schema }

// Fields of the QueueCount.
func (QueueCount) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("status").Immutable(),
		field.Int64("n").Default(0),
	}
}

// Indexes of the QueueCount: the triggers' upsert names this one.
func (QueueCount) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id", "status").Unique()}
}
