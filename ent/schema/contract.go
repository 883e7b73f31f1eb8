package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Contract is one engagement of the task economy as this instance keeps it
// (RULINGS "The task economy"). Both sides on this instance: one row, with
// client_user_id and provider_user_id. The other side on a connection's
// instance: each instance has its own row, linked by origin_contract_id
// (the other instance's id) over connection_id (the local user's connection
// to the other side). Money lives on the client's instance; the provider's
// row shows what its peer reported.
type Contract struct{ ent.Schema }

// Mixin of the Contract.
func (Contract) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the Contract.
func (Contract) Fields() []ent.Field {
	return []ent.Field{
		field.String("client_user_id").Optional().Nillable().Immutable(),
		field.String("provider_user_id").Optional().Nillable().Immutable(),
		// The other side, when it is on another instance.
		field.String("connection_id").Optional().Nillable().Immutable(),
		field.String("party_name").Default(""),
		field.String("party_instance_url").Optional().Nillable(),
		field.String("origin_contract_id").Optional().Nillable(),
		field.String("project_id").Optional().Nillable(),
		field.String("task_type"),
		field.String("title"),
		field.Strings("scope").Optional(),
		field.Int64("price_cents").GoType(money.Cents(0)),
		field.Int64("fee_cents").GoType(money.Cents(0)),
		field.String("currency"),
		field.Time("due_at").Optional().Nillable(),
		field.Enum("status").Values(vocab.Values("contract_status")...).Default("offered"),
		field.Enum("hold_status").Values(vocab.Values("contract_hold_status")...).Default("held"),
		field.Int64("refunded_cents").GoType(money.Cents(0)).Default(0),
		field.Int64("provider_earned_cents").GoType(money.Cents(0)).Default(0),
		// The relay that carried the offer (sent on the client's side,
		// received on the provider's) and the provider's queue item.
		field.String("relay_id").Optional().Nillable(),
		field.String("item_id").Optional().Nillable(),
		field.String("job_id").Optional().Nillable(),
		field.Text("dispute_reason").Optional().Nillable(),
		field.Enum("dispute_outcome").Values(vocab.Values("dispute_outcome")...).Optional().Nillable(),
		field.Int("provider_percent").Optional().Nillable(),
		field.Time("delivered_at").Optional().Nillable(),
		field.Time("closed_at").Optional().Nillable(),
		field.Time("review_window_ends_at").Optional().Nillable(),
		// Whether this side's review content has gone to the other instance.
		field.Bool("review_sent").Default(false),
		// Whether the other side has reviewed (told at once, without content).
		field.Bool("counterpart_reviewed").Default(false),
		// Whether the review window's end has been handled (reviews shown,
		// this side's sent).
		field.Bool("review_window_done").Default(false),
	}
}

// Edges of the Contract.
func (Contract) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("entries", ContractEntry.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("amendments", ContractAmendment.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("reviews", ContractReview.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Contract.
func (Contract) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("client_user_id", "created_at"),
		index.Fields("provider_user_id", "created_at"),
		index.Fields("connection_id", "origin_contract_id").Unique(),
		index.Fields("relay_id"),
		index.Fields("item_id"),
		index.Fields("status", "delivered_at"),
		index.Fields("status", "review_window_ends_at"),
	}
}

// ContractEntry is one line of a contract's thread: a move or an exchange,
// by a side (nil for the admin and the timer). A move received from the
// other instance keeps its move id, so a replay finds it.
type ContractEntry struct{ ent.Schema }

// Mixin of the ContractEntry.
func (ContractEntry) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the ContractEntry.
func (ContractEntry) Fields() []ent.Field {
	return []ent.Field{
		field.String("contract_id").Immutable(),
		field.Enum("kind").Values(vocab.Values("contract_move")...).Immutable(),
		field.Enum("by").Values(vocab.Values("contract_role")...).Optional().Nillable().Immutable(),
		field.Text("text").Optional().Nillable(),
		field.String("url").Optional().Nillable(),
		field.String("document_id").Optional().Nillable(),
		field.String("ref").Optional().Nillable(),
		// The queue item it gave the side that must act.
		field.String("item_id").Optional().Nillable(),
		field.String("peer_move_id").Optional().Nillable().Immutable(),
	}
}

// Edges of the ContractEntry.
func (ContractEntry) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("contract", Contract.Type).Ref("entries").Field("contract_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ContractEntry.
func (ContractEntry) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("contract_id", "created_at"),
		index.Fields("contract_id", "peer_move_id").Unique(),
		index.Fields("item_id"),
	}
}

// ContractAmendment is scope the client proposed after hiring, numbered
// from 1 within its contract.
type ContractAmendment struct{ ent.Schema }

// Mixin of the ContractAmendment.
func (ContractAmendment) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the ContractAmendment.
func (ContractAmendment) Fields() []ent.Field {
	return []ent.Field{
		field.String("contract_id").Immutable(),
		field.Int("n").Immutable(),
		field.Text("item").Immutable(),
		field.Int64("price_cents").GoType(money.Cents(0)).Immutable(),
		field.Enum("status").Values(vocab.Values("amendment_status")...).Default("proposed"),
	}
}

// Edges of the ContractAmendment.
func (ContractAmendment) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("contract", Contract.Type).Ref("amendments").Field("contract_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ContractAmendment.
func (ContractAmendment) Indexes() []ent.Index {
	return []ent.Index{index.Fields("contract_id", "n").Unique()}
}

// ContractReview is one side's review of the other after closing. The
// reviewee's user id is set when the reviewed side is a local user, which
// is what reputation reads.
type ContractReview struct{ ent.Schema }

// Mixin of the ContractReview.
func (ContractReview) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the ContractReview.
func (ContractReview) Fields() []ent.Field {
	return []ent.Field{
		field.String("contract_id").Immutable(),
		field.Enum("by").Values(vocab.Values("contract_role")...).Immutable(),
		field.String("reviewer_user_id").Optional().Nillable().Immutable(),
		// Set once the review is shown to its reviewee (both sides in, or the
		// window ended): what reputation counts, so a blind review moves
		// nothing before.
		field.String("reviewee_user_id").Optional().Nillable(),
		field.Int("overall").Immutable(),
		field.Int("communication").Immutable(),
		field.Int("quality").Immutable(),
		field.Int("timeliness").Immutable(),
		field.Text("text").Optional().Nillable(),
		field.Enum("visibility").Values(vocab.Values("review_visibility")...).Default("public"),
	}
}

// Edges of the ContractReview.
func (ContractReview) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("contract", Contract.Type).Ref("reviews").Field("contract_id").Unique().Required().Immutable(),
	}
}

// Indexes of the ContractReview.
func (ContractReview) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("contract_id", "by").Unique(),
		index.Fields("reviewee_user_id"),
	}
}
