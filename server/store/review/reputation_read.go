package review

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/userreputation"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// GetStoreReputation answers the caller's reputation row, if any.
func (s *Service) GetStoreReputation(ctx context.Context, _ *switchboardv1.GetStoreReputationRequest) (*switchboardv1.GetStoreReputationResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.DB.Client.UserReputation.Query().Where(userreputation.UserID(p.UserID)).Only(ctx)
	if ent.IsNotFound(err) {
		return &switchboardv1.GetStoreReputationResponse{}, nil
	} else if err != nil {
		return nil, err
	}
	return &switchboardv1.GetStoreReputationResponse{Reputation: &switchboardv1.UserReputation{
		TaskEconomyRole: string(r.TaskEconomyRole), ReputationScore: r.ReputationScore,
		AvgRating: r.AvgRating, AvgProviderRating: r.AvgProviderRating, AvgClientRating: r.AvgClientRating,
		ReviewsReceived: int32(r.ReviewsReceived), ReviewsGiven: int32(r.ReviewsGiven), UpdatedAt: timestamppb.New(r.UpdatedAt),
	}}, nil
}
