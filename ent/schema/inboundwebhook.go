package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// InboundWebhook is one URL the operator gave an outside sender
// (inbound_webhooks.proto): its kind says what a delivery becomes.
type InboundWebhook struct{ ent.Schema }

// Mixin of the InboundWebhook.
func (InboundWebhook) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the InboundWebhook.
func (InboundWebhook) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.Enum("kind").Values(vocab.Values("inbound_webhook_kind")...).Immutable(),
		field.String("name").NotEmpty().MaxLen(100),
		// The signing secret sealed with the instance key: the server reads it
		// back to verify each delivery.
		field.String("secret_sealed").Sensitive(),
		field.Bool("enabled").Default(true),
		field.Bool("accept_unsigned").Default(false),
		// A generic hook's field mapping (JSON of dot paths), learned from its
		// first delivery or set by the operator; absent until then.
		field.Text("mapping").Optional().Nillable(),
	}
}

// Edges of the InboundWebhook.
func (InboundWebhook) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("inbound_webhooks").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the InboundWebhook.
func (InboundWebhook) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id")}
}

// InboundDelivery is one line of a hook's delivery log: every delivery,
// refused ones included. It is not an effect (InboundReceipt is): a refused
// delivery's webhook-id may come again and be accepted.
type InboundDelivery struct{ ent.Schema }

// Mixin of the InboundDelivery.
func (InboundDelivery) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the InboundDelivery.
func (InboundDelivery) Fields() []ent.Field {
	return []ent.Field{
		field.String("hook_id").Immutable(),
		field.Time("received_at").Immutable(),
		// The sender's webhook-id header as sent (cut to 200 characters).
		field.String("webhook_id").Optional().Immutable(),
		field.Enum("outcome").Values(vocab.Values("inbound_delivery_outcome")...).Immutable(),
		field.Int32("status").Immutable(),
	}
}

// Indexes of the InboundDelivery.
func (InboundDelivery) Indexes() []ent.Index {
	return []ent.Index{index.Fields("hook_id", "received_at")}
}

// InboundReceipt records that a hook's delivery took effect, in the
// effect's own transaction: its unique (hook, webhook-id) makes a repeated
// or concurrent delivery of one id change nothing.
type InboundReceipt struct{ ent.Schema }

// Mixin of the InboundReceipt.
func (InboundReceipt) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}} }

// Fields of the InboundReceipt.
func (InboundReceipt) Fields() []ent.Field {
	return []ent.Field{
		field.String("hook_id").Immutable(),
		field.String("webhook_id").NotEmpty().MaxLen(200).Immutable(),
		field.Time("created_at").Immutable(),
	}
}

// Indexes of the InboundReceipt.
func (InboundReceipt) Indexes() []ent.Index {
	return []ent.Index{index.Fields("hook_id", "webhook_id").Unique()}
}
