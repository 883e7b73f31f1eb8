// Package federation makes Switchboard a network of instances: one binary in
// two roles. A hub (--role hub) registers spokes, verifies their address,
// issues their platform tokens (sbp_…) and takes their heartbeats
// (FederationHubService), and its admin lists, deactivates and reactivates
// them (FederationAdminService). A standalone instance joins a hub with a
// connect token its admin minted, answers the hub's verification at
// /.well-known/switchboard-instance, sends heartbeats on its interval, and
// can rotate its token or leave (FederationService).
//
// Credentials, one kind per route, recognised by prefix: the platform token
// on spoke → hub calls, the spoke's secret (sbi_…) on hub → spoke calls.
// Tokens are kept as SHA-256 hashes and found by hash (a lookup that reveals
// nothing of the token); the secrets an instance must present again are
// sealed with the instance key.
package federation
