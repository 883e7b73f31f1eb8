package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// TimerLease is one durable timer's lease (internal/timers): the replica
// that holds it runs the timer's pass, and none other until it is released
// or lapses, so a replica killed mid-pass hands the work over within one
// lease.
type TimerLease struct{ ent.Schema }

// Fields of the TimerLease: the timer's name is the key.
func (TimerLease) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().MaxLen(64).Immutable(),
		// holder is the replica running a pass; "" when none.
		field.String("holder").MaxLen(64).Default(""),
		// until is when the lease lapses unless its holder renews it.
		field.Time("until"),
		// passes counts the passes run under the lease, on every replica.
		field.Int64("passes").Default(0),
	}
}
