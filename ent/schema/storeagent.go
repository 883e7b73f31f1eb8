package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/money"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// AgentCommand is one command a store agent documents: {name, description, usage}.
type AgentCommand struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Usage       string `json:"usage,omitempty"`
}

// PricingConfig is a listing's pricing detail (document 2, "Store agent
// listing"): {model, tiers, dynamicConfig}.
type PricingConfig struct {
	Model         string          `json:"model,omitempty"`
	Tiers         []PricingTier   `json:"tiers,omitempty"`
	DynamicConfig *DynamicPricing `json:"dynamicConfig,omitempty"`
}

// PricingTier is one tier of a tiered price.
type PricingTier struct {
	Name string `json:"name"`
	// In cents, under a key of its own so an amount in units is never read
	// as cents.
	PricePerTask money.Cents `json:"pricePerTaskCents"`
	TaskLimit    *int32      `json:"taskLimit,omitempty"`
	Description  string      `json:"description,omitempty"`
}

// DynamicPricing is how a dynamically priced agent quotes.
type DynamicPricing struct {
	// [min, max] in cents.
	EstimateRange    []money.Cents `json:"estimateRangeCents,omitempty"`
	RequiresApproval bool          `json:"requiresApproval"`
	Description      string        `json:"description,omitempty"`
}

// ChangelogEntry is one change of a listing: the version it produced, the
// owner's note, the fields it changed and whether they are breaking (endpoint,
// auth method or pricing model: document 2, "Store agent status").
type ChangelogEntry struct {
	Version  string    `json:"version"`
	Notes    string    `json:"notes,omitempty"`
	Breaking bool      `json:"breaking"`
	Fields   []string  `json:"fields"`
	At       time.Time `json:"at"`
}

// StoreAgent is an agent listed in the store. The owner (user_id) is the
// account that listed it; listings synced from another instance keep that
// instance's id for the agent in remote_id.
type StoreAgent struct{ ent.Schema }

