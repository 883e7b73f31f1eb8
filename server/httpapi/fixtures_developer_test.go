package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, developerFixtures) }

var tsTokenExpires = timestamppb.New(time.Date(2025, 1, 3, 3, 4, 5, 0, time.UTC))

func fullConnectToken() *switchboardv1.ConnectToken {
	return &switchboardv1.ConnectToken{
		Token: "fct_3k2xq4f7m1c9rj5w8nq0z6ybhdtvgsp2aeu4lmo7ixkcr3fn1wzq", Purpose: "agent",
		ExpiresAt: tsTokenExpires, RegisterUrl: "https://sb.example.com/api/developer/agents/register",
	}
}

func fullDeveloperKey() *switchboardv1.DeveloperKey {
	return &switchboardv1.DeveloperKey{Id: "ckx5d0a1b0000qzrmdevkey01", Label: "CI", Prefix: "sbd_3k2xq4f7",
		Active: true, CreatedAt: tsCreated, LastUsedAt: tsUsed}
}

func sparseDeveloperKey() *switchboardv1.DeveloperKey {
	return &switchboardv1.DeveloperKey{Id: "ckx5d0a1b0000qzrmdevkey02", Label: "old", Prefix: "sbd_m1c9rj5w", CreatedAt: tsCreated}
}

func fullShipGateRun() *switchboardv1.ShipGateRun {
	return &switchboardv1.ShipGateRun{Id: "ckx5d0a1b0000qzrmshiprun1", AgentId: "ckx3a0a1b0000qzrmstagent1",
		Trigger: "test_run", Task: "Ship-gate conformance check for \"Scout\": reply to this test task with a short confirmation.",
		Passed: false, Hint: proto.String("the endpoint answered HTTP 500; a conforming agent answers 2xx"),
		HttpStatus: proto.Int32(500), ResponseTimeMs: 42, CreatedAt: tsCreated}
}

func sparseShipGateRun() *switchboardv1.ShipGateRun {
	return &switchboardv1.ShipGateRun{Id: "ckx5d0a1b0000qzrmshiprun2", AgentId: "ckx3a0a1b0000qzrmstagent1",
		Trigger: "registration", Task: "t", Passed: true, CreatedAt: tsCreated}
}

func fullWidgetRecommendations() *switchboardv1.WidgetRecommendations {
	return &switchboardv1.WidgetRecommendations{
		Summary: "1 of 3 recommended widget types are declared (score 33); add info_card, payment_prompt.",
		WidgetOpportunities: []*switchboardv1.WidgetOpportunity{{Type: "payment_prompt", Reason: "a paid agent must let the requester see and approve the price",
			Impact: "high", Example: `{"type":"payment_prompt"}`, ImplementationHint: "answer a price_quote"}},
		SuggestedFlow: "info_card -> choice_card -> payment_prompt",
		CurrentGaps:   []string{"payment_prompt is not declared"},
		DeclaredTypes: []string{"choice_card"}, RecommendedTypes: []string{"info_card", "choice_card", "payment_prompt"},
	}
}

func sparseWidgetRecommendations() *switchboardv1.WidgetRecommendations {
	return &switchboardv1.WidgetRecommendations{Summary: "All 1 recommended widget types are declared (score 100).",
		WidgetOpportunities: []*switchboardv1.WidgetOpportunity{}, SuggestedFlow: "info_card", CurrentGaps: []string{},
		DeclaredTypes: []string{"info_card"}, RecommendedTypes: []string{"info_card"}}
}

func pendingAgent() *switchboardv1.StoreAgent {
	a := ownSparseStoreAgent()
	a.Status = "pending"
	return a
}

