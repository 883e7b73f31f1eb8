package profiles

import (
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func teamProto(t *ent.Team) *switchboardv1.ProfileTeam {
	return &switchboardv1.ProfileTeam{Id: t.ID, Name: t.Name, Handle: t.Handle, AvatarUrl: t.AvatarURL,
		Description: t.Description, Visibility: string(t.Visibility)}
}

func projectProto(p *ent.Project) *switchboardv1.ProfileProject {
	return &switchboardv1.ProfileProject{Id: p.ID, Name: p.Name, Description: p.Description, Color: p.Color,
		Status: string(p.Status), TeamId: p.TeamID}
}

// capabilityProto renders a capability as the operator's own list does
// (server/network/operator).
func capabilityProto(c *ent.ProviderCapability) *switchboardv1.ProviderCapability {
	out := &switchboardv1.ProviderCapability{
		Id: c.ID, TaskType: string(c.TaskType), Skills: c.Skills, Description: c.Description,
		Price: c.Price, Currency: c.Currency, Unit: c.Unit, SampleWorkUrl: c.SampleWorkURL, Requirements: c.Requirements,
		CreatedAt: timestamppb.New(c.CreatedAt),
	}
	if out.Skills == nil {
		out.Skills = []string{}
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

// reputationProto renders document 2's User reputation as the store's
// reputation route does.
func reputationProto(r *ent.UserReputation) *switchboardv1.UserReputation {
	return &switchboardv1.UserReputation{
		TaskEconomyRole: string(r.TaskEconomyRole), ReputationScore: r.ReputationScore,
		AvgRating: r.AvgRating, AvgProviderRating: r.AvgProviderRating, AvgClientRating: r.AvgClientRating,
		ReviewsReceived: int32(r.ReviewsReceived), ReviewsGiven: int32(r.ReviewsGiven), UpdatedAt: timestamppb.New(r.UpdatedAt),
	}
}
