package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, profileFixtures) }

func profileFixtures() []fixture {
	team := &switchboardv1.ProfileTeam{
		Id: "ckx2t0e1a0000qzrmteamaaaa1", Name: "Ops \"Night\" <crew>", Handle: "ops-night-crew",
		AvatarUrl: proto.String("https://cdn.example.com/ops.png"), Description: proto.String("Who keeps the lights on"),
		Visibility: "network",
	}
	sparseTeam := &switchboardv1.ProfileTeam{Id: "ckx2t0e2b0001qzrmteamaaaa2", Name: "Core", Handle: "core", Visibility: "public"}
	project := &switchboardv1.ProfileProject{
		Id: "ckx2p0r1a0000qzrmprojecta1", Name: "Launch & <land>", Description: proto.String("Ship it"), Color: "#6366F1",
		Status: "active", TeamId: proto.String("ckx2t0e1a0000qzrmteamaaaa1"),
	}
	sparseProject := &switchboardv1.ProfileProject{Id: "ckx2p0r2b0001qzrmprojectb2", Name: "Archive", Color: "#000000", Status: "closed"}
	capability := &switchboardv1.ProviderCapability{
		Id: "ckx5f0a1b0000qzrmcapa00001", TaskType: "technical", Skills: []string{"Go"}, Description: "Backend <reviews>",
		PricingModel: proto.String("hourly"), Price: proto.Float64(120), Currency: proto.String("EUR"), Unit: proto.String("hour"),
		TurnaroundDays: proto.Int32(3), MaxConcurrent: proto.Int32(2), SampleWorkUrl: proto.String("https://example.com/work"),
		Requirements: proto.String("A repo link"), CreatedAt: tsCreated,
	}
	return []fixture{
		single("GetProfileResponse", "full", &switchboardv1.GetProfileResponse{
			Id: "ckx2u0s1a0000qzrmuseraaaa1", Name: "Ann \"Night\" Lee", Username: "ann",
			Avatar: proto.String("https://cdn.example.com/ann.png"), Bio: "Runs the <night> shift & more",
			Capabilities: []*switchboardv1.ProviderCapability{capability},
			Reputation: &switchboardv1.UserReputation{
				TaskEconomyRole: "both", ReputationScore: 67.5, AvgRating: proto.Float64(4.5), AvgProviderRating: proto.Float64(4.5),
				AvgClientRating: proto.Float64(4), ReviewsReceived: 4, ReviewsGiven: 1,
				UpdatedAt: timestamppb.New(time.Date(2025, 5, 8, 9, 0, 0, 0, time.UTC)),
			},
			Teams:    []*switchboardv1.ProfileTeam{sparseTeam},
			Projects: []*switchboardv1.ProfileProject{project, sparseProject},
		}),
		// A new account: no bio, capability, reputation, team or project.
		single("GetProfileResponse", "sparse", &switchboardv1.GetProfileResponse{
			Id: "ckx2u0s2b0001qzrmuserbbbb2", Name: "Bob", Username: "bob",
			Capabilities: []*switchboardv1.ProviderCapability{}, Teams: []*switchboardv1.ProfileTeam{},
			Projects: []*switchboardv1.ProfileProject{},
		}),
		single("GetTeamProfileResponse", "full", &switchboardv1.GetTeamProfileResponse{
			Team: team, MemberCount: 3, Projects: []*switchboardv1.ProfileProject{project},
		}),
		single("GetTeamProfileResponse", "sparse", &switchboardv1.GetTeamProfileResponse{
			Team: sparseTeam, MemberCount: 1, Projects: []*switchboardv1.ProfileProject{},
		}),
	}
}
