package httpapi

import (
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, routeFixtures) }

// routeFixtures cover the network as a whole (issue 15 point 7): a route
// with a connection and a store agent, the graph, the briefing (full and
// first-ever, without since) and serendipity pairs.
func routeFixtures() []fixture {
	known := "known"
	conn := &switchboardv1.RouteCandidate{Id: "ckx5f0a1b0000qzrmconn00001", Kind: "connection", Name: "bob@b.example:8443",
		Score: 0.815, Factors: &switchboardv1.RouteFactors{SkillMatch: 1, CompletionRate: 1, Capacity: 0.5, Trust: 0.5,
			Reputation: 0.5, Latency: 0.75, DomainProximity: 1},
		Skills: []string{"go", "review"}, TaskTypes: []string{"review"}, CompletedRelays: 2, AckedRelays: 2, OpenRelays: 1,
		MedianAckHours: 18, MaxConcurrent: 4, TrustLevel: &known}
	agent := &switchboardv1.RouteCandidate{Id: "ckx5f0a1b0000qzrmagent0001", Kind: "store_agent", Name: "Reviewer",
		Score: 0.4, Factors: &switchboardv1.RouteFactors{CompletionRate: 0.5, Capacity: 0.5, Trust: 0.5, Reputation: 0.9,
			Latency: 0.5}, Skills: []string{}, TaskTypes: []string{}, AverageRating: 4.5, Ratings: 12}
	relay := &switchboardv1.Relay{
		Id: "ckx5f0a1b0000qzrmrelay0001", ConnectionId: "ckx5f0a1b0000qzrmconn00001", RelayId: "ckx5f0a1b0000qzrmrelay0001",
		Direction: "outbound", Type: "request", Intent: "assign_task", Subject: "Review the plan", Priority: "normal",
		ThreadId: ptr("ckx5f0a1b0000qzrmrelay0001"), State: "accepted", Peer: "bob@b.example:8443", CreatedAt: tsJoined, UpdatedAt: tsHeartbeat,
	}
	pending := &switchboardv1.NetworkConnection{Id: "ckx5f0a1b0000qzrmconn00002", Peer: "carol@c.example",
		PeerInstanceUrl: "https://c.example", PeerUserEmail: "carol@c.example", Status: "pending", Direction: "inbound",
		TrustLevel: "known", CreatedAt: tsJoined, UpdatedAt: tsJoined}
	job := &switchboardv1.Job{Id: "ckx5f0a1b0000qzrmjob000002", Origin: "received", Title: "Translate a page", Description: "EN to DE",
		TaskType: "translation", Urgency: "low", RequiredSkills: []string{}, Status: "open", ConnectionIds: []string{},
		ConnectionId: ptr("ckx5f0a1b0000qzrmconn00001"), From: ptr("bob@b.example:8443"), CreatedAt: tsJoined,
		Mode: "direct"}
	return []fixture{
		single("RouteTaskResponse", "direct", &switchboardv1.RouteTaskResponse{Strategy: "direct",
			Reason:     "bob@b.example:8443 scores 0.82 and leads the next by 0.41: send it to them directly",
			Candidates: []*switchboardv1.RouteCandidate{conn, agent}}),
		single("RouteTaskResponse", "nobody", &switchboardv1.RouteTaskResponse{Strategy: "broadcast",
			Reason: "no candidates: no active connection or installed store agent to route to"}),
		single("GetNetworkGraphResponse", "two", &switchboardv1.GetNetworkGraphResponse{
			Nodes: []*switchboardv1.NetworkNode{{Id: "self", Kind: "self", Name: "Alice", Host: "a.example"},
				{Id: "ckx5f0a1b0000qzrmconn00001", Kind: "peer", Name: "Bob", Host: "b.example:8443", TrustLevel: &known}},
			Edges: []*switchboardv1.NetworkEdge{{From: "self", To: "ckx5f0a1b0000qzrmconn00001", Relays: 3, Completed: 2, LastActivityAt: tsHeartbeat}}}),
		single("GetNetworkGraphResponse", "alone", &switchboardv1.GetNetworkGraphResponse{
			Nodes: []*switchboardv1.NetworkNode{{Id: "self", Kind: "self", Name: "Alice", Host: "a.example"}}}),
		single("GetNetworkBriefingResponse", "full", &switchboardv1.GetNetworkBriefingResponse{
			Counts: &switchboardv1.NetworkBriefingCounts{PendingRequests: 1, AwaitingPeers: 1, StateChanges: 1, JobsReceived: 1,
				LinkedCardChanges: 1},
			PendingRequests: []*switchboardv1.NetworkConnection{pending}, AwaitingPeers: []*switchboardv1.Relay{relay},
			StateChanges: []*switchboardv1.Relay{relay}, JobsReceived: []*switchboardv1.Job{job}, Since: tsJoined,
			LinkedCardChanges: []*switchboardv1.KanbanCard{{Id: "ckx5f0a1b0000qzrmcard00001", Title: "Navy renewal", Status: "leads",
				Priority: "medium", ChangeLog: []*switchboardv1.CardChange{{ExternalCardId: "ckx5f0a1b0000qzrmcardpeer01",
					NewStatus: "proposal", NewPriority: "high", ChangeLog: "Navy renewal: status leads → proposal",
					From: "bob@b.example", ReceivedAt: tsHeartbeat}}}}}),
		single("GetNetworkBriefingResponse", "first", &switchboardv1.GetNetworkBriefingResponse{Counts: &switchboardv1.NetworkBriefingCounts{}}),
		single("ListSerendipityMatchesResponse", "one", &switchboardv1.ListSerendipityMatchesResponse{Matches: []*switchboardv1.SerendipityMatch{{
			A:      &switchboardv1.SerendipityPerson{Id: "ckx5f0a1b0000qzrmcont00001", Name: "Dana", Party: "contact"},
			B:      &switchboardv1.SerendipityPerson{Id: "ckx5f0a1b0000qzrmconn00001", Name: "bob@b.example:8443", Party: "connection"},
			Shared: []string{"kubernetes"}, Overlap: 1, CardIds: []string{"ckx5f0a1b0000qzrmcard00001"}, JobIds: []string{},
			Reason: "Dana (contact) and bob@b.example:8443 (connection) both know kubernetes, as in your card \"Cluster move\"",
		}}}),
		single("ListSerendipityMatchesResponse", "none", &switchboardv1.ListSerendipityMatchesResponse{}),
	}
}
