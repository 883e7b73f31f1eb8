package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// IdempotencyRecord is one Idempotency-Key of one credential: the claim a
// request takes before it runs, marked applied in the transaction of its
// change, and then the answer it gave, replayed to retries until it expires
// (docs/decisions.md, "Idempotency"). It belongs to a credential, not to an
// account's data, so it has no user edge; every query names its scope.
type IdempotencyRecord struct{ ent.Schema }

// Mixin of the IdempotencyRecord.
func (IdempotencyRecord) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the IdempotencyRecord.
func (IdempotencyRecord) Fields() []ent.Field {
	return []ent.Field{
		// The credential: "key:<api key id>" or "session:<session id>".
		field.String("scope").NotEmpty().MaxLen(64),
		// The header's value, 1–255 printable ASCII characters.
		field.String("key").NotEmpty().MaxLen(255),
		// The procedure called, for reading the table; the fingerprint decides.
		field.String("procedure").MaxLen(200),
		// SHA-256 (hex) of what makes two requests the same one: transport,
		// route, query, content type and the canonical body.
		field.String("fingerprint").MaxLen(64),
		// The claim's holder; a taken-over claim gets a new one, so the
		// request that lost it can no longer mark it or store its answer.
		field.String("token").MaxLen(40),
		field.Enum("state").Values("running", "done").Default("running"),
		// Set in the transaction of the request's change: the effect
		// committed, so the claim is never released or taken over.
		field.Bool("applied").Default(false),
		// The answer, once done.
		field.Int("status").Default(0),
		field.String("content_type").Default("").MaxLen(200),
		field.String("content_encoding").Default("").MaxLen(100),
		field.Bytes("body").Optional(),
		// When the claim was taken (or taken over), on the server's clock.
		field.Time("claimed_at"),
		// The replica that took it (internal/replica): once that replica is
		// dead, an unapplied claim is taken over without waiting for the
		// lease. Empty on claims older than the column.
		field.String("replica").Optional().MaxLen(40),
		// The key is free again from this instant (24 hours after the claim).
		field.Time("expires_at"),
	}
}

// Indexes of the IdempotencyRecord.
func (IdempotencyRecord) Indexes() []ent.Index {
	return []ent.Index{
		// A concurrent duplicate claim fails here and is answered 409.
		index.Fields("scope", "key").Unique(),
		index.Fields("scope", "expires_at"),
	}
}
