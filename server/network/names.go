package network

import (
	"cmp"
	"strings"
	"unicode"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// OneLineName checks a peer's name as a connection records it (the
// handshake's fromUserName, a profile_updated notification's, whose length
// the contract holds): trimmed, one line without control or bidirectional
// formatting characters, which could make a name pass for other text on
// screen. Empty is no name.
func OneLineName(field, name string) (string, error) {
	name = strings.TrimSpace(name)
	for _, r := range name {
		if unicode.IsControl(r) || unicode.In(r, unicode.Bidi_Control, unicode.Zl, unicode.Zp) {
			return "", apperr.Invalid("%s must be one line of text without control characters", field)
		}
	}
	return name, nil
}

// ShownName is how the connection's peer user is shown: the name recorded
// for the connection (RULINGS "Security details": never the one a relay or
// notification gives), or the email without one.
func ShownName(c *ent.NetworkConnection) string {
	return cmp.Or(c.PeerUserName, c.PeerUserEmail)
}
