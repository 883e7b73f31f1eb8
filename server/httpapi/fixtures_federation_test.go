package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, federationFixtures) }

var (
	tsJoined    = timestamppb.New(time.Date(2025, 6, 1, 8, 0, 0, 0, time.UTC))
	tsHeartbeat = timestamppb.New(time.Date(2025, 6, 1, 9, 0, 0, 125_000_000, time.UTC))
)

// fullInstance is a spoke as its hub's admin sees it, every field set.
func fullInstance() *switchboardv1.FederationInstance {
	return &switchboardv1.FederationInstance{
		Id: "ckx5f0a1b0000qzrminstanc1", Name: "Ada's \"lab\" instance", BaseUrl: "https://sb.ada.example",
		Status: "active", Health: "degraded", Version: proto.String("2.0.0"), UserCount: 12, AgentCount: 3,
		StoreParticipation: true, LastHeartbeatAt: tsHeartbeat, RegisteredAt: tsJoined, TokenPrefix: "sbp_abcdefgh",
	}
}

// sparseInstance registered and never sent a heartbeat, now stale.
func sparseInstance() *switchboardv1.FederationInstance {
	return &switchboardv1.FederationInstance{
		Id: "ckx5f0a1b0000qzrminstanc2", Name: "bare", BaseUrl: "http://10.0.0.7:8080",
		Status: "stale", Health: "healthy", RegisteredAt: tsJoined, TokenPrefix: "sbp_zyxwvuts",
	}
}

// joinedStatus is a spoke joined to its hub after a failed heartbeat, and
// fullStatus one whose last heartbeat answered.
func joinedStatus(ok bool) *switchboardv1.FederationStatus {
	hb := &switchboardv1.FederationHeartbeat{SentAt: tsHeartbeat, Ok: ok}
	if ok {
		hb.Network = &switchboardv1.NetworkStats{Instances: 4, Users: 57, Agents: 19}
	} else {
		hb.Error = proto.String("the hub at https://hub.example could not be reached")
	}
	return &switchboardv1.FederationStatus{
		Role: "standalone", Joined: true, HubUrl: proto.String("https://hub.example"),
		InstanceId: proto.String("ckx5f0a1b0000qzrminstanc1"), JoinedAt: tsJoined, LastHeartbeat: hb,
		StoreParticipation: ok, LastSyncAt: map[bool]*timestamppb.Timestamp{true: tsHeartbeat}[ok],
		HeartbeatIntervalSeconds: 3600, Health: proto.String(map[bool]string{true: "healthy", false: "maintenance"}[ok]),
	}
}

