package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, storeFixtures) }

var (
	tsAgentChanged = timestamppb.New(time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC))
	tsExecQueued   = timestamppb.New(time.Date(2025, 5, 7, 12, 0, 0, 0, time.UTC))
	tsExecDone     = timestamppb.New(time.Date(2025, 5, 7, 12, 0, 1, 500_000_000, time.UTC))
	tsReviewShown  = timestamppb.New(time.Date(2025, 5, 7, 12, 1, 0, 0, time.UTC))
	tsHoldExpires  = timestamppb.New(time.Date(2025, 5, 9, 12, 1, 0, 0, time.UTC))
)

// fullStoreAgent is a listing as its owner sees it, every field set: typed
// pricing with tiers and a dynamic range, commands with and without optional
// parts, the lock held, a credential stored (only the flag shows).
func fullStoreAgent() *switchboardv1.StoreAgent {
	return &switchboardv1.StoreAgent{
		Id:            "ckx3a0a1b0000qzrmstagent1",
		UserId:        "ckx1f0a9z0000qzrmn831i7rn",
		Name:          "Research Scout",
		Slug:          "research-scout",
		Description:   proto.String("Finds and summarises \"primary\" sources.\nCites each one."),
		EndpointUrl:   proto.String("https://agents.example.com/scout"),
		DeveloperName: proto.String("Ada Labs"),
		Category:      proto.String("research"),
		PricingModel:  "tiered",
		PricePerTask:  2.5,
		Currency:      "EUR",
		PricingConfig: &switchboardv1.PricingConfig{
			Model: proto.String("tiered"),
			Tiers: []*switchboardv1.PricingTier{
				{Name: "Starter", PricePerTask: 2.5, TaskLimit: proto.Int32(10), Description: proto.String("First ten tasks")},
				{Name: "Volume", PricePerTask: 1.75},
			},
			DynamicConfig: &switchboardv1.DynamicPricing{EstimateRange: []float64{1, 12.5}, RequiresApproval: true,
				Description: proto.String("Quoted per report")},
		},
		InstallGuide: proto.String("# Install\nClick **install**."),
		Commands: []*switchboardv1.AgentCommand{
			{Name: "/scout", Description: proto.String("Search the web"), Usage: proto.String("/scout <topic>")},
			{Name: "/cite"},
		},
		TaskTypes:           []string{"research", "summary"},
		ContextInstructions: proto.String("Cite every source."),
		SupportsA2A:         true,
		SupportsMcp:         true,
		Version:             "2.1.0",
		HasAccessPassword:   true,
		InputFormat:         "a2a",
		OutputFormat:        proto.String("markdown"),
		AuthMethod:          "hmac",
		AuthCredentialSet:   proto.Bool(true),
		HealthCheckUrl:      proto.String("https://agents.example.com/scout/health"),
		DeclaredWidgetTypes: []string{"info_card", "payment_prompt"},
		Availability:        "available",
		CurrentExecutionId:  proto.String("ckx3e0x1a0000qzrmexecut01"),
		ExecutionTimeout:    600,
		RequiredInputSchema: proto.String(`{"type":"object","required":["topic"]}`),
		OutputSchema:        proto.String(`{"type":"object"}`),
		UsageExamples:       proto.String("Scout the 2024 battery market"),
		ContextPreparation:  proto.String("Gather the topic and the deadline."),
		ExecutionNotes:      proto.String("Takes about a minute."),
		Status:              "active",
		RatingAvg:           4.5,
		RatingCount:         12,
		InstallCount:        30,
		SubscriberCount:     7,
		ExecutionCount:      128,
		Installed:           true,
		Subscribed:          true,
		Unlocked:            true,
		HubStatus:           proto.String("active"),
		MarketplaceId:       proto.String("ckx9h0a1b0000qzrmhubagent1"),
		CreatedAt:           tsCreated,
		UpdatedAt:           tsAgentChanged,
	}
}

// sparseStoreAgent is another account's new listing as the store shows it:
// defaults, empty lists, and no owner-only fields.
func sparseStoreAgent() *switchboardv1.StoreAgent {
	return &switchboardv1.StoreAgent{
		Id: "ckx3a0b2c0001qzrmstagent2", UserId: "ckx1f0b3k0001qzrm4q2w8e5t", Name: "Bare", Slug: "bare",
		PricingModel: "free", Currency: "USD", Commands: []*switchboardv1.AgentCommand{}, TaskTypes: []string{},
		Version: "1.0.0", InputFormat: "text", AuthMethod: "none", DeclaredWidgetTypes: []string{},
		Availability: "available", ExecutionTimeout: 1800, Status: "active", CreatedAt: tsCreated, UpdatedAt: tsCreated,
	}
}

// ownSparseStoreAgent is the owner's view of a new listing: the owner-only
// flag is present (false), the rest as sparse.
func ownSparseStoreAgent() *switchboardv1.StoreAgent {
	a := sparseStoreAgent()
	a.UserId = "ckx1f0a9z0000qzrmn831i7rn"
	a.EndpointUrl = proto.String("https://agents.example.com/bare")
	a.AuthCredentialSet = proto.Bool(false)
	return a
}

