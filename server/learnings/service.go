// Package learnings owns what Switchboard notices of the operator (RULINGS
// "The proactive layer"): behavior signals (signals.go) with their daily
// retention, the learnings (learnings.go) and their analysis (analyze.go,
// deciding in server/learnings/rules), the daily timers (timer.go) and the
// admin's recurring workflows (workflows.go). Session only, except the
// workflows (an admin's session or key with settings).
package learnings

import (
	"context"
	"time"

	"github.com/switchboard-hq/switchboard/ent/setting"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
)

var (
	_ switchboardv1connect.BehaviorSignalServiceHandler = (*Service)(nil)
	_ switchboardv1.BehaviorSignalServiceServer         = (*Service)(nil)
	_ switchboardv1connect.LearningServiceHandler       = (*Service)(nil)
	_ switchboardv1.LearningServiceServer               = (*Service)(nil)
	_ switchboardv1connect.WorkflowServiceHandler       = (*Service)(nil)
	_ switchboardv1.WorkflowServiceServer               = (*Service)(nil)
)

// Service implements BehaviorSignalService, LearningService and
// WorkflowService over the same rows.
type Service struct {
	DB  *db.DB
	Now func() time.Time
}

func (s *Service) now() time.Time { return s.Now().UTC() }

// Location is the account's timezone setting, UTC when unset or unknown.
func Location(ctx context.Context, d *db.DB, userID string) (*time.Location, error) {
	row, err := d.Setting.Query().Where(setting.UserID(userID)).Select(setting.FieldTimezone).Only(ctx)
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(row.Timezone)
	if err != nil || row.Timezone == "" || row.Timezone == "Local" {
		return time.UTC, nil
	}
	return loc, nil
}