// federationFixtures cover the hub's platform answers, its admin's list and
// the spoke's status.
func federationFixtures() []fixture {
	alone := &switchboardv1.FederationStatus{Role: "standalone", HeartbeatIntervalSeconds: 3600}
	return []fixture{
		single("RegisterInstanceResponse", "full", &switchboardv1.RegisterInstanceResponse{
			InstanceId: "ckx5f0a1b0000qzrminstanc1", PlatformToken: "sbp_0123456789abcdefghijklmnopqrstuvwxyz0123456789abcd",
			Endpoints: []*switchboardv1.FederationEndpoint{
				{Method: "POST", Path: "/api/v2/federation/heartbeat"}, {Method: "POST", Path: "/api/v2/federation/rotate"},
			},
		}),
		single("RegisterInstanceResponse", "sparse", &switchboardv1.RegisterInstanceResponse{
			InstanceId: "ckx5f0a1b0000qzrminstanc2", PlatformToken: "sbp_x",
		}),
		single("HeartbeatResponse", "full", &switchboardv1.HeartbeatResponse{
			Ok: true, Network: &switchboardv1.NetworkStats{Instances: 4, Users: 57, Agents: 19}, ServerTime: tsHeartbeat,
		}),
		single("HeartbeatResponse", "sparse", &switchboardv1.HeartbeatResponse{}),
		single("RotatePlatformTokenResponse", "full", &switchboardv1.RotatePlatformTokenResponse{PlatformToken: "sbp_new"}),
		single("LeaveHubResponse", "full", &switchboardv1.LeaveHubResponse{}),
		single("JoinHubResponse", "full", &switchboardv1.JoinHubResponse{Status: joinedStatus(true)}),
		single("JoinHubResponse", "heartbeat_failed", &switchboardv1.JoinHubResponse{Status: joinedStatus(false)}),
		single("GetFederationStatusResponse", "full", &switchboardv1.GetFederationStatusResponse{Status: joinedStatus(true)}),
		single("GetFederationStatusResponse", "sparse", &switchboardv1.GetFederationStatusResponse{Status: alone}),
		single("LeaveFederationResponse", "full", &switchboardv1.LeaveFederationResponse{Status: alone, HubTold: true}),
		single("LeaveFederationResponse", "sparse", &switchboardv1.LeaveFederationResponse{Status: alone}),
		single("RotateFederationTokenResponse", "full", &switchboardv1.RotateFederationTokenResponse{Status: joinedStatus(true)}),
		single("SetFederationHealthResponse", "full", &switchboardv1.SetFederationHealthResponse{Status: joinedStatus(true)}),
		single("SetFederationHealthResponse", "maintenance_unheard", &switchboardv1.SetFederationHealthResponse{Status: joinedStatus(false)}),
		single("ListFederationInstancesResponse", "full", &switchboardv1.ListFederationInstancesResponse{
			Instances: []*switchboardv1.FederationInstance{fullInstance(), sparseInstance()},
		}),
		single("ListFederationInstancesResponse", "sparse", &switchboardv1.ListFederationInstancesResponse{}),
		single("DeactivateFederationInstanceResponse", "full", &switchboardv1.DeactivateFederationInstanceResponse{
			Instance: func() *switchboardv1.FederationInstance { i := fullInstance(); i.Status = "deactivated"; return i }(),
		}),
		single("MarketplaceLinkResponse", "full", &switchboardv1.MarketplaceLinkResponse{StoreParticipation: true}),
		single("MarketplaceLinkResponse", "sparse", &switchboardv1.MarketplaceLinkResponse{}),
		single("SyncAgentsResponse", "full", &switchboardv1.SyncAgentsResponse{Results: syncResults()}),
		single("SyncAgentsResponse", "sparse", &switchboardv1.SyncAgentsResponse{}),
		single("ListSyncedAgentsResponse", "full", &switchboardv1.ListSyncedAgentsResponse{Agents: []*switchboardv1.SyncedAgent{
			{RemoteId: "cmwxt94bh002mli7djqaibtbg", MarketplaceId: "ckx3a0a1b0000qzrmstagent1", Name: "Writer \"pro\"",
				Slug: "writer", Status: "active", ExecutionCount: 7, Revenue: []*switchboardv1.SyncedAgentRevenue{
					{Currency: "USD", Gross: 17.5, DeveloperPayout: 14.88, PlatformFee: 2.62},
					{Currency: "EUR", Gross: 2.5, DeveloperPayout: 2.13, PlatformFee: 0.37},
				}},
			{RemoteId: "r2", MarketplaceId: "ckx3a0a1b0000qzrmstagent2", Name: "Coder", Slug: "coder", Status: "pending_review"},
		}}),
		single("ListSyncedAgentsResponse", "sparse", &switchboardv1.ListSyncedAgentsResponse{}),
		single("LinkMarketplaceResponse", "full", &switchboardv1.LinkMarketplaceResponse{Status: joinedStatus(true)}),
		single("SyncMarketplaceResponse", "full", &switchboardv1.SyncMarketplaceResponse{Results: syncResults(), Status: joinedStatus(true),
			CapabilityResults: []*switchboardv1.SyncResult{
				{Id: "c1", Status: "created", MarketplaceId: proto.String("ckx3a0a1b0000qzrmcapabil1")},
				{Id: "c2", Status: "invalid", Error: proto.String("a paid capability cannot be offered through a hub")},
			}}),
		single("SyncMarketplaceResponse", "sparse", &switchboardv1.SyncMarketplaceResponse{Status: joinedStatus(false)}),
		single("ReactivateFederationInstanceResponse", "full", &switchboardv1.ReactivateFederationInstanceResponse{Instance: sparseInstance()}),
		single("PutSyncedAgentResponse", "created", &switchboardv1.PutSyncedAgentResponse{Agent: sparseSyncedAgent(), Created: true}),
		single("PutSyncedAgentResponse", "updated", &switchboardv1.PutSyncedAgentResponse{Agent: fullSyncedAgent()}),
		single("GetSyncedAgentResponse", "full", &switchboardv1.GetSyncedAgentResponse{Agent: fullSyncedAgent()}),
		single("GetSyncedAgentResponse", "sparse", &switchboardv1.GetSyncedAgentResponse{Agent: sparseSyncedAgent()}),
		single("DeleteSyncedAgentResponse", "full", &switchboardv1.DeleteSyncedAgentResponse{Agent: fullSyncedAgent(), KeptExecutions: 7}),
		single("DeleteSyncedAgentResponse", "sparse", &switchboardv1.DeleteSyncedAgentResponse{Agent: sparseSyncedAgent()}),
		single("SyncCapabilitiesResponse", "full", &switchboardv1.SyncCapabilitiesResponse{Results: syncResults()}),
		single("SyncCapabilitiesResponse", "sparse", &switchboardv1.SyncCapabilitiesResponse{}),
		single("ListSyncedCapabilitiesResponse", "full", &switchboardv1.ListSyncedCapabilitiesResponse{
			Capabilities: []*switchboardv1.SyncedCapability{
				{RemoteId: "cap-1", MarketplaceId: "ckx3a0a1b0000qzrmcapabil1", Name: "CRM \"notes\"", Slug: "crm-notes",
					Status: "pending_review", PromptGroup: proto.String("contacts"), SignalPatterns: []string{`\bcrm\b`, "notes?"},
					TokenEstimate: 120, AlwaysLoad: true},
				{RemoteId: "cap-2", MarketplaceId: "ckx3a0a1b0000qzrmcapabil2", Name: "Plain", Slug: "plain", Status: "suspended",
					SignalPatterns: []string{}},
			}}),
		single("ListSyncedCapabilitiesResponse", "sparse", &switchboardv1.ListSyncedCapabilitiesResponse{}),
	}
}

