package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ActivityEntry records one action in an account's activity feed. Entries are
// never edited.
type ActivityEntry struct{ ent.Schema }

// Mixin of the ActivityEntry.
func (ActivityEntry) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the ActivityEntry.
func (ActivityEntry) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("action").NotEmpty(),
		// queue, board, crm, calendar, goals, comms, connections, drive, settings, sync.
		field.String("category").NotEmpty(),
		field.String("actor"),
		field.Text("summary"),
		// A plain id, not an edge: a card's history outlives the card.
		field.String("card_id").Optional().Nillable(),
		// A mirror of activity on a linked card owned by another account.
		field.Bool("is_cross_user").Default(false),
		// JSON text.
		field.Text("metadata").Optional(),
		field.Time("created_at").Immutable(),
	}
}

// Edges of the ActivityEntry.
func (ActivityEntry) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("activity_entries").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ActivityEntry.
func (ActivityEntry) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "created_at"),
		index.Fields("user_id", "category", "created_at"),
		index.Fields("card_id", "created_at"),
	}
}
