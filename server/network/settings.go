package network

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// SwitchState is the admin's switch as it stands: the stored row, else the
// flags.
type SwitchState struct {
	Enabled   bool
	Allowlist []string
}

// admits says whether origin may take part: any origin under an empty
// allowlist, else only the listed ones.
func (w SwitchState) admits(origin string) bool {
	return len(w.Allowlist) == 0 || slices.Contains(w.Allowlist, origin)
}

// Listed says whether origin is on a non-empty allowlist (what auto-accept
// needs).
func (w SwitchState) Listed(origin string) bool {
	return len(w.Allowlist) > 0 && slices.Contains(w.Allowlist, origin)
}

func (s *Core) Switch(ctx context.Context) (SwitchState, error) {
	row, err := s.DB.NetworkSetting.Query().First(ctx)
	if ent.IsNotFound(err) {
		return SwitchState{Enabled: s.Config.Enabled, Allowlist: s.Config.Allowlist}, nil
	}
	if err != nil {
		return SwitchState{}, err
	}
	return SwitchState{Enabled: row.Enabled, Allowlist: row.Allowlist}, nil
}

// SwitchOn answers the switch, or 403 while the operator network is off.
func (s *Core) SwitchOn(ctx context.Context) (SwitchState, error) {
	w, err := s.Switch(ctx)
	if err != nil {
		return w, err
	}
	if !w.Enabled {
		return w, apperr.Forbidden("the operator network is off on this instance (--federation, or the admin's federation settings)")
	}
	return w, nil
}

// Admit refuses an origin outside a non-empty allowlist with 403.
func Admit(w SwitchState, origin string) error {
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

// PeerOrigin checks a peer's address: an origin, https unless
// --federation-allow-private, and an address the egress rule admits.
func (s *Core) PeerOrigin(ctx context.Context, field, raw string) (string, error) {
	origin, err := Origin(raw)
	if err != nil {
		return "", apperr.Invalid("%s: %s", field, err)
	}
	if !s.Config.AllowPrivate && !strings.HasPrefix(origin, "https://") {
		return "", apperr.Invalid("%s: peers must be https:// (plain http only with %s)", field, PrivateFlag)
	}
	u, _ := url.Parse(origin)
	if err := s.egress.CheckURL(ctx, u); err != nil {
		return "", apperr.Invalid("%s: %s", field, egress.Reason(err))
	}
	return origin, nil
}

func (s *Core) SettingsOf(w SwitchState) *switchboardv1.NetworkSettings {
	list := w.Allowlist
	if list == nil {
		list = []string{}
	}
	return &switchboardv1.NetworkSettings{Enabled: w.Enabled, Allowlist: list, AllowPrivate: s.Config.AllowPrivate}
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
