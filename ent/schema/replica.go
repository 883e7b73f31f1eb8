package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// Replica is one running server process (internal/replica): it writes its
// row at start, renews seen_at while it runs and deletes the row when it
// closes. A replica whose seen_at is older than the timer lease is dead, and
// what it held (stream slots, idempotency claims) stops counting.
type Replica struct{ ent.Schema }

// Fields of the Replica: its id is made at start, new for every process.
func (Replica) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().MaxLen(40).Immutable(),
		field.Time("started_at").Immutable(),
		field.Time("seen_at"),
	}
}
