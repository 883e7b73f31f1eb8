package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Relay is one relay of the operator network (RULINGS "The operator
// network: connections and relays"; document 2 "Relay") as one side keeps
// it: the sender's copy (outbound), whose state the recipient's acks move,
// or the recipient's (inbound), which became a queue item, a comms message,
// or was held back (filtered, quarantined, kept for the quiet-hours digest).
// Rows outlive their connection: a removed connection leaves its history.
type Relay struct{ ent.Schema }

// Mixin of the Relay.
func (Relay) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the Relay.
func (Relay) Fields() []ent.Field {
	return []ent.Field{
		// The local user: the sender on an outbound relay, the recipient on an
		// inbound one.
		field.String("user_id").Immutable(),
		field.String("connection_id").Immutable(),
		// The sender's relay id: what the recipient is idempotent on and what
		// acks name. On an outbound relay it is the row's own id.
		field.String("relay_id").Immutable(),
		field.Enum("direction").Values(vocab.Values("federation_direction")...).Immutable(),
		field.Enum("type").Values(vocab.Values("relay_type")...).Immutable(),
		field.Enum("intent").Values(vocab.Values("relay_intent")...).Optional().Nillable().Immutable(),
		field.String("subject").Default(""),
		// The payload, a JSON object.
		field.Text("payload").Default("{}"),
		field.Enum("priority").Values(vocab.Values("relay_priority")...).Default("normal"),
		field.String("from_user_email").Default(""),
		field.String("from_user_name").Default(""),
		field.String("thread_id").Optional().Nillable(),
		field.String("parent_relay_id").Optional().Nillable(),
		field.String("card_id").Optional().Nillable(),
		field.Enum("state").Values(vocab.Values("relay_state")...).Default("delivered"),
		// When the state last changed on the recipient (the applied ack's
		// occurredAt on the sender): what ApplyAck orders acks by.
		field.Time("state_at").Optional().Nillable(),
		field.Text("result").Optional().Nillable(),
		field.Text("reason").Optional().Nillable(),
		// The queue item a received request became.
		field.String("item_id").Optional().Nillable(),
		field.Bool("quarantined").Default(false),
		// The sender's rating of a completed inbound relay, once (RULINGS
		// "The operator network": POST /api/federation/reputation).
		field.Int("rating").Optional().Nillable(),
		field.Text("rating_feedback").Optional().Nillable(),
		field.Time("rated_at").Optional().Nillable(),
		// relay_filter_reason (topic-filter, quiet-hours, ambient-disabled).
		field.String("filtered_reason").Optional().Nillable(),
		// Kept during quiet hours; delivered in the digest once they end.
		field.Bool("digest_pending").Default(false),
		field.Time("digest_due").Optional().Nillable(),
		// The scope the relay named as the recipient answered it (relay
		// v2.3.2): resolved to the recipient's own team or project, or dropped.
		field.String("resolved_team_id").Optional().Nillable(),
		field.String("resolved_project_id").Optional().Nillable(),
		field.String("dropped_team_id").Optional().Nillable(),
		field.String("dropped_project_id").Optional().Nillable(),
	}
}

// Edges of the Relay.
func (Relay) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("relays").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the Relay.
func (Relay) Indexes() []ent.Index {
	return []ent.Index{
		// Idempotency (document 2 "Limits"): one row per sender relay id per
		// connection and direction.
		index.Fields("connection_id", "direction", "relay_id").Unique(),
		index.Fields("user_id", "created_at"),
		index.Fields("user_id", "thread_id"),
		index.Fields("item_id"),
		index.Fields("user_id", "digest_pending"),
	}
}
