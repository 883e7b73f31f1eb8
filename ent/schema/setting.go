package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// ServiceKey is one configured outside service: for "webhook_push", the URL
// events are POSTed to and the secret that signs them.
type ServiceKey struct {
	Service string `json:"service"`
	URL     string `json:"url"`
	Secret  string `json:"secret"`
}

// String leaves the secret out, so a key never reaches a log by accident.
func (k ServiceKey) String() string { return k.Service + " " + k.URL }

// Setting is the one row of settings each account has, made with the account.
type Setting struct{ ent.Schema }

// Mixin of the Setting.
func (Setting) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the Setting.
func (Setting) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Unique().Immutable(),
		field.Bool("queue_auto_approve").Default(false),
		field.String("assistant_name").Optional(),
		field.Bool("goals_enabled").Default(false),
		field.Bool("onboarding_complete").Default(false),
		field.Int32("onboarding_phase").Default(0),
		// Outside services (webhook targets). Secrets are HMAC keys, so they
		// are kept as given; Sensitive keeps the field out of String().
		field.JSON("service_keys", []ServiceKey{}).Default([]ServiceKey{}).Sensitive(),
		// Who may see the profile page (RULINGS "Teams, projects, invites,
		// profiles"), and its text.
		field.Enum("profile_visibility").Values(vocab.Values("profile_visibility")...).Default("public"),
		field.Text("bio").Default(""),
		// The IANA time zone the behavior signals' hour and day default to.
		field.String("timezone").Default("UTC"),
		// The board columns (card statuses) the dashboard hides. Optional:
		// a JSON column gets no SQL default, so the rows that were there
		// before it read NULL (nil, none hidden) instead of failing the
		// migration's NOT NULL.
		field.Strings("hidden_board_columns").Optional(),
	}
}

// Edges of the Setting.
func (Setting) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("settings").Field("user_id").Unique().Required().Immutable(),
	}
}
