package operator

import (
	"strings"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/network"
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
	return network.OneLineName(field, name)
}
