package operator

import (
	"context"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/economy"
)

func timestamp(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t) }

// FindProviders ranks who could take a task: local users' declared
// capabilities for the task type and connected peers whose published
// patterns name it, by route_task's seven factors with price fit
// (rules.Score). A peer publishes no price, so its price fit is neutral.
func (x *Service) FindProviders(ctx context.Context, req *switchboardv1.FindProvidersRequest) (*switchboardv1.FindProvidersResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	taskType := strings.TrimSpace(req.GetTaskType())
	if taskType == "" {
		return nil, apperr.Invalid("taskType is required")
	}
	ms, err := x.core.Rank(ctx, p.UserID, economy.Want{TaskType: taskType, Skills: req.GetSkills(),
		MaxPrice: money.Cents(req.GetMaxPriceCents()), Limit: int(req.GetLimit())})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.FindProvidersResponse{Providers: ms}, nil
}
