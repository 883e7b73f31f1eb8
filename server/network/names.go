package network

import (
	"cmp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// maxNameLen is a name's limit in the contract (RULINGS "Input at the
// boundary": names 500, as an account's name). A peer's request states it
// (fromUserName) and the gate enforces it; a peer's answer (the handshake's
// userName) reaches no gate, so recordedName checks it there.
const maxNameLen = 500

// recordedName checks a name the peer answered as a connection records it
// (the handshake's userName): at most maxNameLen characters, then as
// oneLineName.
func recordedName(field, name string) (string, error) {
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > maxNameLen {
		return "", apperr.Invalid("%s must be at most %d characters", field, maxNameLen)
	}
	return oneLineName(field, name)
}

// oneLineName checks a peer's name as a connection records it (the
// handshake's fromUserName, a profile_updated notification's, whose length
// the contract holds): trimmed, one line without control or bidirectional
// formatting characters, which could make a name pass for other text on
// screen. Empty is no name.
func oneLineName(field, name string) (string, error) {
	name = strings.TrimSpace(name)
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
