package httpapi

import (
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, developerPortalFixtures) }

func fullDeveloperAccount() *switchboardv1.DeveloperAccount {
	return &switchboardv1.DeveloperAccount{Id: "ckx1u0a1b0000qzrmuserann1", Username: "ann", Name: "Ann \"the dev\"",
		ContactEmail: "ann@example.com", CreatedAt: tsCreated}
}

func fullTokenInfo() *switchboardv1.ConnectTokenInfo {
	return &switchboardv1.ConnectTokenInfo{Id: "ckx5d0a1b0000qzrmcontok01", Purpose: "agent", Prefix: "fct_3k2xq4f7",
		CreatedAt: tsCreated, ExpiresAt: tsTokenExpires, UsedAt: tsUsed, AgentId: proto.String("ckx3a0a1b0000qzrmstagent1")}
}

func sparseTokenInfo() *switchboardv1.ConnectTokenInfo {
	return &switchboardv1.ConnectTokenInfo{Id: "ckx5d0a1b0000qzrmcontok02", Purpose: "instance", Prefix: "fct_m1c9rj5w",
		CreatedAt: tsCreated, ExpiresAt: tsTokenExpires, Active: true}
}

func fullDevTeamMember() *switchboardv1.DeveloperTeamMember {
	return &switchboardv1.DeveloperTeamMember{UserId: "ckx1u0a1b0000qzrmuserbob1", Username: "bob", Name: "Bob", Email: "bob@example.com", AddedAt: tsCreated}
}

func fullPortalAgent() *switchboardv1.PortalAgent {
	return &switchboardv1.PortalAgent{Agent: pendingAgent(), OwnerUsername: "ann", Access: "member", LastRun: fullShipGateRun()}
}

func sparsePortalAgent() *switchboardv1.PortalAgent {
	return &switchboardv1.PortalAgent{Agent: ownSparseStoreAgent(), OwnerUsername: "ann", Access: "owner"}
}

func fullWidget() *switchboardv1.AgentWidgetData {
	return &switchboardv1.AgentWidgetData{Type: "choice_card", Title: "Pick a variation", Subtitle: proto.String("Two drafts"),
		Layout: proto.String("grid"), Items: []*switchboardv1.AgentWidgetItem{
			{Id: "a", Label: "Variation A", Description: proto.String("Shorter"), Actions: []string{"select"}},
			{Id: "b", Label: "Variation B", Actions: []string{"select"}},
		}}
}

func fullWidgetTemplate() *switchboardv1.WidgetTemplate {
	return &switchboardv1.WidgetTemplate{Id: "ckx5d0a1b0000qzrmwidtpl01", Name: "Variations", Widget: fullWidget(), CreatedAt: tsCreated, UpdatedAt: tsUsed}
}

func sparseWidgetTemplate() *switchboardv1.WidgetTemplate {
	return &switchboardv1.WidgetTemplate{Id: "ckx5d0a1b0000qzrmwidtpl02", Name: "Summary", CreatedAt: tsCreated, UpdatedAt: tsCreated,
		Widget: &switchboardv1.AgentWidgetData{Type: "info_card", Title: "Summary", Items: []*switchboardv1.AgentWidgetItem{{Id: "1", Label: "Finding"}}}}
}

func fullPortalExecution() *switchboardv1.PortalExecution {
	return &switchboardv1.PortalExecution{Id: "ckx4e0a1b0000qzrmexecut01", Status: "completed", TaskOrigin: "marketplace",
		ResponseTimeMs: proto.Int32(840), ReviewStatus: proto.String("confirmed"), Rating: proto.Int32(5), PaymentHoldStatus: "captured",
		GrossCents: proto.Int32(1000), FeeCents: proto.Int32(100), PayoutCents: proto.Int32(900), Currency: proto.String("USD"),
		CreatedAt: tsCreated, FinishedAt: tsUsed}
}

func sparsePortalExecution() *switchboardv1.PortalExecution {
	return &switchboardv1.PortalExecution{Id: "ckx4e0a1b0000qzrmexecut02", Status: "queued", TaskOrigin: "federation",
		PaymentHoldStatus: "none", CreatedAt: tsCreated}
}

