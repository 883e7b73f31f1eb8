package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Document is a document in an account's drive. A marketplace delivery is
// shared with the requester as one (document 2, "Agent configuration
// layers", Isolation): source "marketplace", naming the execution.
type Document struct{ ent.Schema }

// Mixin of the Document.
func (Document) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}, ProvenanceMixin{}} }

// Fields of the Document.
func (Document) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("title").NotEmpty(),
		// A text document's text (text/plain, text/markdown, application/json,
		// text/csv); empty for a binary one, whose bytes are in data.
		field.Text("content"),
		// The media type without parameters; a store delivery is text/plain.
		field.String("mime_type").Default("text/plain"),
		// Bytes stored (a text document's UTF-8 length); nil on deliveries
		// written before it was recorded.
		field.Int("size").Optional().Nillable(),
		// A binary document's bytes, as uploaded; nil for text.
		field.Bytes("data").Optional().Nillable(),
		// local, google_drive or marketplace.
		field.String("source").NotEmpty(),
		// Who shared it, for a shared document (a store agent's name).
		field.String("shared_by").Optional().Nillable(),
		field.String("execution_id").Optional().Nillable(),
	}
}

// Edges of the Document.
func (Document) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("documents").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Document.
func (Document) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "created_at"),
		index.Fields("execution_id"),
	}
}
