package network

import (
	"cmp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// maxNameLen is an account name's limit (accounts), so also the most a
// connection records of its peer's name.
const maxNameLen = 200

// recordedName checks a peer's name as a connection records it (the
// handshake's fromUserName, a profile_updated notification's): trimmed, at
// most maxNameLen characters, one line without control or bidirectional
// formatting characters, which could make a name pass for other text on
// screen. Empty is no name.
func recordedName(field, name string) (string, error) {
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > maxNameLen {
		return "", apperr.Invalid("%s must be at most %d characters", field, maxNameLen)
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.In(r, unicode.Bidi_Control, unicode.Zl, unicode.Zp) {
			return "", apperr.Invalid("%s must be one line of text without control characters", field)
		}
	}
	return name, nil
}

// shownName is how the connection's peer user is shown: the name recorded
// for the connection (RULINGS "Security details": never the one a relay or
// notification gives), or the email without one.
func shownName(c *ent.NetworkConnection) string {
	return cmp.Or(c.PeerUserName, c.PeerUserEmail)
}
