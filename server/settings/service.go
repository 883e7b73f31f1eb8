// Package settings owns the operator's settings row and its two update paths.
package settings

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/setting"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

var (
	_ switchboardv1connect.SettingsServiceHandler = (*Service)(nil)
	_ switchboardv1.SettingsServiceServer         = (*Service)(nil)
)

// Mode is the only mode left; the key stays for old clients.
const Mode = "cockpit"

// Service implements SettingsService.
type Service struct {
	DB *ent.Client
}

func (s *Service) load(ctx context.Context, userID string) (*ent.Setting, error) {
	row, err := s.DB.Setting.Query().Where(setting.UserID(userID)).Only(ctx)
	if err != nil {
		return nil, apperr.Internal(err) // every account is made with its row
	}
	return row, nil
}

// GetSettings answers the Settings object.
func (s *Service) GetSettings(ctx context.Context, _ *switchboardv1.GetSettingsRequest) (*switchboardv1.GetSettingsResponse, error) {
	p, err := auth.MustPrincipal(ctx)
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
	}
	if row.AssistantName != "" {
		res.AssistantName = &row.AssistantName
	}
	return res, nil
}

// UpdateSettings applies the supplied fields and answers only those
// (document 1, Settings: PATCH).
func (s *Service) UpdateSettings(ctx context.Context, req *switchboardv1.UpdateSettingsRequest) (*switchboardv1.UpdateSettingsResponse, error) {
	p, err := auth.MustPrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.QueueAutoApprove == nil && req.Mode == nil {
		return nil, apperr.Invalid("no supported field supplied: send queueAutoApprove or mode")
	}
	res := &switchboardv1.UpdateSettingsResponse{}
	var applied []string
	tx, err := s.DB.Tx(ctx)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if req.QueueAutoApprove != nil {
		n, err := tx.Setting.Update().Where(setting.UserID(p.UserID)).
			SetQueueAutoApprove(req.GetQueueAutoApprove()).Save(ctx)
		if err != nil {
			return nil, apperr.Internal(err)
		}
		if n != 1 {
			return nil, apperr.Internal(errors.New("settings row missing for account"))
		}
		res.QueueAutoApprove = req.QueueAutoApprove
		applied = append(applied, fmt.Sprintf("queueAutoApprove=%t", req.GetQueueAutoApprove()))
	}
	if req.Mode != nil {
		// Accepted for backward compatibility; the mode is always cockpit.
		mode := Mode
		res.Mode = &mode
		applied = append(applied, "mode="+Mode)
	}
	if err := activity.Write(ctx, tx, activity.Entry{
		UserID: p.UserID, Action: "settings_updated", Actor: p.Actor(),
		Summary: "Updated settings: " + strings.Join(applied, ", "),
	}); err != nil {
		return nil, apperr.Internal(err)
	}
	if err := tx.Commit(); err != nil {
		return nil, apperr.Internal(err)
	}
	return res, nil
}
