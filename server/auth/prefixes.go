package auth

import "strings"

// The bearer prefixes of federation and the operator network
// (docs/decisions.md "Federation (issue 14)"): each route takes one kind,
// and a token of another kind is 401.
const (
	// PlatformTokenPrefix marks the token a hub issues to a spoke.
	PlatformTokenPrefix = "sbp_"
	// InstanceKeyPrefix marks a spoke's own secret, which the hub presents.
	InstanceKeyPrefix = "sbi_"
	// PeerTokenPrefix marks an operator-network token between peers.
	PeerTokenPrefix = "sbf_"
	// ConnectTokenPrefix is the developer area's connect token (fct_…).
	ConnectTokenPrefix = "fct_"
	// DeveloperKeyPrefix marks a developer portal key.
	DeveloperKeyPrefix = "sbd_"
	// SelfConfigPrefix marks the token a self-registered agent configures
	// itself with (ours; docs/decisions.md "Names").
	SelfConfigPrefix = "sbc_"
)

// kinds names each prefix for refusals.
var kinds = map[string]string{
	PlatformTokenPrefix: "a platform token",
	InstanceKeyPrefix:   "an instance secret",
	PeerTokenPrefix:     "a peer federation token",
	ConnectTokenPrefix:  "a connect token",
	KeyPrefix:           "an API key",
	DeveloperKeyPrefix:  "a developer key",
	SelfConfigPrefix:    "a self-configuration token",
}

// KindOf names the credential kind of a prefix, or of a token by its prefix,
// for refusals ("a platform token"); "an unknown credential" when none fits.
func KindOf(token string) string {
	for p, name := range kinds {
		if strings.HasPrefix(token, p) {
			return name
		}
	}
	return "an unknown credential"
}