func developerFixtures() []fixture {
	return []fixture{
		single("DeveloperSignupResponse", "full", &switchboardv1.DeveloperSignupResponse{Account: sparseUser(), Created: true, AgentToken: fullConnectToken()}),
		single("DeveloperSignupResponse", "sparse", &switchboardv1.DeveloperSignupResponse{Account: sparseUser(), Created: true}),
		single("CreateDeveloperKeyResponse", "full", &switchboardv1.CreateDeveloperKeyResponse{Key: sparseDeveloperKey(),
			DeveloperKey: "sbd_3k2xq4f7m1c9rj5w8nq0z6ybhdtvgsp2aeu4lmo7ixkcr3fn1wzq"}),
		single("ListDeveloperKeysResponse", "full", &switchboardv1.ListDeveloperKeysResponse{Keys: []*switchboardv1.DeveloperKey{fullDeveloperKey(), sparseDeveloperKey()}}),
		single("ListDeveloperKeysResponse", "sparse", &switchboardv1.ListDeveloperKeysResponse{Keys: []*switchboardv1.DeveloperKey{}}),
		single("CreateConnectTokenResponse", "full", &switchboardv1.CreateConnectTokenResponse{Token: fullConnectToken()}),
		single("RegisterDeveloperAgentResponse", "full", &switchboardv1.RegisterDeveloperAgentResponse{
			Agent:                 pendingAgent(),
			EndpointProbe:         &switchboardv1.EndpointProbe{Conforms: false, Hint: proto.String("the endpoint answered HTTP 500; a conforming agent answers 2xx")},
			HealthCheck:           &switchboardv1.HealthCheck{Status: "checked", HttpStatus: proto.Int32(200)},
			ShipGateRun:           fullShipGateRun(),
			WidgetAnalysis:        &switchboardv1.WidgetAnalysis{ComplianceScore: 33, DeclaredTypes: []string{"choice_card"}, RecommendedTypes: []string{"info_card", "choice_card", "payment_prompt"}, MissingTypes: []string{"info_card", "payment_prompt"}},
			WidgetRecommendations: fullWidgetRecommendations(),
			SelfConfigToken:       "sbc_m1c9rj5w8nq0z6ybhdtvgsp2aeu4lmo7ixkcr3fn1wzq3k2xq4f7",
		}),
		single("RegisterDeveloperAgentResponse", "sparse", &switchboardv1.RegisterDeveloperAgentResponse{
			Agent:                 pendingAgent(),
			EndpointProbe:         &switchboardv1.EndpointProbe{Conforms: true},
			HealthCheck:           &switchboardv1.HealthCheck{Status: "skipped"},
			ShipGateRun:           sparseShipGateRun(),
			WidgetAnalysis:        &switchboardv1.WidgetAnalysis{ComplianceScore: 100, DeclaredTypes: []string{"info_card"}, RecommendedTypes: []string{"info_card"}, MissingTypes: []string{}},
			WidgetRecommendations: sparseWidgetRecommendations(),
			SelfConfigToken:       "sbc_m1c9rj5w8nq0z6ybhdtvgsp2aeu4lmo7ixkcr3fn1wzq3k2xq4f7",
		}),
		single("UpdateDeveloperAgentResponse", "full", &switchboardv1.UpdateDeveloperAgentResponse{Agent: pendingAgent(),
			Change: fullChange(), ReviewRequired: true, WidgetRecommendations: fullWidgetRecommendations()}),
		single("UpdateDeveloperAgentResponse", "sparse", &switchboardv1.UpdateDeveloperAgentResponse{Agent: ownSparseStoreAgent(),
			WidgetRecommendations: sparseWidgetRecommendations()}),
		single("RunDeveloperAgentTestResponse", "full", &switchboardv1.RunDeveloperAgentTestResponse{
			EndpointProbe: &switchboardv1.EndpointProbe{Hint: proto.String("the endpoint answered HTTP 500; a conforming agent answers 2xx")}, ShipGateRun: fullShipGateRun()}),
		single("RunDeveloperAgentTestResponse", "sparse", &switchboardv1.RunDeveloperAgentTestResponse{
			EndpointProbe: &switchboardv1.EndpointProbe{Conforms: true}, ShipGateRun: sparseShipGateRun()}),
		single("ApproveStoreAgentResponse", "full", &switchboardv1.ApproveStoreAgentResponse{Agent: ownSparseStoreAgent()}),
		single("ApproveStoreAgentResponse", "capability", &switchboardv1.ApproveStoreAgentResponse{
			Capability: &switchboardv1.MarketplaceReview{Kind: "capability", Id: "ckx3a0a1b0000qzrmcapabil1", Name: "CRM notes",
				Slug: proto.String("crm-notes"), Status: "active", Origin: "synced", InstanceId: proto.String("ckx5f0a1b0000qzrminstanc1"),
				InstanceName: proto.String("Ada's lab"), RemoteId: proto.String("cmwxt94bh002mli7djqaibtbh"),
				CreatedAt: tsTokenExpires, UpdatedAt: tsTokenExpires}}),
		single("ListMarketplaceReviewsResponse", "full", &switchboardv1.ListMarketplaceReviewsResponse{
			Items: []*switchboardv1.MarketplaceReview{
				{Kind: "agent", Id: "ckx3a0a1b0000qzrmstagent1", Name: "Writer \"pro\"", Slug: proto.String("writer"),
					Status: "pending_review", Origin: "synced", InstanceId: proto.String("ckx5f0a1b0000qzrminstanc1"),
					InstanceName: proto.String("Ada's lab"), RemoteId: proto.String("cmwxt94bh002mli7djqaibtbg"),
					CreatedAt: tsTokenExpires, UpdatedAt: tsTokenExpires},
				{Kind: "capability", Id: "ckx3a0a1b0000qzrmcapabil1", Name: "CRM notes", Status: "pending_review",
					Origin: "local", CreatedAt: tsTokenExpires, UpdatedAt: tsTokenExpires},
			},
			Pagination: &switchboardv1.Pagination{Total: 2, Limit: 50}}),
		single("ListMarketplaceReviewsResponse", "sparse", &switchboardv1.ListMarketplaceReviewsResponse{
			Pagination: &switchboardv1.Pagination{Limit: 50}}),
		single("RejectStoreAgentResponse", "full", &switchboardv1.RejectStoreAgentResponse{Agent: func() *switchboardv1.StoreAgent {
			a := ownSparseStoreAgent()
			a.Status = "rejected"
			return a
		}()}),
		single("DisableStoreAgentResponse", "full", &switchboardv1.DisableStoreAgentResponse{Agent: func() *switchboardv1.StoreAgent {
			a := ownSparseStoreAgent()
			a.Status = "disabled"
			return a
		}()}),
	}
}
