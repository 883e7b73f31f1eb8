package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// WebhookDelivery is one event on its way to one target: the durable outbox
// row written in the transaction of the change it reports, and worked off by
// the dispatcher until it is delivered, runs out of retries, or its target is
// removed. A push row goes to one of the account's push-webhook targets,
// signed with its secret; a forward row goes to a URL the change itself
// names (a widget response to the widget's widgetResponseUrl), unsigned,
// with the row's own headers.
type WebhookDelivery struct{ ent.Schema }

// Mixin of the WebhookDelivery.
func (WebhookDelivery) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the WebhookDelivery.
func (WebhookDelivery) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("event").Immutable(),
		// push: a settings target (its secret signs each attempt); forward:
		// the url as the change named it, sent with headers.
		field.Enum("kind").Values("push", "forward", "federation").Default("push").Immutable(),
		// Headers a forward row sends besides the standard ones (never a
		// secret: rows are stored in plain text).
		field.JSON("headers", map[string]string{}).Optional().Immutable(),
		// The target, as configured when the event happened; the secret is read
		// from the settings at each attempt, never copied here.
		field.String("url").Immutable(),
		// A federation row's instance: the credential it carries is that
		// instance's, read when it is sent (never stored on the row).
		field.String("instance_id").Optional().Nillable().Immutable(),
		// The exact body sent on every attempt: {event, occurredAt, data} for
		// a push, the change's own body for a forward.
		field.Text("payload").Immutable(),
		field.Enum("status").Values("pending", "delivered", "retry_exhausted", "cancelled").Default("pending"),
		// Attempts made (a deferral by an open breaker is not one).
		field.Int32("attempts").Default(0),
		// When the row is next due. A claim moves it a lease ahead, so a row
		// whose dispatcher died becomes due again by itself.
		field.Time("next_attempt_at"),
		// The token of the dispatcher working the row; outcomes are recorded
		// only under it.
		field.String("claim_token").Optional(),
		field.Time("last_attempt_at").Optional().Nillable(),
		// HTTP status of the last attempt; absent when no answer came.
		field.Int32("last_status").Optional().Nillable(),
		field.String("last_error").Optional().Nillable(),
		field.Time("delivered_at").Optional().Nillable(),
	}
}

// Edges of the WebhookDelivery.
func (WebhookDelivery) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("webhook_deliveries").Field("user_id").Unique().Required().Immutable(),
	}
}

// Indexes of the WebhookDelivery.
func (WebhookDelivery) Indexes() []ent.Index {
	return []ent.Index{
		// The dispatcher's two questions: what is due, and when is the next.
		index.Fields("status", "next_attempt_at"),
		index.Fields("user_id", "created_at"),
	}
}
