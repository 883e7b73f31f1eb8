package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// RemovedPeerToken remembers the hash of a federation token (sbf_) whose
// connection was removed, for good: the peer that still presents it hears
// 404 (the connection is gone) rather than 401 (never known) (RULINGS "A
// removed connection").
type RemovedPeerToken struct{ ent.Schema }

// Mixin of the RemovedPeerToken.
func (RemovedPeerToken) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the RemovedPeerToken.
func (RemovedPeerToken) Fields() []ent.Field {
	return []ent.Field{
		field.String("token_hash").Unique().Immutable(),
	}
}
