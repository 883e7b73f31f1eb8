package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// MemoryEntry is one thing the account's assistant keeps in mind. Each entry
// names what wrote it (source and source_id), so that whatever wrote it can
// remove exactly its own: an installed store agent writes up to 8 (source
// "store_agent", source_id the agent, kind the integration-kit part).
type MemoryEntry struct{ ent.Schema }

// Mixin of the MemoryEntry.
func (MemoryEntry) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the MemoryEntry.
func (MemoryEntry) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("source").NotEmpty().Immutable(),
		field.String("source_id").NotEmpty().Immutable(),
		field.String("kind").NotEmpty(),
		field.String("title").NotEmpty(),
		field.Text("content"),
		// Order of the entries of one source.
		field.Int("position").Default(0),
	}
}

// Edges of the MemoryEntry.
func (MemoryEntry) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("memory_entries").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the MemoryEntry.
func (MemoryEntry) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "source", "source_id", "position"),
		// Removing one agent's entries from every account that installed it.
		index.Fields("source", "source_id"),
	}
}
