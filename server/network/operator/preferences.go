package operator

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
	// Quiet hours name IANA zones; the binary carries them.
	_ "time/tzdata"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkpreference"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network"
)

// clockTime is HH:MM on a 24-hour clock.
var clockTime = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)

// defaults are the preferences of a user who has set none.
func defaults() *switchboardv1.NetworkPreferences {
	return &switchboardv1.NetworkPreferences{MutedTopics: []string{}, AmbientEnabled: true, MaxOpenRelays: network.DefaultMaxOpenRelays}
}

func prefsOf(p *ent.NetworkPreference) *switchboardv1.NetworkPreferences {
	out := &switchboardv1.NetworkPreferences{AutoAccept: p.AutoAccept, MutedTopics: p.MutedTopics,
		AmbientEnabled: p.AmbientEnabled, MaxOpenRelays: int32(p.MaxOpenRelays)}
	if out.MutedTopics == nil {
		out.MutedTopics = []string{}
	}
	if p.QuietStart != nil && p.QuietEnd != nil {
		out.QuietHours = &switchboardv1.QuietHours{Start: *p.QuietStart, End: *p.QuietEnd, TimeZone: network.Deref(p.QuietTimeZone)}
	}
	return out
}

// GetNetworkPreferences answers the caller's relay preferences.
func (s *Service) GetNetworkPreferences(ctx context.Context, _ *switchboardv1.GetNetworkPreferencesRequest) (*switchboardv1.GetNetworkPreferencesResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	row, err := s.core.DB.NetworkPreference.Query().Where(networkpreference.UserID(p.UserID)).Only(ctx)
	if ent.IsNotFound(err) {
		return &switchboardv1.GetNetworkPreferencesResponse{Preferences: defaults()}, nil
	}
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetNetworkPreferencesResponse{Preferences: prefsOf(row)}, nil
}

// UpdateNetworkPreferences replaces the caller's relay preferences; what
// the body leaves out takes its default.
func (s *Service) UpdateNetworkPreferences(ctx context.Context, req *switchboardv1.UpdateNetworkPreferencesRequest) (*switchboardv1.UpdateNetworkPreferencesResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	want, err := preferencesFrom(req)
	if err != nil {
		return nil, err
	}
	row, err := db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (*ent.NetworkPreference, error) {
		id, err := tx.NetworkPreference.Query().Where(networkpreference.UserID(p.UserID)).OnlyID(ctx)
		if ent.IsNotFound(err) {
			return tx.NetworkPreference.Create().SetUserID(p.UserID).SetAutoAccept(want.AutoAccept).
				SetMutedTopics(want.MutedTopics).SetAmbientEnabled(want.AmbientEnabled).
				SetMaxOpenRelays(int(want.MaxOpenRelays)).SetNillableQuietStart(quiet(want, 0)).
				SetNillableQuietEnd(quiet(want, 1)).SetNillableQuietTimeZone(quiet(want, 2)).Save(ctx)
		}
		if err != nil {
			return nil, err
		}
		up := tx.NetworkPreference.UpdateOneID(id).SetAutoAccept(want.AutoAccept).SetMutedTopics(want.MutedTopics).
			SetAmbientEnabled(want.AmbientEnabled).SetMaxOpenRelays(int(want.MaxOpenRelays))
		if want.QuietHours == nil {
			up.ClearQuietStart().ClearQuietEnd().ClearQuietTimeZone()
		} else {
			up.SetQuietStart(want.QuietHours.Start).SetQuietEnd(want.QuietHours.End).SetQuietTimeZone(want.QuietHours.TimeZone)
		}
		return up.Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateNetworkPreferencesResponse{Preferences: prefsOf(row)}, nil
}

// preferencesFrom checks a request and fills its defaults: quiet hours need
// both ends as HH:MM and a known time zone (UTC when empty); muted topics
// are trimmed and kept once each.
func preferencesFrom(req *switchboardv1.UpdateNetworkPreferencesRequest) (*switchboardv1.NetworkPreferences, error) {
	out := defaults()
	out.AutoAccept = req.GetAutoAccept()
	if req.AmbientEnabled != nil {
		out.AmbientEnabled = req.GetAmbientEnabled()
	}
	if req.MaxOpenRelays != nil {
		out.MaxOpenRelays = req.GetMaxOpenRelays()
	}
	for _, t := range req.GetMutedTopics() {
		t = strings.TrimSpace(t)
		if t == "" {
			return nil, apperr.Invalid("mutedTopics: a topic must not be blank")
		}
		if !slices.Contains(out.MutedTopics, t) {
			out.MutedTopics = append(out.MutedTopics, t)
		}
	}
	if q := req.GetQuietHours(); q != nil {
		if !clockTime.MatchString(q.GetStart()) || !clockTime.MatchString(q.GetEnd()) {
			return nil, apperr.Invalid("quietHours: start and end are HH:MM on a 24-hour clock")
		}
		zone := q.GetTimeZone()
		if zone == "" {
			zone = "UTC"
		}
		if _, err := time.LoadLocation(zone); err != nil || strings.EqualFold(zone, "local") {
			return nil, apperr.Invalid("quietHours.timeZone: %q is not an IANA time zone", q.GetTimeZone())
		}
		out.QuietHours = &switchboardv1.QuietHours{Start: q.GetStart(), End: q.GetEnd(), TimeZone: zone}
	}
	return out, nil
}

// quiet is the i-th part of the quiet hours (start, end, zone), nil without
// them.
func quiet(p *switchboardv1.NetworkPreferences, i int) *string {
	q := p.GetQuietHours()
	if q == nil {
		return nil
	}
	v := []string{q.GetStart(), q.GetEnd(), q.GetTimeZone()}[i]
	return &v
}
