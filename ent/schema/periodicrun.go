package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// PeriodicRun is one periodic timer's next run (internal/periodic): the row
// every replica compares and sets, so that one of them runs each period.
type PeriodicRun struct{ ent.Schema }

// Fields of the PeriodicRun: the timer's name is the key.
func (PeriodicRun) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").NotEmpty().MaxLen(64).Immutable(),
		field.Time("next_at"),
		field.Time("last_run_at").Optional().Nillable(),
	}
}