func developerPortalFixtures() []fixture {
	page := &switchboardv1.Pagination{Total: 3, Limit: 2, HasMore: true}
	empty := &switchboardv1.Pagination{Limit: 50}
	return []fixture{
		single("GetDeveloperAccountResponse", "full", &switchboardv1.GetDeveloperAccountResponse{Account: fullDeveloperAccount()}),
		single("UpdateDeveloperAccountResponse", "full", &switchboardv1.UpdateDeveloperAccountResponse{Account: fullDeveloperAccount()}),
		single("DeleteDeveloperAccountResponse", "full", &switchboardv1.DeleteDeveloperAccountResponse{Account: fullDeveloperAccount(),
			Deleted: &switchboardv1.DeletedDeveloperRows{Agents: 2, DeveloperKeys: 1, ConnectTokens: 3, TeamMembers: 1, WidgetTemplates: 4, ExecutionsUnlinked: 7}}),
		single("DeleteDeveloperAccountResponse", "sparse", &switchboardv1.DeleteDeveloperAccountResponse{Account: fullDeveloperAccount(),
			Deleted: &switchboardv1.DeletedDeveloperRows{}}),
		single("RevokeDeveloperKeyResponse", "full", &switchboardv1.RevokeDeveloperKeyResponse{Key: sparseDeveloperKey()}),
		single("ListConnectTokensResponse", "full", &switchboardv1.ListConnectTokensResponse{Tokens: []*switchboardv1.ConnectTokenInfo{fullTokenInfo(), sparseTokenInfo()}}),
		single("ListConnectTokensResponse", "sparse", &switchboardv1.ListConnectTokensResponse{Tokens: []*switchboardv1.ConnectTokenInfo{}}),
		single("RevokeConnectTokenResponse", "full", &switchboardv1.RevokeConnectTokenResponse{Token: sparseTokenInfo()}),
		single("ListDeveloperTeamResponse", "full", &switchboardv1.ListDeveloperTeamResponse{
			Members:  []*switchboardv1.DeveloperTeamMember{fullDevTeamMember()},
			MemberOf: []*switchboardv1.DeveloperTeamOwner{{UserId: "ckx1u0a1b0000qzrmusercar1", Username: "cara", Name: "Cara", AddedAt: tsUsed}}}),
		single("ListDeveloperTeamResponse", "sparse", &switchboardv1.ListDeveloperTeamResponse{
			Members: []*switchboardv1.DeveloperTeamMember{}, MemberOf: []*switchboardv1.DeveloperTeamOwner{}}),
		single("AddDeveloperTeamMemberResponse", "full", &switchboardv1.AddDeveloperTeamMemberResponse{Member: fullDevTeamMember()}),
		single("RemoveDeveloperTeamMemberResponse", "full", &switchboardv1.RemoveDeveloperTeamMemberResponse{Member: fullDevTeamMember()}),
		single("ListDeveloperInstancesResponse", "full", &switchboardv1.ListDeveloperInstancesResponse{
			Instances: []*switchboardv1.FederationInstance{fullInstance(), sparseInstance()}}),
		single("ListDeveloperInstancesResponse", "sparse", &switchboardv1.ListDeveloperInstancesResponse{Instances: []*switchboardv1.FederationInstance{}}),
		single("ListPortalAgentsResponse", "full", &switchboardv1.ListPortalAgentsResponse{Agents: []*switchboardv1.PortalAgent{fullPortalAgent(), sparsePortalAgent()}}),
		single("ListPortalAgentsResponse", "sparse", &switchboardv1.ListPortalAgentsResponse{Agents: []*switchboardv1.PortalAgent{}}),
		single("GetPortalAgentResponse", "full", &switchboardv1.GetPortalAgentResponse{Agent: fullPortalAgent()}),
		single("GetPortalAgentResponse", "sparse", &switchboardv1.GetPortalAgentResponse{Agent: sparsePortalAgent()}),
		single("UpdatePortalAgentResponse", "full", &switchboardv1.UpdatePortalAgentResponse{Agent: fullPortalAgent(), Change: fullChange(),
			ReviewRequired: true, WidgetRecommendations: fullWidgetRecommendations()}),
		single("UpdatePortalAgentResponse", "sparse", &switchboardv1.UpdatePortalAgentResponse{Agent: sparsePortalAgent(),
			WidgetRecommendations: sparseWidgetRecommendations()}),
		single("DeletePortalAgentResponse", "full", &switchboardv1.DeletePortalAgentResponse{Agent: sparsePortalAgent(), ExecutionsUnlinked: 3}),
		single("ListPortalAgentTestRunsResponse", "full", &switchboardv1.ListPortalAgentTestRunsResponse{
			Runs: []*switchboardv1.ShipGateRun{fullShipGateRun(), sparseShipGateRun()}, Pagination: page}),
		single("ListPortalAgentTestRunsResponse", "sparse", &switchboardv1.ListPortalAgentTestRunsResponse{Pagination: empty}),
		single("RunPortalAgentTestResponse", "full", &switchboardv1.RunPortalAgentTestResponse{
			EndpointProbe: &switchboardv1.EndpointProbe{Hint: proto.String("the endpoint answered HTTP 500; a conforming agent answers 2xx")}, ShipGateRun: fullShipGateRun()}),
		single("RunPortalAgentTestResponse", "sparse", &switchboardv1.RunPortalAgentTestResponse{
			EndpointProbe: &switchboardv1.EndpointProbe{Conforms: true}, ShipGateRun: sparseShipGateRun()}),
		single("ListPortalAgentExecutionsResponse", "full", &switchboardv1.ListPortalAgentExecutionsResponse{
			Executions: []*switchboardv1.PortalExecution{fullPortalExecution(), sparsePortalExecution()}, Pagination: page}),
		single("ListPortalAgentExecutionsResponse", "sparse", &switchboardv1.ListPortalAgentExecutionsResponse{Pagination: empty}),
		single("GetPortalAgentEarningsResponse", "full", &switchboardv1.GetPortalAgentEarningsResponse{AgentId: "ckx3a0a1b0000qzrmstagent1",
			Totals: []*switchboardv1.PortalEarnings{
				{Currency: "EUR", EarningsCents: 700, FeesCents: 70, PayoutsCents: 630, PaidExecutions: 1},
				{Currency: "USD", EarningsCents: 3550, FeesCents: 355, PayoutsCents: 3195, PendingCents: 450, PaidExecutions: 2},
			}}),
		single("GetPortalAgentEarningsResponse", "sparse", &switchboardv1.GetPortalAgentEarningsResponse{AgentId: "ckx3a0a1b0000qzrmstagent1",
			Totals: []*switchboardv1.PortalEarnings{}}),
		single("ListWidgetTemplatesResponse", "full", &switchboardv1.ListWidgetTemplatesResponse{Templates: []*switchboardv1.WidgetTemplate{fullWidgetTemplate(), sparseWidgetTemplate()}}),
		single("ListWidgetTemplatesResponse", "sparse", &switchboardv1.ListWidgetTemplatesResponse{Templates: []*switchboardv1.WidgetTemplate{}}),
		single("CreateWidgetTemplateResponse", "full", &switchboardv1.CreateWidgetTemplateResponse{Template: fullWidgetTemplate()}),
		single("CreateWidgetTemplateResponse", "sparse", &switchboardv1.CreateWidgetTemplateResponse{Template: sparseWidgetTemplate()}),
		single("GetWidgetTemplateResponse", "full", &switchboardv1.GetWidgetTemplateResponse{Template: fullWidgetTemplate()}),
		single("ReplaceWidgetTemplateResponse", "full", &switchboardv1.ReplaceWidgetTemplateResponse{Template: sparseWidgetTemplate()}),
		single("DeleteWidgetTemplateResponse", "full", &switchboardv1.DeleteWidgetTemplateResponse{Template: fullWidgetTemplate()}),
		single("GetDeveloperBillingResponse", "full", &switchboardv1.GetDeveloperBillingResponse{
			EarningsCents: 3550, FeesCents: 355, PayoutsCents: 3195, Currency: "USD", Currencies: []string{"EUR", "USD"},
			Ledger: []*switchboardv1.BillingLine{
				{Id: "ckx6h0a1b0000qzrmholdid01", ExecutionId: "ckx4e0a1b0000qzrmexecut01", AgentId: proto.String("ckx3a0a1b0000qzrmstagent1"),
					AgentName: "Scout", EarningsCents: 2550, FeeCents: 255, PayoutCents: 2295, Currency: "USD", SettledAt: tsUsed},
				{Id: "ckx6h0a1b0000qzrmholdid02", ExecutionId: "ckx4e0a1b0000qzrmexecut02", AgentName: "Removed agent",
					EarningsCents: 1000, FeeCents: 100, PayoutCents: 900, Currency: "USD", SettledAt: tsCreated},
			},
			Pagination: &switchboardv1.Pagination{Total: 2, Limit: 50}}),
		single("GetDeveloperBillingResponse", "sparse", &switchboardv1.GetDeveloperBillingResponse{Currency: "USD",
			Currencies: []string{}, Ledger: []*switchboardv1.BillingLine{}, Pagination: empty}),
	}
}