func fullChange() *switchboardv1.ChangelogEntry {
	return &switchboardv1.ChangelogEntry{Version: "3.0.0", Notes: proto.String("New host"), Breaking: true,
		Fields: []string{"description", "endpointUrl"}, CreatedAt: tsAgentChanged}
}

func sparseChange() *switchboardv1.ChangelogEntry {
	return &switchboardv1.ChangelogEntry{Version: "2.1.1", Fields: []string{"usageExamples"}, CreatedAt: tsUsed}
}

// fullExecution is a paid, reviewed execution with every field set.
func fullExecution() *switchboardv1.StoreExecution {
	return &switchboardv1.StoreExecution{
		ExecutionId: "ckx3e0x1a0000qzrmexecut01", AgentId: "ckx3a0a1b0000qzrmstagent1", Status: "completed",
		Input: "Scout the battery market", Output: proto.String("Three sources:\n1. …"), ResponseTimeMs: proto.Int32(1500),
		TaskOrigin: "marketplace", RequesterEmail: proto.String("ada@example.com"), RequesterName: proto.String("Ada Lovelace"),
		QueuePosition: proto.Int32(2), QueuedAt: tsExecQueued, ReviewStatus: proto.String("denied"),
		DenialReason: proto.String("Off topic"), DenialCategory: proto.String("quality"), ReviewedAt: tsExecDone,
		ReviewWidgetShownAt: tsReviewShown, PaymentHoldStatus: "released", HoldExpiresAt: tsHoldExpires,
		Rating: proto.Int32(2), Feedback: proto.String("Missed the point"),
		Revenue:   &switchboardv1.StoreRevenue{Gross: 2.5, DeveloperPayout: 2.125, PlatformFee: 0.375, FeePercent: 15, Currency: "EUR"},
		CreatedAt: tsExecQueued, FinishedAt: tsExecDone,
	}
}

// sparseExecution is a free execution of one's own agent, just completed.
func sparseExecution() *switchboardv1.StoreExecution {
	return &switchboardv1.StoreExecution{
		ExecutionId: "ckx3e0y2b0001qzrmexecut02", AgentId: "ckx3a0b2c0001qzrmstagent2", Status: "completed",
		Input: "Hello", IsOwnAgent: true, TaskOrigin: "owner", PaymentHoldStatus: "none", CreatedAt: tsCreated,
	}
}

