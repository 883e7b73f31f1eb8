package operator

import (
	"context"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/job"
	"github.com/switchboard-hq/switchboard/ent/providercapability"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/network/rules"
	"github.com/switchboard-hq/switchboard/server/page"
)

// Provider capabilities (RULINGS "The operator network": Jobs; document 2,
// ProviderCapability): what the operator offers, and what received jobs are
// matched against.

// matchLimits are MatchJobs' default and largest answer.
const (
	matchDefault = 20
	matchMax     = 100
)

// DeclareCapability declares one capability of the caller's.
func (s *Service) DeclareCapability(ctx context.Context, req *switchboardv1.DeclareCapabilityRequest) (*switchboardv1.DeclareCapabilityResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetTaskType() == "" {
		return nil, apperr.Invalid("taskType is required")
	}
	c := s.core.DB.ProviderCapability.Create().SetUserID(p.UserID).SetTaskType(providercapability.TaskType(req.GetTaskType())).
		SetSkills(network.NonEmpty(req.GetSkills())).SetDescription(req.GetDescription()).SetNillablePrice(req.Price).
		SetNillableCurrency(network.Optional(strings.ToUpper(req.GetCurrency()))).SetNillableUnit(network.Optional(req.GetUnit())).
		SetNillableSampleWorkURL(network.Optional(req.GetSampleWorkUrl())).SetNillableRequirements(network.Optional(req.GetRequirements()))
	if req.GetPricingModel() != "" {
		c.SetPricingModel(providercapability.PricingModel(req.GetPricingModel()))
	}
	if req.TurnaroundDays != nil {
		c.SetTurnaroundDays(int(req.GetTurnaroundDays()))
	}
	if req.MaxConcurrent != nil {
		c.SetMaxConcurrent(int(req.GetMaxConcurrent()))
	}
	row, err := c.Save(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeclareCapabilityResponse{Capability: capabilityProto(row)}, nil
}

// ListProviderCapabilities lists the caller's capabilities, oldest first.
func (s *Service) ListProviderCapabilities(ctx context.Context, _ *switchboardv1.ListProviderCapabilitiesRequest) (*switchboardv1.ListProviderCapabilitiesResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.capabilities(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListProviderCapabilitiesResponse{Capabilities: lists.Map(rows, capabilityProto)}, nil
}

func (s *Service) capabilities(ctx context.Context, userID string) ([]*ent.ProviderCapability, error) {
	rows, err := s.core.DB.ProviderCapability.Query().Where(providercapability.UserID(userID)).
		Order(ent.Asc(providercapability.FieldCreatedAt), ent.Asc(providercapability.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// RemoveProviderCapability removes one of the caller's capabilities;
// another account's id is 404.
func (s *Service) RemoveProviderCapability(ctx context.Context, req *switchboardv1.RemoveProviderCapabilityRequest) (*switchboardv1.RemoveProviderCapabilityResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.GetId()) == "" {
		return nil, apperr.Invalid("id is required")
	}
	n, err := s.core.DB.ProviderCapability.Delete().Where(providercapability.ID(req.GetId()), providercapability.UserID(p.UserID)).Exec(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, apperr.NotFound("no capability %q", req.GetId())
	}
	return &switchboardv1.RemoveProviderCapabilityResponse{}, nil
}

// MatchJobs ranks the caller's open received jobs against its capabilities
// (rules.MatchJobs decides; this reads and renders).
func (s *Service) MatchJobs(ctx context.Context, req *switchboardv1.MatchJobsRequest) (*switchboardv1.MatchJobsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	limit, err := page.Limit(req.GetLimit(), matchDefault, matchMax)
	if err != nil {
		return nil, err
	}
	caps, err := s.capabilities(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	jobs, err := s.core.DB.Job.Query().Where(job.UserID(p.UserID), job.OriginEQ(job.OriginReceived), job.StatusEQ(job.StatusOpen)).
		Order(ent.Desc(job.FieldCreatedAt), ent.Desc(job.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	offers := lists.Map(caps, func(c *ent.ProviderCapability) rules.Offer {
		return rules.Offer{ID: c.ID, TaskType: string(c.TaskType), Skills: c.Skills}
	})
	openings := lists.Map(jobs, func(j *ent.Job) rules.Opening {
		return rules.Opening{ID: j.ID, TaskType: string(j.TaskType), Skills: j.RequiredSkills}
	})
	byID := map[string]*ent.Job{}
	for _, j := range jobs {
		byID[j.ID] = j
	}
	out := &switchboardv1.MatchJobsResponse{Matches: []*switchboardv1.JobMatch{}}
	for _, m := range rules.MatchJobs(offers, openings) {
		if len(out.Matches) == limit {
			break
		}
		out.Matches = append(out.Matches, &switchboardv1.JobMatch{Job: network.JobProto(byID[m.JobID]), Score: m.Score,
			MatchedSkills: network.OrEmpty(m.Skills), TaskTypeMatch: m.TaskType, CapabilityId: m.OfferID})
	}
	return out, nil
}

func capabilityProto(c *ent.ProviderCapability) *switchboardv1.ProviderCapability {
	out := &switchboardv1.ProviderCapability{
		Id: c.ID, TaskType: string(c.TaskType), Skills: network.OrEmpty(c.Skills), Description: c.Description,
		Price: c.Price, Currency: c.Currency, Unit: c.Unit, SampleWorkUrl: c.SampleWorkURL, Requirements: c.Requirements,
		CreatedAt: timestamppb.New(c.CreatedAt),
	}
	if c.PricingModel != nil {
		pm := string(*c.PricingModel)
		out.PricingModel = &pm
	}
	if c.TurnaroundDays != nil {
		d := int32(*c.TurnaroundDays)
		out.TurnaroundDays = &d
	}
	if c.MaxConcurrent != nil {
		m := int32(*c.MaxConcurrent)
		out.MaxConcurrent = &m
	}
	return out
}
