// Package schema is Switchboard's data model. Every account-scoped record has an
// edge to its owning user and is always queried through it.
package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"

	"github.com/switchboard-hq/switchboard/internal/ids"
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
