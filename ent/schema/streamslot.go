package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// StreamSlot is one open stream or MCP session (server/gate, the caps of
// RULINGS "Security details"), held by the replica that serves it: deleted
// when the stream ends, and no longer counted once its replica is dead.
type StreamSlot struct{ ent.Schema }

// Mixin of the StreamSlot.
func (StreamSlot) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the StreamSlot.
func (StreamSlot) Fields() []ent.Field {
	return []ent.Field{
		// Which cap: "stream" or "mcp_session".
		field.String("kind").NotEmpty().MaxLen(20),
		// Whose: "key:<api key id>" or "user:<user id>".
		field.String("holder").NotEmpty().MaxLen(64),
		// The replica serving it (internal/replica).
		field.String("replica").NotEmpty().MaxLen(40),
		field.Time("opened_at"),
	}
}

// Indexes of the StreamSlot.
func (StreamSlot) Indexes() []ent.Index {
	return []ent.Index{index.Fields("holder", "kind"), index.Fields("replica")}
}
