// Package settings owns the operator's settings row and its two update paths.
package settings

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/schema"
	"github.com/switchboard-hq/switchboard/ent/setting"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// Mode is the only mode left; the key stays for old clients.
const Mode = "cockpit"

// Saved is published in the unit of work of every settings save, with the
// row as saved (onboarding's auto-approve step hears it).
type Saved struct{ Setting *ent.Setting }

// Service implements SettingsService.
type Service struct {
	DB  *db.DB
	Now func() time.Time
	// Egress is the address rule for webhook target URLs.
	Egress egress.Policy
}

func (s *Service) load(ctx context.Context, userID string) (*ent.Setting, error) {
	row, err := s.DB.Setting.Query().Where(setting.UserID(userID)).Only(ctx)
	if err != nil {
		return nil, err // every account is made with its row
	}
	return row, nil
}

// GetSettings answers the Settings object.
func (s *Service) GetSettings(ctx context.Context, _ *switchboardv1.GetSettingsRequest) (*switchboardv1.GetSettingsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	row, err := s.load(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	res := &switchboardv1.GetSettingsResponse{
		Mode:               Mode,
		QueueAutoApprove:   row.QueueAutoApprove,
		GoalsEnabled:       row.GoalsEnabled,
		OnboardingComplete: row.OnboardingComplete,
		OnboardingPhase:    row.OnboardingPhase,
		ServiceKeys:        view(row.ServiceKeys),
		ProfileVisibility:  string(row.ProfileVisibility),
		Bio:                row.Bio,
		Timezone:           row.Timezone,
		HiddenBoardColumns: hiddenColumns(row),
	}
	if row.AssistantName != "" {
		res.AssistantName = &row.AssistantName
	}
	return res, nil
}

// UpdateSettings applies the supplied fields and answers only those
// (settings.proto: PATCH). A supplied mode also pushes
// settings.mode_switched to the account's webhook targets, in the same
// transaction (docs/decisions.md "Shared chat and events").
func (s *Service) UpdateSettings(ctx context.Context, req *switchboardv1.UpdateSettingsRequest) (*switchboardv1.UpdateSettingsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	clears, err := checkClearFields(req)
	if err != nil {
		return nil, err
	}
	setKeys, clearKeys := len(req.GetServiceKeys()) > 0, clears.serviceKeys
	setColumns := len(req.GetHiddenBoardColumns()) > 0 || clears.hiddenColumns
	if req.QueueAutoApprove == nil && req.Mode == nil && !setKeys && !clearKeys && req.ProfileVisibility == nil && req.Bio == nil && req.Timezone == nil && !setColumns {
		if req.ServiceKeys != nil {
			return nil, apperr.Invalid("serviceKeys is empty: to remove every service, name serviceKeys in clearFields")
		}
		if req.HiddenBoardColumns != nil {
			return nil, apperr.Invalid("hiddenBoardColumns is empty: to show every column, name hiddenBoardColumns in clearFields")
		}
		return nil, apperr.Invalid("no supported field supplied: send queueAutoApprove, mode, serviceKeys, profileVisibility, bio, timezone, hiddenBoardColumns or clearFields")
	}
	if req.ProfileVisibility != nil && req.GetProfileVisibility() == "" {
		return nil, apperr.Invalid("profileVisibility must be one of %s", strings.Join(vocab.Values("profile_visibility"), ", "))
	}
	if req.Timezone != nil {
		if z := req.GetTimezone(); z == "" || z == "Local" {
			return nil, apperr.Invalid("timezone must be an IANA time zone name such as Europe/Paris or UTC")
		} else if _, err := time.LoadLocation(z); err != nil {
			return nil, apperr.Invalid("timezone %q is not an IANA time zone name (such as Europe/Paris or UTC)", z)
		}
	}
	// Before the transaction: the address check may wait on DNS.
	if err := checkServiceKeys(ctx, req.GetServiceKeys(), s.Egress); err != nil {
		return nil, err
	}
	res := &switchboardv1.UpdateSettingsResponse{}
	var applied []string
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		row, err := tx.Setting.Query().Where(setting.UserID(p.UserID)).Only(ctx)
		if err != nil {
			return err // every account is made with its row
		}
		upd := tx.Setting.UpdateOne(row)
		if req.QueueAutoApprove != nil {
			upd.SetQueueAutoApprove(req.GetQueueAutoApprove())
			res.QueueAutoApprove = req.QueueAutoApprove
			applied = append(applied, fmt.Sprintf("queueAutoApprove=%t", req.GetQueueAutoApprove()))
		}
		if req.ProfileVisibility != nil {
			upd.SetProfileVisibility(setting.ProfileVisibility(req.GetProfileVisibility()))
			res.ProfileVisibility = req.ProfileVisibility
			applied = append(applied, "profileVisibility="+req.GetProfileVisibility())
		}
		if req.Bio != nil {
			upd.SetBio(req.GetBio())
			res.Bio = req.Bio
			// Not the text: the feed is shown around.
			applied = append(applied, "bio updated")
		}
		if req.Timezone != nil {
			upd.SetTimezone(req.GetTimezone())
			res.Timezone = req.Timezone
			applied = append(applied, "timezone="+req.GetTimezone())
		}
		switch {
		case setKeys:
			keys, err := mergeSecrets(req.GetServiceKeys(), row.ServiceKeys)
			if err != nil {
				return err
			}
			upd.SetServiceKeys(keys)
			res.ServiceKeys = view(keys)
			// The count only: URLs may carry tokens, and the feed is shown around.
			applied = append(applied, "serviceKeys="+strconv.Itoa(len(keys))+" configured")
		case clearKeys:
			upd.SetServiceKeys([]schema.ServiceKey{})
			res.ClearFields = []string{"serviceKeys"}
			applied = append(applied, "serviceKeys cleared")
		}
		if words := applyHiddenColumns(upd, req, clears, res); words != "" {
			applied = append(applied, words)
		}
		if row, err = upd.Save(ctx); err != nil {
			return err
		}
		if req.Mode != nil {
			// Accepted for backward compatibility; the mode is always cockpit.
			mode := Mode
			res.Mode = &mode
			applied = append(applied, "mode="+Mode)
			if err := webhooks.EnqueueFor(ctx, tx, row, webhooks.Event{
				Name: webhooks.EventModeSwitched, At: s.Now(), Data: webhooks.ModeSwitched{Mode: Mode},
			}); err != nil {
				return err
			}
		}
		if err := activity.Write(ctx, tx, activity.Entry{
			UserID: p.UserID, Action: "settings_updated", Actor: p.Actor(), At: s.Now(),
			Summary: "Updated settings: " + strings.Join(applied, ", "),
		}); err != nil {
			return err
		}
		return tx.Publish(ctx, Saved{Setting: row})
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func itoa(i int) string { return strconv.Itoa(i) }
