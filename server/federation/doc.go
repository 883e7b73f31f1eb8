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
//
// The two halves are packages by who calls (issue 27, point 2): hub (what
// spokes call with a platform token, the hub admin's decisions, the engine's
// remote dispatch) and spoke (what its hub calls with this instance's
// secret, and the spoke admin's membership, heartbeats and global store).
// This package is what both share and what other packages read: the
// credentials and their checks (tokens.go), the well-known verification
// (wellknown.go: the answer and the check a requester makes, which the
// operator network uses too), the approval webhook's body, the paths peers
// call, and the gate's count of federation callers (ratelimit.go). The
// halves import it and never each other.
package federation