// storeFixtures cover StoreService.
func storeFixtures() []fixture {
	return []fixture{
		single("UnlockStoreAgentResponse", "full", &switchboardv1.UnlockStoreAgentResponse{
			AgentId: "ckx3a0a1b0000qzrmstagent1", Slug: "research-scout", Unlocked: true, UnlockedAt: tsAgentChanged,
		}),
		single("ListStoreAgentsResponse", "full", &switchboardv1.ListStoreAgentsResponse{
			Agents: func() []*switchboardv1.StoreAgent {
				local, global := fullStoreAgent(), sparseStoreAgent()
				local.Origin, global.Origin = proto.String("local"), proto.String("global")
				return []*switchboardv1.StoreAgent{local, global}
			}(),
			Pagination: &switchboardv1.Pagination{Total: 9, Limit: 2, Offset: 2, HasMore: true},
			Scope:      "all",
			Note:       proto.String("the hub could not be reached: showing this instance's store only"),
			HubJoined:  true,
		}),
		single("ListStoreAgentsResponse", "sparse", &switchboardv1.ListStoreAgentsResponse{
			Agents: []*switchboardv1.StoreAgent{}, Pagination: &switchboardv1.Pagination{Limit: 50}, Scope: "local",
		}),
		single("CreateStoreAgentResponse", "full", &switchboardv1.CreateStoreAgentResponse{Agent: func() *switchboardv1.StoreAgent {
			a := fullStoreAgent()
			a.CurrentExecutionId, a.Installed, a.Subscribed = nil, false, false
			a.RatingAvg, a.RatingCount, a.InstallCount, a.SubscriberCount, a.ExecutionCount = 0, 0, 0, 0, 0
			a.UpdatedAt = tsCreated
			return a
		}()}),
		single("CreateStoreAgentResponse", "sparse", &switchboardv1.CreateStoreAgentResponse{Agent: ownSparseStoreAgent()}),
		single("GetStoreAgentResponse", "full", &switchboardv1.GetStoreAgentResponse{
			Agent: fullStoreAgent(),
			Stats: &switchboardv1.StoreAgentStats{ExecutionCount: 128, CompletedCount: 120, FailedCount: 5, TimeoutCount: 2,
				QueuedCount: 1, AvgResponseTimeMs: proto.Int32(1834)},
			Changelog:  []*switchboardv1.ChangelogEntry{fullChange(), sparseChange()},
			Executions: []*switchboardv1.StoreExecution{fullExecution(), sparseExecution()},
		}),
		single("GetStoreAgentResponse", "sparse", &switchboardv1.GetStoreAgentResponse{
			Agent: sparseStoreAgent(), Stats: &switchboardv1.StoreAgentStats{},
			Changelog: []*switchboardv1.ChangelogEntry{}, Executions: []*switchboardv1.StoreExecution{},
		}),
		single("UpdateStoreAgentResponse", "full", &switchboardv1.UpdateStoreAgentResponse{Agent: func() *switchboardv1.StoreAgent {
			a := fullStoreAgent()
			a.Version, a.Status = "3.0.0", "pending_review"
			return a
		}(), Change: fullChange()}),
		single("UpdateStoreAgentResponse", "unchanged", &switchboardv1.UpdateStoreAgentResponse{Agent: ownSparseStoreAgent()}),
		single("DeleteStoreAgentResponse", "full", &switchboardv1.DeleteStoreAgentResponse{Agent: func() *switchboardv1.StoreAgent {
			a := fullStoreAgent()
			a.CurrentExecutionId, a.Installed, a.Subscribed = nil, false, false
			return a
		}()}),
		single("DeleteStoreAgentResponse", "sparse", &switchboardv1.DeleteStoreAgentResponse{Agent: ownSparseStoreAgent()}),
		single("SubscribeStoreAgentResponse", "sparse", &switchboardv1.SubscribeStoreAgentResponse{Agent: func() *switchboardv1.StoreAgent {
			a := sparseStoreAgent()
			a.Subscribed, a.SubscriberCount = true, 1
			return a
		}()}),
		single("UnsubscribeStoreAgentResponse", "sparse", &switchboardv1.UnsubscribeStoreAgentResponse{Agent: sparseStoreAgent()}),
		single("InstallStoreAgentResponse", "full", &switchboardv1.InstallStoreAgentResponse{
			Agent: fullStoreAgent(),
			MemoryEntries: []*switchboardv1.MemoryEntry{
				{Id: "ckx3m0a1a0000qzrmmemory01", Kind: "overview", Title: "Research Scout",
					Content: "Research Scout (@research-scout) is an installed store agent.\nFinds sources.\nInput format: a2a.", CreatedAt: tsUsed},
				{Id: "ckx3m0b2b0001qzrmmemory02", Kind: "task_types", Title: "Research Scout: task types",
					Content: "research, summary", CreatedAt: tsUsed},
			},
		}),
		single("InstallStoreAgentResponse", "sparse", &switchboardv1.InstallStoreAgentResponse{
			Agent: func() *switchboardv1.StoreAgent {
				a := sparseStoreAgent()
				a.Installed, a.InstallCount = true, 1
				return a
			}(),
			MemoryEntries: []*switchboardv1.MemoryEntry{{Id: "ckx3m0c3c0002qzrmmemory03", Kind: "overview", Title: "Bare",
				Content: "Bare (@bare) is an installed store agent.\nInput format: text.", CreatedAt: tsUsed}},
		}),
		single("UninstallStoreAgentResponse", "full", &switchboardv1.UninstallStoreAgentResponse{Agent: sparseStoreAgent(), RemovedMemoryEntries: 8}),
		single("RateStoreExecutionResponse", "full", &switchboardv1.RateStoreExecutionResponse{Execution: fullExecution(), Agent: fullStoreAgent()}),
		single("RateStoreExecutionResponse", "sparse", &switchboardv1.RateStoreExecutionResponse{
			Execution: func() *switchboardv1.StoreExecution {
				e := sparseExecution()
				e.IsOwnAgent, e.TaskOrigin, e.Rating = false, "marketplace", proto.Int32(5)
				return e
			}(),
			Agent: func() *switchboardv1.StoreAgent {
				a := sparseStoreAgent()
				a.RatingAvg, a.RatingCount = 5, 1
				return a
			}(),
		}),
		single("GetStoreEarningsResponse", "full", &switchboardv1.GetStoreEarningsResponse{
			Totals: []*switchboardv1.EarningsTotal{
				{Currency: "EUR", Gross: 2, DeveloperPayout: 1.7, PlatformFee: 0.3, PaidExecutionCount: 1},
				{Currency: "USD", Gross: 10.6, DeveloperPayout: 9.01, PlatformFee: 1.59, PendingPayout: 17, PaidExecutionCount: 3},
			},
			Agents: []*switchboardv1.AgentEarnings{
				{AgentId: "ckx3a0a1b0000qzrmstagent1", Name: "Research Scout", Slug: "research-scout", Currency: "USD",
					Gross: 10.6, DeveloperPayout: 9.01, PlatformFee: 1.59, PendingPayout: 17, PaidExecutionCount: 3},
			},
		}),
		single("GetStoreEarningsResponse", "sparse", &switchboardv1.GetStoreEarningsResponse{
			Totals: []*switchboardv1.EarningsTotal{}, Agents: []*switchboardv1.AgentEarnings{},
		}),
		single("GetStoreFeeInfoResponse", "full", &switchboardv1.GetStoreFeeInfoResponse{
			StoreFeePercent: 15, RecruitingFeePercent: 10, DeveloperSharePercent: 85, Currency: "USD", ReviewWindowHours: 48,
			PricingModels: []string{"free", "per_task", "tiered", "dynamic", "subscription"},
		}),
	}
}
