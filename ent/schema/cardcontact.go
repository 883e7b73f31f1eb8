package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CardContact puts a contact on a card, saying how the contact is involved.
type CardContact struct{ ent.Schema }

// Mixin of the CardContact.
func (CardContact) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the CardContact.
func (CardContact) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("card_id").Immutable(),
		field.String("contact_id").Immutable(),
		field.String("role").Optional().Nillable(),
		field.String("involvement").Default("related"),
		field.Bool("can_delegate").Default(false),
		field.Time("created_at").Immutable(),
	}
}

// Edges of the CardContact.
func (CardContact) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("card_contacts").Field("user_id").Unique().Required().Immutable(),
		edge.From("card", Card.Type).Ref("card_contacts").Field("card_id").Unique().Required().Immutable(),
		edge.From("contact", Contact.Type).Ref("card_contacts").Field("contact_id").Unique().Required().Immutable(),
	}
}

// Indexes of the CardContact.
func (CardContact) Indexes() []ent.Index {
	return []ent.Index{
		// A contact is on a card at most once.
		index.Fields("card_id", "contact_id").Unique(),
		index.Fields("contact_id"),
		index.Fields("user_id"),
	}
}
