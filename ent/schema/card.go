package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/money"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Card is a kanban card. Beyond the REST fields it keeps every optional field
// of the agent representation, so that both renderings come from one row.
type Card struct{ ent.Schema }

// Mixin of the Card.
func (Card) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}, ProvenanceMixin{}} }

// Fields of the Card.
func (Card) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("title").NotEmpty(),
		field.Text("description").Optional().Nillable(),
		field.Enum("status").
			Values(vocab.Values("card_status")...).
			Default("active"),
		field.Enum("priority").Values(vocab.Values("priority")...).Default("medium"),
		field.Enum("assignee").Values(vocab.Values("assignee")...).Default("human"),
		field.Time("due_date").Optional().Nillable(),
		// Position within its status column.
		field.Int("order").Default(0),

		// Content.
		field.Text("summary").Optional().Nillable(),
		field.Text("brief").Optional().Nillable(),
		field.String("assignee_user_id").Optional().Nillable(),
		field.String("assignee_agent_id").Optional().Nillable(),
		field.String("assigned_by_id").Optional().Nillable(),
		field.Int32("reminder_offset_minutes").Optional().Nillable(),
		field.Time("reminder_fired_at").Optional().Nillable(),

		// Links. Plain ids: most point at records on other instances or at
		// tables that do not exist yet.
		field.String("project_id").Optional().Nillable(),
		field.String("workspace_id").Optional().Nillable(),
		field.String("origin_card_id").Optional().Nillable(),
		field.String("origin_user_id").Optional().Nillable(),
		field.String("source_relay_id").Optional().Nillable(),
		field.String("shared_project_id").Optional().Nillable(),
		field.String("template_id").Optional().Nillable(),
		field.String("counterparty_user_id").Optional().Nillable(),
		field.String("project_role").Optional().Nillable(),
		field.String("parent_card_id").Optional().Nillable(),
		field.String("parent_checklist_item_id").Optional().Nillable(),
		field.String("card_role").Optional().Nillable(),
		field.String("rollup_card_id").Optional().Nillable(),
		field.String("project_task_key").Optional().Nillable(),
		field.String("source_run_id").Optional().Nillable(),
		field.String("source_channel").Optional().Nillable(),
		field.String("difference_id").Optional().Nillable(),
		field.String("unified_thread_id").Optional().Nillable(),
		// The peer's card this one is linked to across instances (RULINGS
		// "The operator network": Card links), and the peer's news of it: a
		// JSON array of at most 20 CardChange entries, oldest first.
		field.String("external_card_id").Optional().Nillable(),
		field.String("external_instance_url").Optional().Nillable(),
		field.Text("change_log").Default("[]"),

		// Payment and completion.
		field.String("payment_hold_id").Optional().Nillable(),
		field.String("payment_status").Optional().Nillable(),
		// In cents of project_price_currency (the API has no currency for it).
		field.Int64("project_price").GoType(money.Cents(0)).Optional().Nillable(),
		field.String("project_price_currency").Default("USD"),
		field.String("completion_suggested_by").Optional().Nillable(),
		field.Time("completion_suggested_at").Optional().Nillable(),
		field.Time("settled_at").Optional().Nillable(),

		// Display.
		field.String("card_type").Optional().Nillable(),
		// Always an array on the agent representation; REST renders none as null.
		field.Strings("labels").Default([]string{}),
		field.String("cover_color").Optional().Nillable(),
		field.String("cover_image_url").Optional().Nillable(),
		field.Int32("priority_score").Optional().Nillable(),
		field.Time("start_date").Optional().Nillable(),
		field.Time("last_activity_at").Optional().Nillable(),
		field.Bool("is_archived").Default(false),
	}
}

// Edges of the Card.
func (Card) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("cards").Field("user_id").Unique().Required().Immutable(),
		// A card's checklist and contact links go with it.
		edge.To("checklist_items", ChecklistItem.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("card_contacts", CardContact.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		// Its links to the account's other cards, both ways.
		edge.To("links_out", CardLink.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("links_in", CardLink.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Card.
func (Card) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "status", "order"),
		index.Fields("user_id", "updated_at"),
		// The queue bridge picks the most recently updated card of a project.
		index.Fields("user_id", "project_id", "updated_at"),
		// Activity mirrors to cards made from this one.
		index.Fields("origin_card_id"),
	}
}
