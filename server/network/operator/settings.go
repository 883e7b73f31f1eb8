package operator

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network"
)

func admin(ctx context.Context) error {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return err
	}
	if p.Role != "admin" {
		return apperr.Forbidden("only this instance's admin may change its federation settings")
	}
	return nil
}

// GetNetworkSettings answers the switch (admin only).
func (s *Service) GetNetworkSettings(ctx context.Context, _ *switchboardv1.GetNetworkSettingsRequest) (*switchboardv1.GetNetworkSettingsResponse, error) {
	if err := admin(ctx); err != nil {
		return nil, err
	}
	w, err := s.core.Switch(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetNetworkSettingsResponse{Settings: s.core.SettingsOf(w)}, nil
}

// UpdateNetworkSettings replaces the switch and the allowlist (admin only).
func (s *Service) UpdateNetworkSettings(ctx context.Context, req *switchboardv1.UpdateNetworkSettingsRequest) (*switchboardv1.UpdateNetworkSettingsResponse, error) {
	if err := admin(ctx); err != nil {
		return nil, err
	}
	list, err := network.Allowlist(req.GetAllowlist())
	if err != nil {
		return nil, apperr.Invalid("allowlist: %s", err)
	}
	err = s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		row, err := tx.NetworkSetting.Query().First(ctx)
		switch {
		case ent.IsNotFound(err):
			return tx.NetworkSetting.Create().SetEnabled(req.GetEnabled()).SetAllowlist(list).Exec(ctx)
		case err != nil:
			return err
		}
		return row.Update().SetEnabled(req.GetEnabled()).SetAllowlist(list).Exec(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateNetworkSettingsResponse{Settings: s.core.SettingsOf(network.SwitchState{Enabled: req.GetEnabled(), Allowlist: list})}, nil
}
