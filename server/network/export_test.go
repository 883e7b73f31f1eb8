package network

import (
	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/secrets"
)

// PeerTokenOf opens the peer's token a connection row holds, for tests that
// present it themselves.
func PeerTokenOf(box *secrets.Box, c *ent.NetworkConnection) (string, error) {
	return box.OpenText(*c.PeerTokenSealed, PeerAAD(c.ID))
}
