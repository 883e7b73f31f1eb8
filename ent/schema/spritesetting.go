package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// SpriteSetting is how the dashboard draws an account's assistant (document
// 2 "SpriteSettings"): no row until the first PUT, and the defaults are
// answered until then.
type SpriteSetting struct{ ent.Schema }

// Mixin of the SpriteSetting.
func (SpriteSetting) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

// Fields of the SpriteSetting.
func (SpriteSetting) Fields() []ent.Field {
	return []ent.Field{
		field.String("user_id").Unique().Immutable(),
		field.Bool("enabled").Default(true),
		field.Bool("show_labels").Default(true),
		field.Enum("animation_speed").Values(vocab.Values("sprite_animation_speed")...).Default("normal"),
		field.Enum("idle_style").Values(vocab.Values("sprite_idle_style")...).Default("float"),
		field.Float("opacity").Min(0.3).Max(1).Default(1),
		field.Enum("size").Values(vocab.Values("sprite_size")...).Default("normal"),
	}
}
