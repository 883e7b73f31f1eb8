// Package schema is Switchboard's data model. Every account-scoped record has an
// edge to its owning user and is always queried through it.
package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"

	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// IDMixin gives a record an opaque cuid primary key.
type IDMixin struct{ mixin.Schema }

// Fields of the IDMixin.
func (IDMixin) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").DefaultFunc(ids.New).Immutable().NotEmpty().MaxLen(40),
	}
}

// TimeMixin records when a record was made and last changed, in UTC. Neither
// field has a default: the database's hook stamps both from the server's
// clock (internal/db, DB.SetClock; docs/decisions.md, "Lint and one clock"),
// so no row is stamped with the wall clock.
type TimeMixin struct{ mixin.Schema }

// Fields of the TimeMixin.
func (TimeMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").Immutable(),
		field.Time("updated_at"),
	}
}

// ProvenanceMixin records who wrote a record's text (server/provenance):
// who created it and who last changed its text, each a writer kind and,
// for a key, another user, a peer or a store agent, which one. A row
// written before provenance was recorded, or by a path that does not say,
// is unknown, which the assistant's prompt treats as outside text.
type ProvenanceMixin struct{ mixin.Schema }

// Fields of the ProvenanceMixin.
func (ProvenanceMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("created_by").Values(vocab.Values("provenance")...).Default("unknown").Immutable(),
		field.String("created_by_ref").Optional().Nillable().Immutable(),
		field.Enum("text_by").Values(vocab.Values("provenance")...).Default("unknown"),
		field.String("text_by_ref").Optional().Nillable(),
	}
}
