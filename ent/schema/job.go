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

// Job is one job on a user's board (RULINGS "The operator network": Jobs;
// document 2, job_post): posted by the user and shared with connections, or
// received from a connection's peer.
type Job struct{ ent.Schema }

// Mixin of the Job.
func (Job) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the Job.
func (Job) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.Enum("origin").Values(vocab.Values("job_origin")...).Immutable(),
		field.Text("title"),
		field.Text("description"),
		field.Enum("task_type").Values(vocab.Values("job_task_type")...).Default("custom"),
		field.Enum("urgency").Values(vocab.Values("job_urgency")...).Default("medium"),
		field.String("compensation").Optional().Nillable(),
		field.Strings("required_skills").Optional(),
		field.Float("estimated_hours").Optional().Nillable(),
		field.Enum("status").Values(vocab.Values("job_status")...).Default("open"),
		// Posted: the connections it was shared with.
		field.Strings("shared_with").Optional(),
		// Received: the connection it came through (a plain id: the job
		// outlives it), the poster's id of the job and the poster.
		field.String("connection_id").Optional().Nillable(),
		field.String("peer_job_id").Optional().Nillable(),
		field.String("from_user_email").Optional().Nillable(),
		field.String("from_user_name").Optional().Nillable(),
		field.String("from_instance_url").Optional().Nillable(),
		field.Time("closed_at").Optional().Nillable(),
		// How it is given (RULINGS "The task economy": Jobs): direct, its
		// owner awards; auction, the economy's timer awards the best
		// application at closes_at, within max_price_cents.
		field.Enum("mode").Values(vocab.Values("job_mode")...).Default("direct"),
		field.Time("closes_at").Optional().Nillable(),
		field.Int64("max_price_cents").GoType(money.Cents(0)).Optional().Nillable(),
		// Posted and awarded: the application and the contract it made.
		field.String("awarded_application_id").Optional().Nillable(),
		field.String("contract_id").Optional().Nillable(),
	}
}

// Edges of the Job.
func (Job) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("jobs").Field("user_id").Unique().Required().Immutable(),
		edge.To("applications", JobApplication.Type).Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the Job.
func (Job) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "created_at"),
		// A peer's job arrives once per connection; again it updates.
		index.Fields("connection_id", "peer_job_id").Unique(),
		// The economy's timer: open auctions by their end.
		index.Fields("mode", "status", "closes_at"),
	}
}
