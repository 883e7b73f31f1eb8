package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// JobApplication is one application to a job (RULINGS "The task economy":
// Jobs). On the job owner's instance it is an application to a posted job,
// by a local user (applicant_user_id) or by a connection's peer
// (connection_id, the owner's connection to the applicant, with the
// applicant's id of it in peer_application_id). On a remote applicant's
// instance it is the applicant's own application to a received job, kept so
// they see what they applied to and how it went.
type JobApplication struct{ ent.Schema }

// Mixin of the JobApplication.
func (JobApplication) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the JobApplication.
func (JobApplication) Fields() []ent.Field {
	return []ent.Field{
		field.String("job_id").Immutable(),
		field.String("applicant_user_id").Optional().Nillable().Immutable(),
		field.String("connection_id").Optional().Nillable().Immutable(),
		// The remote applicant as the connection names it.
		field.String("party_name").Default(""),
		field.String("party_instance_url").Optional().Nillable(),
		field.String("peer_application_id").Optional().Nillable().Immutable(),
		field.Text("message").Default(""),
		field.Int64("price_cents").GoType(money.Cents(0)).Immutable(),
		field.Int("eta_days").Default(0).Immutable(),
		// The applicant's capability for the job's task type when applying.
		field.Enum("task_type").Values(vocab.Values("job_task_type")...).Optional().Nillable().Immutable(),
		field.Strings("skills").Optional().Immutable(),
		field.Enum("pricing_model").Values(vocab.Values("capability_pricing_model")...).Optional().Nillable().Immutable(),
		field.Float("price").Optional().Nillable().Immutable(),
		field.String("currency").Optional().Nillable().Immutable(),
		field.Enum("status").Values(vocab.Values("application_status")...).Default("pending"),
		field.Text("reason").Optional().Nillable(),
		// An auction's score of it at closes_at.
		field.Float("score").Optional().Nillable(),
		// The owner's side: the contract the award made. The applicant's
		// side of a remote job: the owner's id of it (the contract here is
		// linked to it by origin_contract_id).
		field.String("contract_id").Optional().Nillable(),
		field.String("peer_contract_id").Optional().Nillable(),
	}
}

// Edges of the JobApplication.
func (JobApplication) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("job", Job.Type).Ref("applications").Field("job_id").Unique().Required().Immutable(),
	}
}

// Indexes of the JobApplication.
func (JobApplication) Indexes() []ent.Index {
	return []ent.Index{
		// One application per applicant and job.
		index.Fields("job_id", "applicant_user_id").Unique(),
		index.Fields("job_id", "connection_id").Unique(),
		index.Fields("applicant_user_id", "created_at"),
	}
}