// Mixin of the StoreAgent.
func (StoreAgent) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the StoreAgent.
func (StoreAgent) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Immutable(),
		field.String("name").NotEmpty(),
		// Unique per instance; a conflict is a 409 on every write path.
		field.String("slug").NotEmpty().Unique(),
		field.Text("description").Optional().Nillable(),
		// Where executions are POSTed (A2A or MCP).
		field.String("endpoint_url").Optional().Nillable(),
		field.String("developer_name").Optional().Nillable(),
		// Free text: sync and self-registration accept different sets.
		field.String("category").Optional().Nillable(),
		// Free text for the same reason: free, per_task, tiered, dynamic, subscription.
		field.String("pricing_model").Default("free"),
		// In cents of currency (docs/decisions.md, "Money in minor units").
		field.Int64("price_per_task").GoType(money.Cents(0)).Default(0),
		field.String("currency").Default("USD"),
		// {model, tiers: [...], dynamicConfig: {...}}; absent when none.
		field.JSON("pricing_config", &PricingConfig{}).Optional(),
		field.Text("install_guide").Optional().Nillable(),
		field.JSON("commands", []AgentCommand{}).Default([]AgentCommand{}),
		field.Strings("task_types").Default([]string{}),
		field.Text("context_instructions").Optional().Nillable(),
		field.Bool("supports_a2a").Default(false),
		field.Bool("supports_mcp").Default(false),
		// MAJOR.MINOR.PATCH; every change that alters the listing bumps it.
		field.String("version").Default("1.0.0"),
		// Newest last, capped; see ChangelogEntry.
		field.JSON("changelog", []ChangelogEntry{}).Default([]ChangelogEntry{}),
		// Hash of the password that lets users bypass the paywall; never the password.
		field.String("access_password_hash").Optional().Nillable().Sensitive(),
		field.Enum("input_format").Values(vocab.Values("input_format")...).Default("text"),
		field.String("output_format").Optional().Nillable(),
		field.Enum("auth_method").Values(vocab.Values("auth_method")...).Default("none"),
		// The credential for auth_method, sealed with the instance key
		// (internal/secrets) and bound to this row; never answered or logged.
		field.Bytes("auth_credential_encrypted").Optional().Nillable().Sensitive(),
		field.String("health_check_url").Optional().Nillable(),
		field.Strings("declared_widget_types").Default([]string{}),
		field.Enum("availability").Values(vocab.Values("availability")...).Default("available"),
		// The concurrency lock: the running execution, set only where it is
		// null. A plain id, not an edge, so the two tables do not point at
		// each other.
		field.String("current_execution_id").Optional().Nillable(),
		// Seconds.
		field.Int("execution_timeout").Default(1800).Positive(),

		// Integration kit (besides task_types and context_instructions above).
		field.Text("required_input_schema").Optional().Nillable(),
		field.Text("output_schema").Optional().Nillable(),
		field.Text("usage_examples").Optional().Nillable(),
		field.Text("context_preparation").Optional().Nillable(),
		field.Text("execution_notes").Optional().Nillable(),

		// `suspended` is the cascade of a deactivated instance; reactivating the
		// instance puts its suspended agents back to active.
		field.Enum("status").Values(vocab.Values("listing_status")...).Default("active"),
		// The status a suspension (the instance's deactivation) replaced,
		// restored on reactivation; nil when not suspended that way.
		field.String("status_before_suspend").Optional().Nillable(),
		// The agent's id on the instance it was synced from.
		field.String("remote_id").Optional().Nillable(),
		field.String("source_instance_id").Optional().Nillable(),
		field.Float("rating_avg").Default(0),
		field.Int("rating_count").Default(0),
		// Aggregate of the agent-quality signals (see the review package's
		// QualityScore); nil before the first signal.
		field.Float("quality_score").Optional().Nillable(),
		field.Int("quality_signal_count").Default(0),
		// Counters kept in the transaction of each change, for sorting the
		// store by popularity without counting rows.
		field.Int("install_count").Default(0),
		field.Int("subscriber_count").Default(0),
		field.Int("execution_count").Default(0),

		// Self-registration (document 2, "Developer self-registration"): the
		// hash of the token the agent may use to run its own test-run, and
		// the URL of the instance the developer registered from, where the
		// approval webhook goes.
		field.String("self_config_token_hash").Optional().Nillable().Unique().Sensitive(),
		field.String("source_instance_url").Optional().Nillable(),
		// On a spoke: the hub's last decision on this listing (the approval
		// webhook), its id there, and when the hub decided; an older
		// decision arriving later is ignored.
		field.String("hub_status").Optional().Nillable(),
		field.String("marketplace_id").Optional().Nillable(),
		field.Time("hub_decided_at").Optional().Nillable(),

		// An instance agent (POST /api/admin/my-agents): owned by the
		// instance, kept by its admins, with a kit only they read
		// (context_instructions above is the kit's fourth part).
		field.Bool("instance_owned").Default(false),
		field.Text("kit_system_prompt").Optional().Nillable(),
		// Optional as every JSON column added to a table with rows: no
		// SQL default exists for it, so older rows read NULL (nil, none).
		field.Strings("kit_tools").Optional(),
		field.Strings("kit_sample_prompts").Optional(),
	}
}

// Edges of the StoreAgent.
func (StoreAgent) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("store_agents").Field("user_id").Unique().Required().Immutable(),
		// Removing a listing unlinks its executions, never deletes them
		// (docs/decisions.md "Federation platform routes (issue 14)").
		edge.To("executions", Execution.Type).
			Annotations(entsql.OnDelete(entsql.SetNull)),
		edge.To("installs", StoreInstall.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("subscriptions", StoreSubscription.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("unlocks", StoreUnlock.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("ship_gate_runs", ShipGateRun.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
		edge.To("quality_signals", AgentQualitySignal.Type).
			Annotations(entsql.OnDelete(entsql.Cascade)),
	}
}

// Indexes of the StoreAgent.
func (StoreAgent) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("user_id", "status"),
		index.Fields("status", "category"),
		index.Fields("status", "created_at"),
		// Sync upserts by the caller's own id for the agent.
		index.Fields("source_instance_id", "remote_id").Unique(),
	}
}
