package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// BoardInsight is one thing the board scan noticed (board.proto): one row
// per user, type and (source, target) pair, whatever its status, so that a
// second scan raises no duplicate and a dismissed pair stays dismissed.
type BoardInsight struct{ ent.Schema }

// Mixin of the BoardInsight.
func (BoardInsight) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the BoardInsight.
func (BoardInsight) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.Enum("type").Values(vocab.Values("insight_type")...).Immutable(),
		field.Enum("status").Values(vocab.Values("insight_status")...).Default("active"),
		field.Float("confidence").Min(0).Max(1),
		field.Text("reason"),
		field.String("source_id").Immutable(),
		// Empty for the one-card types: a unique index treats NULLs as
		// distinct, so the pair key is never NULL.
		field.String("target_id").Default("").Immutable(),
	}
}

// Indexes of the BoardInsight.
func (BoardInsight) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "type", "source_id", "target_id").Unique(),
		index.Fields("user_id", "status"),
	}
}
