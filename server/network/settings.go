package network

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// switchState is the admin's switch as it stands: the stored row, else the
// flags.
type switchState struct {
	enabled   bool
	allowlist []string
}

// admits says whether origin may take part: any origin under an empty
// allowlist, else only the listed ones.
func (w switchState) admits(origin string) bool {
	return len(w.allowlist) == 0 || slices.Contains(w.allowlist, origin)
}

// listed says whether origin is on a non-empty allowlist (what auto-accept
// needs).
func (w switchState) listed(origin string) bool {
	return len(w.allowlist) > 0 && slices.Contains(w.allowlist, origin)
}

func (s *Core) switchState(ctx context.Context) (switchState, error) {
	row, err := s.DB.NetworkSetting.Query().First(ctx)
	if ent.IsNotFound(err) {
		return switchState{enabled: s.Config.Enabled, allowlist: s.Config.Allowlist}, nil
	}
	if err != nil {
		return switchState{}, err
	}
	return switchState{enabled: row.Enabled, allowlist: row.Allowlist}, nil
}

// on answers the switch, or 403 while the operator network is off.
func (s *Core) on(ctx context.Context) (switchState, error) {
	w, err := s.switchState(ctx)
	if err != nil {
		return w, err
	}
	if !w.enabled {
		return w, apperr.Forbidden("the operator network is off on this instance (--federation, or the admin's federation settings)")
	}
	return w, nil
}

// admit refuses an origin outside a non-empty allowlist with 403.
func admit(w switchState, origin string) error {
	if !w.admits(origin) {
		return apperr.Forbidden("%s is not on this instance's federation allowlist", origin)
	}
	return nil
}

// Origin is the scheme://host[:port] of an instance address, lowercased;
// an address with a path, query or credentials is refused (the error text is
// for the caller).
func Origin(raw string) (string, error) {
	u, err := egress.ParseURL(strings.TrimSpace(raw))
	if err != nil {
		return "", err
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return "", &url.Error{Op: "parse", URL: raw, Err: errOrigin}
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), nil
}

type originError struct{}

func (originError) Error() string {
	return "an instance address is an origin: scheme://host[:port], no path or query"
}

var errOrigin = originError{}

// peerOrigin checks a peer's address: an origin, https unless
// --federation-allow-private, and an address the egress rule admits.
func (s *Core) peerOrigin(ctx context.Context, field, raw string) (string, error) {
	origin, err := Origin(raw)
	if err != nil {
		return "", apperr.Invalid("%s: %s", field, err)
	}
	if !s.Config.AllowPrivate && !strings.HasPrefix(origin, "https://") {
		return "", apperr.Invalid("%s: peers must be https:// (plain http only with --federation-allow-private)", field)
	}
	u, _ := url.Parse(origin)
	if err := s.egress.CheckURL(ctx, u); err != nil {
		return "", apperr.Invalid("%s: %s", field, egress.Reason(err))
	}
	return origin, nil
}

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

func (s *Core) settingsOf(w switchState) *switchboardv1.NetworkSettings {
	list := w.allowlist
	if list == nil {
		list = []string{}
	}
	return &switchboardv1.NetworkSettings{Enabled: w.enabled, Allowlist: list, AllowPrivate: s.Config.AllowPrivate}
}

// GetNetworkSettings answers the switch (admin only).
func (s *Operator) GetNetworkSettings(ctx context.Context, _ *switchboardv1.GetNetworkSettingsRequest) (*switchboardv1.GetNetworkSettingsResponse, error) {
	if err := admin(ctx); err != nil {
		return nil, err
	}
	w, err := s.core.switchState(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetNetworkSettingsResponse{Settings: s.core.settingsOf(w)}, nil
}

// UpdateNetworkSettings replaces the switch and the allowlist (admin only).
func (s *Operator) UpdateNetworkSettings(ctx context.Context, req *switchboardv1.UpdateNetworkSettingsRequest) (*switchboardv1.UpdateNetworkSettingsResponse, error) {
	if err := admin(ctx); err != nil {
		return nil, err
	}
	list, err := Allowlist(req.GetAllowlist())
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
	return &switchboardv1.UpdateNetworkSettingsResponse{Settings: s.core.settingsOf(switchState{enabled: req.GetEnabled(), allowlist: list})}, nil
}

// Allowlist reads origins (the flag's comma-separated parts, the admin's
// list): each an origin, duplicates dropped, in order.
func Allowlist(raw []string) ([]string, error) {
	out := []string{}
	for _, r := range raw {
		if strings.TrimSpace(r) == "" {
			continue
		}
		o, err := Origin(r)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out, nil
}
