package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/money"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// TaskInputs are the per-task user inputs of configuration layer 2 (document
// 2, "Agent configuration layers") besides the prompt (the execution's input)
// and the requester's name and email (columns of their own).
type TaskInputs struct {
	TaskType          string `json:"taskType,omitempty"`
	Tone              string `json:"tone,omitempty"`
	OutputType        string `json:"outputType,omitempty"`
	Deadline          string `json:"deadline,omitempty"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// Execution is one run of a store agent for a requester (user_id), from the
// queue through the agent's answer to the review and the payment.
type Execution struct{ ent.Schema }

// Mixin of the Execution.
func (Execution) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the Execution.
func (Execution) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		// The listing run; NULL once the listing is removed: its finished
		// executions stay, unlinked (docs/decisions.md "Federation platform
		// routes (issue 14)"), with agent_name kept for their readers.
		field.String("agent_id").Optional().Nillable().Immutable(),
		// The listing's name and owner when it was removed, set as agent_id
		// is cleared (for the requester's list and the owner's earnings);
		// absent while the execution is linked.
		field.String("agent_name").Optional().Nillable(),
		field.String("agent_owner_id").Optional().Nillable(),
		// No default: a new execution is running or queued depending on the
		// agent's lock, and the code that takes the lock must say which.
		field.Enum("status").Values(vocab.Values("execution_status")...),
		field.Text("input"),
		field.Text("output").Optional().Nillable(),
		field.Int("response_time_ms").Optional().Nillable(),
		field.Bool("is_own_agent").Default(false),
		// Defaults to the narrowest isolation (prompt only), never full access.
		field.Enum("task_origin").Values(vocab.Values("task_origin")...).Default("marketplace"),
		// Layer 3: decided by task_origin when the execution is made (owner:
		// full_access; marketplace, federation: output_only) and kept, so a
		// queued execution is dispatched with the isolation it was made with.
		field.Enum("isolation_mode").Values(vocab.Values("isolation_mode")...).Default("output_only"),
		// How the run was started (vocabulary run_origin: the admin's agent
		// activity); rows made before the column are local unless their
		// task_origin says federation.
		field.Enum("run_origin").Values(vocab.Values("run_origin")...).Default("local").Immutable(),
		// Layer 2 inputs besides the prompt and the requester.
		field.JSON("task_inputs", &TaskInputs{}).Optional(),
		// Layer 3: the instance that asked, for federated executions.
		field.String("caller_instance_url").Optional().Nillable(),
		field.String("requester_email").Optional().Nillable(),
		field.String("requester_name").Optional().Nillable(),
		field.String("callback_url").Optional().Nillable(),
		field.String("source_instance_id").Optional().Nillable(),
		field.String("source_instance_name").Optional().Nillable(),
		// On a hub running a global listing for a spoke's user: that user's id
		// on the spoke, whose queue the result is delivered to.
		field.String("requester_user_id").Optional().Nillable(),
		// On a spoke running a hub's dispatch: the hub's execution id and the
		// hub's per-execution callback token, sealed with the instance key
		// (base64) until the result is sent back.
		field.String("remote_execution_id").Optional().Nillable().Unique(),
		field.Text("callback_token_sealed").Optional().Nillable().Sensitive(),
		// Kept for a queued execution so its payment hold can be made when it
		// is dispatched later.
		field.String("payment_method_id").Optional().Nillable(),
		// SHA-256 (hex) of the per-execution token an agent answering later
		// presents on POST /api/marketplace/callback; the agent has no
		// account, so the token is its only credential.
		field.String("callback_token_hash").Optional().Nillable().Sensitive(),
		// When the callback delivered the result (its receipt status).
		field.Time("callback_received_at").Optional().Nillable(),
		// When the call to the agent was sent: a running execution without it
		// took the lock but was never sent (the process stopped in between),
		// so a restart sends it.
		field.Time("dispatched_at").Optional().Nillable(),
		// Why a failed or timed-out execution ended so, for the requester.
		field.Text("failure_reason").Optional().Nillable(),

		// FIFO queue while the agent's lock is held.
		field.Int("queue_position").Optional().Nillable(),
		field.Time("queued_at").Optional().Nillable(),
		// When it took the lock and was sent; the timeout runs from here and
		// must survive a restart.
		field.Time("started_at").Optional().Nillable(),
		field.Time("finished_at").Optional().Nillable(),

		// Review window: 48 hours from review_widget_shown_at.
		field.Enum("review_status").Values(vocab.Values("review_status")...).Optional().Nillable(),
		field.Text("denial_reason").Optional().Nillable(),
		field.String("denial_category").Optional().Nillable(),
		field.Time("reviewed_at").Optional().Nillable(),
		field.Time("review_widget_shown_at").Optional().Nillable(),

		field.Enum("payment_hold_status").Values(vocab.Values("payment_hold_status")...).Default("none"),
		field.Time("hold_expires_at").Optional().Nillable(),

		// `quoted` while a dynamic price waits for approve or decline.
		field.String("pricing_phase").Optional().Nillable(),
		field.Int64("quote_amount").GoType(money.Cents(0)).Optional().Nillable(),
		field.String("quote_currency").Optional().Nillable(),
		field.Text("quote_breakdown").Optional().Nillable(),

		// Quality scores and the requester's rating, each 1 to 5.
		field.Int("relevance").Optional().Nillable().Range(1, 5),
		field.Int("coherence").Optional().Nillable().Range(1, 5),
		field.Int("completeness").Optional().Nillable().Range(1, 5),
		field.Int("rating").Optional().Nillable().Range(1, 5),
		field.Text("feedback").Optional().Nillable(),

		// Revenue split, only for paid executions, in cents of the agent's
		// currency at dispatch.
		field.String("currency").Optional().Nillable(),
		field.Int64("gross").GoType(money.Cents(0)).Optional().Nillable(),
		field.Int64("developer_payout").GoType(money.Cents(0)).Optional().Nillable(),
		field.Int64("platform_fee").GoType(money.Cents(0)).Optional().Nillable(),
		field.Float("fee_percent").Optional().Nillable(),
		// On a joined spoke, the hub's validate-payment answer at the
		// settlement of a paid execution of its own listing: validated is
		// whether the hub accepted the fee (false too when it could not be
		// reached: the local fee was kept), enforced the fee percent the hub
		// answered (absent when unreachable). Both absent on a standalone or
		// a hub, which do not ask.
		field.Bool("hub_fee_validated").Optional().Nillable(),
		field.Float("hub_enforced_fee_percent").Optional().Nillable(),
	}
}

// Edges of the Execution.
func (Execution) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("executions").Field("user_id").Unique().Required().Immutable(),
		edge.From("store_agent", StoreAgent.Type).Ref("executions").Field("agent_id").Unique().Immutable(),
	}
}

// Indexes of the Execution.
func (Execution) Indexes() []ent.Index {
	return []ent.Index{
		// The per-agent FIFO queue: oldest queued first.
		index.Fields("agent_id", "status", "queued_at"),
		index.Fields("user_id", "created_at"),
		// Timeout sweep over running executions.
		index.Fields("status", "started_at"),
		// Auto-confirm sweep over overdue reviews.
		index.Fields("review_status", "review_widget_shown_at"),
		// The admin's agent activity: the runs of a period, newest first.
		index.Fields("created_at", "id"),
	}
}
