package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// CardLink links two of one account's cards (card_links.proto): it goes
// with either card.
type CardLink struct{ ent.Schema }

// Mixin of the CardLink.
func (CardLink) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the CardLink.
func (CardLink) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("from_card_id").Immutable(),
		field.String("to_card_id").Immutable(),
		field.Enum("link_type").Values(vocab.Values("card_link_type")...).Immutable(),
		field.Time("created_at").Immutable(),
	}
}

// Edges of the CardLink.
func (CardLink) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("from_card", Card.Type).Ref("links_out").Field("from_card_id").Unique().Required().Immutable(),
		edge.From("to_card", Card.Type).Ref("links_in").Field("to_card_id").Unique().Required().Immutable(),
	}
}

// Indexes of the CardLink.
func (CardLink) Indexes() []ent.Index {
	return []ent.Index{
		// Two cards are linked once, whichever way.
		index.Fields("from_card_id", "to_card_id").Unique(),
		index.Fields("to_card_id"),
	}
}
