package httpapi

import (
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, networkFixtures) }

// networkFixtures cover the operator network's answers: an active
// connection with every field set and a pending request bare (no message,
// never accepted), the switch, the preferences with and without quiet
// hours, and the peer routes' answers.
func networkFixtures() []fixture {
	active := &switchboardv1.NetworkConnection{
		Id: "ckx5f0a1b0000qzrmconn00001", Peer: "bob@b.example:8443", PeerInstanceUrl: "https://b.example:8443",
		PeerInstanceName: "Bob's \"lab\"", PeerUserEmail: "bob@example.com", PeerUserName: "Bob <B>",
		Status: "active", Direction: "outbound", TrustLevel: "trusted", Message: ptr("Let's work together"),
		CreatedAt: tsJoined, AcceptedAt: tsHeartbeat, UpdatedAt: tsHeartbeat,
	}
	pending := &switchboardv1.NetworkConnection{
		Id: "ckx5f0a1b0000qzrmconn00002", Peer: "carol@c.example", PeerInstanceUrl: "https://c.example",
		PeerUserEmail: "carol@c.example", Status: "pending", Direction: "inbound", TrustLevel: "known",
		CreatedAt: tsJoined, UpdatedAt: tsJoined,
	}
	settings := &switchboardv1.NetworkSettings{Enabled: true, Allowlist: []string{"https://a.example", "https://b.example:8443"}}
	prefs := &switchboardv1.NetworkPreferences{
		AutoAccept: true, MutedTopics: []string{"sales", "crypto"}, AmbientEnabled: true, MaxOpenRelays: 50,
		QuietHours: &switchboardv1.QuietHours{Start: "22:00", End: "07:00", TimeZone: "Europe/Berlin"},
	}
	return []fixture{
		single("GetNetworkSettingsResponse", "on", &switchboardv1.GetNetworkSettingsResponse{Settings: settings}),
		single("GetNetworkSettingsResponse", "off", &switchboardv1.GetNetworkSettingsResponse{
			Settings: &switchboardv1.NetworkSettings{Allowlist: []string{}}}),
		single("UpdateNetworkSettingsResponse", "on", &switchboardv1.UpdateNetworkSettingsResponse{Settings: settings}),
		single("CreateConnectionResponse", "created", &switchboardv1.CreateConnectionResponse{Connection: pending, Created: true}),
		single("CreateConnectionResponse", "repeat", &switchboardv1.CreateConnectionResponse{Connection: active}),
		single("ListConnectionsResponse", "two", &switchboardv1.ListConnectionsResponse{
			Connections: []*switchboardv1.NetworkConnection{active, pending}, NetworkEnabled: true}),
		single("ListConnectionsResponse", "empty", &switchboardv1.ListConnectionsResponse{}),
		single("AcceptConnectionResponse", "active", &switchboardv1.AcceptConnectionResponse{Connection: active}),
		single("DeclineConnectionResponse", "declined", &switchboardv1.DeclineConnectionResponse{Connection: pending}),
		single("RemoveConnectionResponse", "told", &switchboardv1.RemoveConnectionResponse{PeerTold: true}),
		single("RemoveConnectionResponse", "not_told", &switchboardv1.RemoveConnectionResponse{}),
		single("UpdateConnectionResponse", "trusted", &switchboardv1.UpdateConnectionResponse{Connection: active}),
		single("RotateConnectionResponse", "rotated", &switchboardv1.RotateConnectionResponse{Connection: active}),
		single("ListActiveConnectionsResponse", "one", &switchboardv1.ListActiveConnectionsResponse{
			Connections: []*switchboardv1.NetworkConnection{active}}),
		single("ListActiveConnectionsResponse", "empty", &switchboardv1.ListActiveConnectionsResponse{}),
		single("GetNetworkPreferencesResponse", "set", &switchboardv1.GetNetworkPreferencesResponse{Preferences: prefs}),
		single("GetNetworkPreferencesResponse", "defaults", &switchboardv1.GetNetworkPreferencesResponse{
			Preferences: &switchboardv1.NetworkPreferences{MutedTopics: []string{}, AmbientEnabled: true, MaxOpenRelays: 50}}),
		single("UpdateNetworkPreferencesResponse", "set", &switchboardv1.UpdateNetworkPreferencesResponse{Preferences: prefs}),
		single("ReceiveConnectionResponse", "pending", &switchboardv1.ReceiveConnectionResponse{Success: true,
			ConnectionId: "ckx5f0a1b0000qzrmconn00003", Status: "pending", UserName: "Bob", InstanceName: "b.example:8443"}),
		single("ReceiveConnectionResponse", "active", &switchboardv1.ReceiveConnectionResponse{Success: true,
			ConnectionId: "ckx5f0a1b0000qzrmconn00003", Status: "active", UserName: "Bob", InstanceName: "b.example:8443",
			FederationToken: ptr("sbf_0123456789abcdefghijklmnopqrstuvwxyzABCDE")}),
		single("ConfirmConnectionResponse", "active", &switchboardv1.ConfirmConnectionResponse{Status: "active"}),
		single("DropConnectionResponse", "dropped", &switchboardv1.DropConnectionResponse{}),
		single("ReplacePeerTokenResponse", "replaced", &switchboardv1.ReplacePeerTokenResponse{}),
	}
}
