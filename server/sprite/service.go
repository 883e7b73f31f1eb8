// Package sprite owns how the dashboard draws an account's assistant
// (document 2 "SpriteSettings"; RULINGS "Onboarding, sprite, admin views, the
// developer portal"): SpriteService at /api/user/sprite-settings, the
// defaults answered until the first save, a partial PUT. The value sets and
// the opacity's range are the contract's (sprite.proto, vocabulary.proto).
package sprite

import (
	"context"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/spritesetting"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

var (
	_ switchboardv1connect.SpriteServiceHandler = (*Service)(nil)
	_ switchboardv1.SpriteServiceServer         = (*Service)(nil)
)

// Service implements SpriteService.
type Service struct {
	DB  *db.DB
	Now func() time.Time
}

// Defaults are the settings of an account that saved none.
func Defaults() *switchboardv1.SpriteSettings {
	return &switchboardv1.SpriteSettings{Enabled: true, ShowLabels: true,
		AnimationSpeed: string(vocab.SpriteAnimationSpeedNormal), IdleStyle: string(vocab.SpriteIdleStyleFloat),
		Opacity: 1, Size: string(vocab.SpriteSizeNormal)}
}

func toSettings(r *ent.SpriteSetting) *switchboardv1.SpriteSettings {
	return &switchboardv1.SpriteSettings{Enabled: r.Enabled, ShowLabels: r.ShowLabels,
		AnimationSpeed: string(r.AnimationSpeed), IdleStyle: string(r.IdleStyle), Opacity: r.Opacity, Size: string(r.Size)}
}

// GetSpriteSettings answers the caller's settings, or the defaults.
func (s *Service) GetSpriteSettings(ctx context.Context, _ *switchboardv1.GetSpriteSettingsRequest) (*switchboardv1.GetSpriteSettingsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.DB.SpriteSetting.Query().Where(spritesetting.UserID(p.UserID)).Only(ctx)
	if ent.IsNotFound(err) {
		return &switchboardv1.GetSpriteSettingsResponse{Settings: Defaults()}, nil
	} else if err != nil {
		return nil, err
	}
	return &switchboardv1.GetSpriteSettingsResponse{Settings: toSettings(r)}, nil
}

// UpdateSpriteSettings applies the fields given over the saved settings (or
// the defaults) and answers the whole.
func (s *Service) UpdateSpriteSettings(ctx context.Context, req *switchboardv1.UpdateSpriteSettingsRequest) (*switchboardv1.UpdateSpriteSettingsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	// The boundary holds a value to its set; an empty one it lets through as
	// absent, which a partial PUT must not take for "unchanged".
	for _, f := range []struct {
		name, set string
		v         *string
	}{
		{"animationSpeed", "sprite_animation_speed", req.AnimationSpeed},
		{"idleStyle", "sprite_idle_style", req.IdleStyle},
		{"size", "sprite_size", req.Size},
	} {
		if f.v != nil && *f.v == "" {
			return nil, apperr.OneOf(f.name, "", vocab.Values(f.set))
		}
	}
	r, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.SpriteSetting, error) {
		r, err := tx.SpriteSetting.Query().Where(spritesetting.UserID(p.UserID)).Only(ctx)
		if ent.IsNotFound(err) {
			now := s.Now().UTC()
			r, err = tx.SpriteSetting.Create().SetUserID(p.UserID).SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
		}
		if err != nil {
			return nil, err
		}
		upd := tx.SpriteSetting.UpdateOne(r).SetUpdatedAt(s.Now().UTC()).
			SetNillableEnabled(req.Enabled).SetNillableShowLabels(req.ShowLabels).SetNillableOpacity(req.Opacity)
		if req.AnimationSpeed != nil {
			upd.SetAnimationSpeed(spritesetting.AnimationSpeed(req.GetAnimationSpeed()))
		}
		if req.IdleStyle != nil {
			upd.SetIdleStyle(spritesetting.IdleStyle(req.GetIdleStyle()))
		}
		if req.Size != nil {
			upd.SetSize(spritesetting.Size(req.GetSize()))
		}
		return upd.Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateSpriteSettingsResponse{Settings: toSettings(r)}, nil
}
