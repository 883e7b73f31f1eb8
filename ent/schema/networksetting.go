package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// NetworkSetting is the admin's switch of the operator network: one row at
// most. Without one the flags' values hold (--federation,
// --federation-allowlist).
type NetworkSetting struct{ ent.Schema }

// Mixin of the NetworkSetting.
func (NetworkSetting) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the NetworkSetting.
func (NetworkSetting) Fields() []ent.Field {
	return []ent.Field{
		field.Bool("enabled").Default(false),
		// The admitted origins; empty admits any.
		field.Strings("allowlist").Optional(),
	}
}
