package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, federationPlatformFixtures) }

// federationPlatformFixtures cover validate-payment, prompt-groups and
// discover (RULINGS "Federation: instances and the platform").
func federationPlatformFixtures() []fixture {
	created := timestamppb.New(time.Date(2025, 6, 2, 10, 30, 0, 0, time.UTC))
	counts := &switchboardv1.DiscoverCounts{Installs: 12, Subscribers: 4, Executions: 230}
	fullAgent := &switchboardv1.DiscoverAgent{
		Id: "ckx5f0a1b0000qzrmagentaa1", Name: "Summarizer \"pro\"", Slug: "summarizer-pro",
		Description: proto.String("Summarizes <long> documents — in any language"), DeveloperName: proto.String("Ada"),
		Category: proto.String("research"), PricingModel: "per_task", PricePerTask: 0.1, Currency: "USD",
		TaskTypes: []string{"summarize", "translate"}, SupportsA2A: true, SupportsMcp: true, Version: "2.1.0",
		Availability: "available", RatingAvg: 4.5, RatingCount: 18, Origin: "synced", CreatedAt: created,
		InstanceUrl: proto.String("https://sb.ada.example"), Counts: counts,
	}
	sparseAgent := &switchboardv1.DiscoverAgent{
		Id: "ckx5f0a1b0000qzrmagentaa2", Name: "bare", Slug: "bare", PricingModel: "free", Currency: "USD",
		TaskTypes: []string{}, Version: "1.0.0", Availability: "maintenance", Origin: "local", CreatedAt: created,
	}
	return []fixture{
		single("BrowseFederationResponse", "full", &switchboardv1.BrowseFederationResponse{
			Agents: []*switchboardv1.DiscoverAgent{
				func() *switchboardv1.DiscoverAgent {
					a := proto.CloneOf(fullAgent)
					a.InstanceUrl, a.Counts = nil, nil
					return a
				}(), sparseAgent},
			Pagination: &switchboardv1.Pagination{Total: 3, Limit: 2, HasMore: true}}),
		single("BrowseFederationResponse", "sparse", &switchboardv1.BrowseFederationResponse{
			Pagination: &switchboardv1.Pagination{Limit: 50}}),
		single("ValidatePaymentResponse", "full", &switchboardv1.ValidatePaymentResponse{
			Valid: true, TransactionType: "marketplace", GrossAmount: 19.99, ProposedFeePercent: 20, FloorPercent: 15,
			EnforcedFeePercent: 20, PlatformFee: 4, DeveloperPayout: 15.99,
			Reason: "the proposed fee of 20% meets the 15% floor for marketplace",
		}),
		single("ValidatePaymentResponse", "below_floor", &switchboardv1.ValidatePaymentResponse{
			TransactionType: "recruiting", GrossAmount: 100, ProposedFeePercent: 9.99, FloorPercent: 10,
			EnforcedFeePercent: 10, PlatformFee: 10, DeveloperPayout: 90,
			Reason: "the proposed fee of 9.99% is below the 10% floor for recruiting; 10% is enforced",
		}),
		single("ListPromptGroupsResponse", "full", &switchboardv1.ListPromptGroupsResponse{
			Version: "1.0.0", TotalGroups: 2,
			Groups: []*switchboardv1.PromptGroupInfo{
				{Index: 0, Name: "core", AlwaysLoaded: true, SignalPatterns: []string{`\bhelp\b`}, Description: "who the assistant is"},
				{Index: 1, Name: "queue", SignalPatterns: []string{`\bqueue\b`, `\btasks?\b`}, Description: "the work queue"},
			},
			Scoring: &switchboardv1.PromptGroupScoring{Description: "a group loads when …", CaseInsensitive: true,
				LastTurns: 3, CharsPerToken: 4, TokenEstimate: "ceil(characters / 4)"},
			CapabilityModuleSpec: &switchboardv1.PromptModuleSpec{Fields: []*switchboardv1.PromptModuleField{
				{Name: "name", Type: "string", Required: true, Description: "the module's name"},
				{Name: "alwaysLoad", Type: "boolean", Description: "load without a match"},
			}},
			DynamicModules: []*switchboardv1.PromptModuleInfo{
				{Name: "crm-notes", PromptGroup: "contacts", SignalPatterns: []string{"crm"}, TokenEstimate: 120, AlwaysLoad: true},
			},
		}),
		single("ListPromptGroupsResponse", "sparse", &switchboardv1.ListPromptGroupsResponse{}),
		single("DiscoverNetworkResponse", "platform", &switchboardv1.DiscoverNetworkResponse{
			Type: "all",
			Profiles: []*switchboardv1.DiscoverProfile{{
				Id: "ckx5f0a1b0000qzrmuseraaa1", Username: "ada", Name: "Ada Lovelace", Avatar: proto.String("https://img.example/ada.png"),
				InstanceUrl: proto.String("https://hub.example"), Counts: &switchboardv1.DiscoverCounts{Agents: 2},
			}},
			Teams: []*switchboardv1.DiscoverTeam{{
				Id: "ckx2t0e1a0000qzrmteamaaaa1", Name: "Ops \"Night\" <crew>", Handle: "ops-night-crew",
				AvatarUrl: proto.String("https://cdn.example.com/ops.png"), Description: proto.String("Who keeps the lights on"),
				InstanceUrl: proto.String("https://hub.example"),
			}},
			Agents: []*switchboardv1.DiscoverAgent{fullAgent, sparseAgent},
			Totals: &switchboardv1.DiscoverTotals{Profiles: 1, Teams: 1, Agents: 2}, Limit: 50, Authenticated: true,
			InstanceUrl: proto.String("https://hub.example"),
			Network:     &switchboardv1.NetworkStats{Instances: 4, Users: 57, Agents: 19},
		}),
		single("DiscoverNetworkResponse", "teams", &switchboardv1.DiscoverNetworkResponse{
			Type: "teams", Profiles: []*switchboardv1.DiscoverProfile{}, Agents: []*switchboardv1.DiscoverAgent{},
			Teams:  []*switchboardv1.DiscoverTeam{{Id: "ckx2t0e2b0001qzrmteamaaaa2", Name: "Core", Handle: "core"}},
			Totals: &switchboardv1.DiscoverTotals{Teams: 2}, Limit: 1, Offset: 1,
		}),
		single("DiscoverNetworkResponse", "public", &switchboardv1.DiscoverNetworkResponse{
			Type: "agents", Profiles: []*switchboardv1.DiscoverProfile{}, Teams: []*switchboardv1.DiscoverTeam{},
			Agents: []*switchboardv1.DiscoverAgent{sparseAgent},
			Totals: &switchboardv1.DiscoverTotals{Agents: 3}, Limit: 1, Offset: 2,
		}),
		single("DiscoverNetworkResponse", "sparse", &switchboardv1.DiscoverNetworkResponse{}),
	}
}
