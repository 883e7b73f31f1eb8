package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// WidgetTemplate is a developer's stored example of a widget an agent may
// return (an AgentWidgetData), checked against the widget types when saved.
type WidgetTemplate struct{ ent.Schema }

// Mixin of the WidgetTemplate.
func (WidgetTemplate) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the WidgetTemplate.
func (WidgetTemplate) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("name").NotEmpty().MaxLen(200),
		// The widget as the contract's JSON (AgentWidgetData, proto names).
		field.Text("widget"),
	}
}

// Edges of the WidgetTemplate.
func (WidgetTemplate) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("widget_templates").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the WidgetTemplate.
func (WidgetTemplate) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id", "created_at")}
}
