package auth

import "testing"

// Each credential kind is named by its prefix in the refusals of the
// federation and operator-network routes.
func TestKindOf(t *testing.T) {
	for token, want := range map[string]string{
		PlatformTokenPrefix + "x": "a platform token",
		InstanceKeyPrefix + "x":   "an instance secret",
		PeerTokenPrefix + "x":     "a peer federation token",
		ConnectTokenPrefix + "x":  "a connect token",
		KeyPrefix + "x":           "an API key",
		DeveloperKeyPrefix + "x":  "a developer key",
		SelfConfigPrefix + "x":    "a self-configuration token",
		"Bearer sbp_x":            "an unknown credential",
		"":                        "an unknown credential",
	} {
		if got := KindOf(token); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", token, got, want)
		}
	}
}
