package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Contact is a person the operator works with, linked to cards through CardContact.
type Contact struct{ ent.Schema }

// Mixin of the Contact.
func (Contact) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}, ProvenanceMixin{}} }

// Fields of the Contact.
func (Contact) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("name").NotEmpty(),
		field.String("email").Optional().Nillable(),
		field.String("phone").Optional().Nillable(),
		field.String("company").Optional().Nillable(),
		field.String("role").Optional().Nillable(),
		field.String("preferred_channel").Optional().Nillable(),
		field.Text("notes").Optional().Nillable(),
		field.Strings("tags").Default([]string{}),
		field.String("source").Optional().Nillable(),
		// JSON text, passed through as given.
		field.Text("enriched_data").Optional(),
		// The matching account on the platform, once one is found.
		field.String("platform_user_id").Optional().Nillable(),
		field.String("platform_user_status").Optional().Nillable(),
		field.Time("matched_at").Optional().Nillable(),
		field.Time("last_interaction_at").Optional().Nillable(),
		field.String("last_interaction_type").Optional().Nillable(),
	}
}

// Edges of the Contact.
func (Contact) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("contacts").Field("user_id").Unique().Required().Immutable(),
		// Deleting a contact takes it off every card.
		edge.To("card_contacts", CardContact.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Contact.
func (Contact) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id", "name")}
}
