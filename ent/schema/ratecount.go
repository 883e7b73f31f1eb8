package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// RateCount is one rate-limit counter (server/gate): the requests of one
// client in one class in the current window and the one before it, kept in
// the database so that a limit holds across replicas. The gate updates it
// with one upsert per request, in SQL of its own (ratecount.go).
type RateCount struct{ ent.Schema }

// Fields of the RateCount.
func (RateCount) Fields() []ent.Field {
	return []ent.Field{
		// SHA-256 (hex) of the class and the client: a counter's name may
		// hold a secret's name or a caller's origin, of any length.
		field.String("id").NotEmpty().MaxLen(64).Immutable(),
		// The window counted, as the number of windows since the Unix epoch.
		field.Int64("window_no"),
		// Requests in window_no, and in the window before it.
		field.Int("count").Default(0),
		field.Int("prev").Default(0),
	}
}

// Indexes of the RateCount.
func (RateCount) Indexes() []ent.Index {
	// The prune deletes counters of windows past.
	return []ent.Index{index.Fields("window_no")}
}
