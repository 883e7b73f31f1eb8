package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// NetworkConnection joins a user here to a user on another instance (RULINGS
// "The operator network"). Each side authenticates the other's calls with
// the token it issued (stored hashed) and presents the peer's token (stored
// sealed). A removed connection is deleted on both sides.
type NetworkConnection struct{ ent.Schema }

// Mixin of the NetworkConnection.
func (NetworkConnection) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the NetworkConnection.
func (NetworkConnection) Fields() []ent.Field {
	return []ent.Field{
		// The local user.
		field.String("user_id").Immutable(),
		// The peer instance's verified origin (scheme://host[:port]).
		field.String("peer_instance_url").Immutable(),
		field.String("peer_instance_name").Default(""),
		field.String("peer_user_email").Immutable(),
		field.String("peer_user_name").Default(""),
		// The peer's id of the same connection.
		field.String("peer_connection_id").Optional().Nillable(),
		field.Enum("status").Values(vocab.Values("connection_status")...).Default("pending"),
		// outbound: this side asked; inbound: the peer asked.
		field.Enum("direction").Values(vocab.Values("federation_direction")...).Immutable(),
		field.Enum("trust_level").Values(vocab.Values("trust_level")...).Default("known"),
		field.String("message").Optional().Nillable(),
		// SHA-256 of the token this side issued (sbf_…), hex: the peer
		// presents it. Absent until this side has issued one.
		field.String("token_hash").Optional().Nillable().Sensitive(),
		// The peer's token sealed with the instance key; absent until known.
		field.String("peer_token_sealed").Optional().Nillable().Sensitive(),
		// This side's issued token, sealed, while the peer's verification of
		// the request may ask for it (the nonce answer); cleared after.
		field.String("pending_token_sealed").Optional().Nillable().Sensitive(),
		field.Time("pending_until").Optional().Nillable(),
		field.Time("accepted_at").Optional().Nillable(),
	}
}

// Edges of the NetworkConnection.
func (NetworkConnection) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("network_connections").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the NetworkConnection.
func (NetworkConnection) Indexes() []ent.Index {
	return []ent.Index{
		// One connection per pair of users; a repeated request finds it.
		index.Fields("user_id", "peer_instance_url", "peer_user_email").Unique(),
		// The peer's calls find their connection by the token they present.
		index.Fields("token_hash").Unique(),
	}
}
