package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// FederationAuditLog is one federation call, inbound or outbound (document 2,
// "Other records"). Rows are written once and deleted by the retention sweep.
// Previews hold no secrets: they are made by the guard's Preview.
type FederationAuditLog struct{ ent.Schema }

// Mixin of the FederationAuditLog.
func (FederationAuditLog) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the FederationAuditLog.
func (FederationAuditLog) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("direction").Values(vocab.Values("federation_direction")...),
		// The path called, without its query.
		field.String("endpoint"),
		field.String("source_instance_name").Default(""),
		field.String("target_instance_name").Default(""),
		field.Enum("status").Values(vocab.Values("federation_audit_status")...),
		// 0 when the call failed before an answer.
		field.Int("status_code").Default(0),
		field.Int64("duration_ms").Default(0),
		field.Enum("threat_level").Values(vocab.Values("threat_level")...).Default("none"),
		// Comma-separated, sorted.
		field.String("threat_flags").Default(""),
		field.Float("moderation_score").Default(0),
		field.Bool("blocked").Default(false),
		field.String("block_reason").Default(""),
		field.Int("retry_count").Default(0),
		field.String("caller_ip").Default(""),
		// At most 500 characters each, redacted and masked.
		field.Text("payload").Default(""),
		field.Text("response_preview").Default(""),
	}
}

// Indexes of the FederationAuditLog: the list's filters, newest first, and
// the retention sweep by created_at.
func (FederationAuditLog) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("created_at"),
		index.Fields("direction", "created_at"),
		index.Fields("status", "created_at"),
		index.Fields("threat_level", "created_at"),
		index.Fields("endpoint", "created_at"),
	}
}
