package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// StreamEvent is one event of an account's shared-chat stream, kept for a
// while so that a client reconnecting with Last-Event-ID gets what it missed
// (RULINGS "Shared chat and events"). The auto-increment id is the SSE event
// id: per account, ids follow commit order (publishes of one account are
// serialised), so a client that saw id N never later misses a smaller one.
type StreamEvent struct{ ent.Schema }

// Fields of the StreamEvent.
func (StreamEvent) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id").Immutable(),
		field.String("user_id").Immutable(),
		// The switchboard.v1.ChatEvent, protobuf binary.
		field.Bytes("payload").Immutable(),
		field.Time("created_at").Immutable(),
	}
}

// Edges of the StreamEvent.
func (StreamEvent) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("stream_events").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the StreamEvent.
func (StreamEvent) Indexes() []ent.Index {
	return []ent.Index{
		// Replay (user, id > N) and the per-account retention count.
		index.Fields("user_id", "id"),
		index.Fields("created_at"),
	}
}
