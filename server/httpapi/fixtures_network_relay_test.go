package httpapi

import (
	"google.golang.org/protobuf/types/known/structpb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, relayFixtures) }

// relayFixtures cover relays (issue 15): a sent relay with every field set
// and a received one bare, and each 200 answer variant of document 2 plus
// quarantined, where only the variant's fields are present.
func relayFixtures() []fixture {
	payload, _ := structpb.NewStruct(map[string]any{"description": "Two pages, by Friday", "pages": 2})
	sent := &switchboardv1.Relay{
		Id: "ckx5f0a1b0000qzrmrelay0001", ConnectionId: "ckx5f0a1b0000qzrmconn00001", RelayId: "ckx5f0a1b0000qzrmrelay0001",
		Direction: "outbound", Type: "request", Intent: "assign_task", Subject: "Review the \"Q3\" plan <now>",
		Payload: payload, Priority: "high", ThreadId: ptr("ckx5f0a1b0000qzrmrelay0001"), ParentRelayId: ptr("ckx5f0a1b0000qzrmrelay0000"),
		CardId: ptr("ckx5f0a1b0000qzrmcard00001"), State: "completed", Result: ptr("Reviewed: ship it"),
		Reason: ptr("waited on legal"), ItemId: ptr("ckx5f0a1b0000qzrmitem00001"), FilteredReason: ptr("quiet-hours"),
		DigestPending: true, Quarantined: true, Peer: "bob@b.example:8443", CreatedAt: tsJoined, UpdatedAt: tsHeartbeat,
		ScopeResolved: &switchboardv1.RelayScope{ProjectId: ptr("ckx5f0a1b0000qzrmproject01")},
		ScopeDropped:  &switchboardv1.RelayScope{TeamId: ptr("ckx5f0a1b0000qzrmteam00001")},
	}
	bare := &switchboardv1.Relay{
		Id: "ckx5f0a1b0000qzrmrelay0002", ConnectionId: "ckx5f0a1b0000qzrmconn00002", RelayId: "peer-relay-7",
		Direction: "inbound", Type: "notification", Subject: "", Priority: "normal", State: "delivered",
		CreatedAt: tsJoined, UpdatedAt: tsJoined,
	}
	id := ptr("ckx5f0a1b0000qzrmrelay0001")
	yes := func() *bool { b := true; return &b }
	return []fixture{
		single("SendRelayResponse", "task", &switchboardv1.SendRelayResponse{Relay: sent, Answer: &switchboardv1.ReceiveRelayResponse{
			Success: true, RelayId: id, Task: yes(), CardId: ptr("ckx5f0a1b0000qzrmcard00009"), Message: ptr("queued for Bob's confirmation")}, Delivery: "delivered"}),
		single("SendRelayResponse", "queued", &switchboardv1.SendRelayResponse{Relay: sent, Delivery: "queued"}),
		single("ListRelaysResponse", "two", &switchboardv1.ListRelaysResponse{Relays: []*switchboardv1.Relay{sent, bare}}),
		single("ListRelaysResponse", "empty", &switchboardv1.ListRelaysResponse{}),
		single("GetRelayResponse", "full", &switchboardv1.GetRelayResponse{Relay: sent}),
		single("GetRelayResponse", "bare", &switchboardv1.GetRelayResponse{Relay: bare}),
		single("ReleaseRelayResponse", "released", &switchboardv1.ReleaseRelayResponse{Relay: bare}),
		single("DiscardRelayResponse", "discarded", &switchboardv1.DiscardRelayResponse{Relay: bare}),
		single("ReceiveRelayResponse", "task", &switchboardv1.ReceiveRelayResponse{Success: true, RelayId: id, Task: yes(),
			CardId: ptr("ckx5f0a1b0000qzrmcard00009"), Message: ptr("queued for Bob's confirmation")}),
		single("ReceiveRelayResponse", "duplicate", &switchboardv1.ReceiveRelayResponse{Success: true, RelayId: id, Duplicate: yes(),
			Message: ptr("relay was already received")}),
		single("ReceiveRelayResponse", "filtered", &switchboardv1.ReceiveRelayResponse{Success: true, RelayId: id, Ambient: yes(),
			Filtered: yes(), Reason: ptr("topic-filter")}),
		single("ReceiveRelayResponse", "ambient", &switchboardv1.ReceiveRelayResponse{Success: true, RelayId: id, Ambient: yes(),
			Message: ptr("delivered to Bob")}),
		single("ReceiveRelayResponse", "fallback", &switchboardv1.ReceiveRelayResponse{Success: true, RelayId: id, Task: yes(),
			Fallback: yes(), CardId: ptr("ckx5f0a1b0000qzrmcard00009"), Message: ptr("queued for Admin's confirmation")}),
		single("ReceiveRelayResponse", "scope", &switchboardv1.ReceiveRelayResponse{Success: true, RelayId: id, Task: yes(),
			CardId: ptr("ckx5f0a1b0000qzrmcard00009"), ScopeDropped: &switchboardv1.RelayScope{TeamId: ptr("team-9"), ProjectId: ptr("proj-9")},
			Message: ptr("queued for Bob's confirmation")}),
		single("ReceiveRelayResponse", "quarantined", &switchboardv1.ReceiveRelayResponse{Success: true, RelayId: id, Quarantined: yes(),
			Message: ptr("the relay is held for Bob's review: the connection is untrusted")}),
		single("AckRelayResponse", "applied", &switchboardv1.AckRelayResponse{Applied: true, State: "completed"}),
		single("AckRelayResponse", "ignored", &switchboardv1.AckRelayResponse{State: "completed"}),
	}
}