// fullSyncedAgent is a synced listing with executions and revenue.
func fullSyncedAgent() *switchboardv1.SyncedAgent {
	return &switchboardv1.SyncedAgent{RemoteId: "cmwxt94bh002mli7djqaibtbg", MarketplaceId: "ckx3a0a1b0000qzrmstagent1",
		Name: "Writer \"pro\"", Slug: "writer", Status: "active", ExecutionCount: 7,
		Revenue: []*switchboardv1.SyncedAgentRevenue{{Currency: "USD", Gross: 17.5, DeveloperPayout: 14.88, PlatformFee: 2.62}}}
}

// sparseSyncedAgent was just synced: waiting for review, never run.
func sparseSyncedAgent() *switchboardv1.SyncedAgent {
	return &switchboardv1.SyncedAgent{RemoteId: "r2", MarketplaceId: "ckx3a0a1b0000qzrmstagent2", Name: "Coder",
		Slug: "coder", Status: "pending_review"}
}

// syncResults is one of each sync outcome.
func syncResults() []*switchboardv1.SyncResult {
	return []*switchboardv1.SyncResult{
		{Id: "a1", Status: "created", MarketplaceId: proto.String("ckx3a0a1b0000qzrmstagent1")},
		{Id: "a2", Status: "unchanged", MarketplaceId: proto.String("ckx3a0a1b0000qzrmstagent2")},
		{Id: "a3", Status: "conflict", Error: proto.String("slug \"scout\" is taken on this hub")},
		{Id: "a4", Status: "invalid", Error: proto.String("name is required")},
	}
}
