package handle_test

import (
	"testing"

	"github.com/switchboard-hq/switchboard/internal/handle"
)

func TestPeer(t *testing.T) {
	for _, c := range []struct{ email, origin, want string }{
		{"ann@example.com", "https://b.example:8443", "ann@b.example:8443"},
		{"ann@example.com", "https://b.example", "ann@b.example"},
		{"ann", "b.example", "ann@b.example"}, // not a URL: shown as given
	} {
		if got := handle.Peer(c.email, c.origin); got != c.want {
			t.Errorf("Peer(%q, %q) = %q, want %q", c.email, c.origin, got, c.want)
		}
	}
}
