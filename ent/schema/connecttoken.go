package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// ConnectToken is a single-use bearer token (fct_…) that registers one agent
// or one instance for its account (document 2, "Developer self-registration"):
// only its hash is kept, and it is consumed by the first registration it
// makes.
type ConnectToken struct{ ent.Schema }

// Mixin of the ConnectToken.
func (ConnectToken) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the ConnectToken.
func (ConnectToken) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		// What it may register; instance tokens are refused for agents.
		field.Enum("purpose").Values(vocab.Values("token_purpose")...).Immutable(),
		// The first characters, shown to recognise it.
		field.String("prefix").Immutable(),
		// SHA-256 of the token, hex (it carries 256 random bits).
		field.String("token_hash").Unique().Immutable().Sensitive(),
		field.Time("created_at").Immutable(),
		field.Time("expires_at").Immutable(),
		// Set by the registration that consumed it; a used token is spent.
		field.Time("used_at").Optional().Nillable(),
		// The agent it registered.
		field.String("agent_id").Optional().Nillable(),
	}
}

// Edges of the ConnectToken.
func (ConnectToken) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("connect_tokens").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ConnectToken.
func (ConnectToken) Indexes() []ent.Index {
	// The cap counts an account's unused, unexpired tokens.
	return []ent.Index{index.Fields("user_id", "used_at", "expires_at")}
}
