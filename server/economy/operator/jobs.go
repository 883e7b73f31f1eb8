package operator

import (
	"context"
	"strings"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/economy"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
	"github.com/switchboard-hq/switchboard/server/network"
)

var (
	_ switchboardv1connect.JobMarketServiceHandler = (*Market)(nil)
	_ switchboardv1.JobMarketServiceServer         = (*Market)(nil)
)

// Market implements JobMarketService: applying to the jobs on the caller's
// board or another user's here, and the owner's award (RULINGS "The task
// economy": Jobs). The jobs themselves are the network's board
// (server/network/operator); what an application and an award change is
// server/economy's Jobs.
type Market struct {
	core *economy.Core
	jobs *economy.Jobs
}

// NewMarket makes the service over the economy's core and its job market.
func NewMarket(c *economy.Core, j *economy.Jobs) *Market { return &Market{core: c, jobs: j} }

// ApplyToJob applies to a job.
func (x *Market) ApplyToJob(ctx context.Context, req *switchboardv1.ApplyToJobRequest) (*switchboardv1.ApplyToJobResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	app, err := x.jobs.Apply(ctx, p, req.GetId(), economy.Application{Message: strings.TrimSpace(req.GetMessage()),
		Price: money.Cents(req.GetPriceCents()), EtaDays: int(req.GetEtaDays())})
	if err != nil {
		return nil, err
	}
	row, err := x.core.DB.Job.Get(ctx, app.JobID)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ApplyToJobResponse{Application: economy.RenderApplication(ctx, x.core.DB.Client, row, app)}, nil
}

// AwardJob awards one of the caller's direct jobs to an application.
func (x *Market) AwardJob(ctx context.Context, req *switchboardv1.AwardJobRequest) (*switchboardv1.AwardJobResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	application := strings.TrimSpace(req.GetApplicationId())
	if application == "" {
		return nil, apperr.Invalid("applicationId is required: the application to award")
	}
	a, err := x.jobs.Award(ctx, p, req.GetId(), application)
	if err != nil {
		return nil, err
	}
	return x.awarded(ctx, a), nil
}

func (x *Market) awarded(ctx context.Context, a *economy.Award) *switchboardv1.AwardJobResponse {
	cl := x.core.DB.Client
	return &switchboardv1.AwardJobResponse{Job: network.JobProto(a.Job), Application: economy.RenderApplication(ctx, cl, a.Job, a.Application),
		Contract: x.core.Render(ctx, cl, a.Contract, rules.Client)}
}

// ListJobApplications lists the applications the caller may read of a job.
func (x *Market) ListJobApplications(ctx context.Context, req *switchboardv1.ListJobApplicationsRequest) (*switchboardv1.ListJobApplicationsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	apps, err := x.jobs.Applications(ctx, p, req.GetId())
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListJobApplicationsResponse{Applications: apps}, nil
}
