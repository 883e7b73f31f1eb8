package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// QueueItem is a task waiting for, or being handled by, the assistant or an agent.
type QueueItem struct{ ent.Schema }

// Mixin of the QueueItem.
func (QueueItem) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}, ProvenanceMixin{}} }

// Fields of the QueueItem.
func (QueueItem) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.Enum("type").Values(vocab.Values("queue_type")...).Default("task"),
		field.String("title").NotEmpty(),
		field.Text("description").Optional().Nillable(),
		field.Enum("priority").Values(vocab.Values("priority")...).Default("medium"),
		field.Enum("status").Values(vocab.Values("queue_status")...).Default("pending_confirmation"),
		field.String("source").Optional().Nillable(),
		// JSON text, passed through as given; the prompt optimizer and the
		// result report merge keys into it.
		field.Text("metadata").Optional(),
		field.Enum("task_origin").Values(vocab.Values("task_origin")...).Default("owner"),
		field.String("project_id").Optional().Nillable(),
		field.String("team_id").Optional().Nillable(),
		// A plain id, not an edge: the card may live on another instance.
		field.String("card_id").Optional().Nillable(),
		field.String("parent_task_id").Optional().Nillable(),
		// Id of the item this one waits for; finishing that one releases it.
		field.String("depends_on").Optional().Nillable(),
		field.Int32("subtask_order").Optional().Nillable(),
		field.String("requester_email").Optional().Nillable(),
		field.String("requester_name").Optional().Nillable(),
		field.String("execution_id").Optional().Nillable(),
		field.String("callback_url").Optional().Nillable(),
		field.String("source_instance_name").Optional().Nillable(),
		field.String("project_request_id").Optional().Nillable(),
		// The last result report, served by GET /queue/{id}/result.
		field.Text("result").Optional().Nillable(),
		field.Enum("result_status").Values(vocab.Values("queue_status")...).Optional().Nillable(),
		// Name of the API key that reported the result.
		field.String("reported_by").Optional().Nillable(),
		field.Time("completed_at").Optional().Nillable(),
	}
}

// Edges of the QueueItem.
func (QueueItem) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("queue_items").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the QueueItem.
func (QueueItem) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "status", "created_at"),
		index.Fields("user_id", "created_at"),
		// Finishing an item looks up the items that depend on it.
		index.Fields("user_id", "depends_on"),
		index.Fields("user_id", "parent_task_id"),
		index.Fields("execution_id"),
	}
}
