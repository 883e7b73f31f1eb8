// Package peerwire is how this instance calls another (RULINGS "How one
// instance calls another"): what a peer speaks, read from its well-known
// document and remembered per origin (Directory, the one place the choice
// is made), the two renderings of one call (Protocol.Encode and Decode:
// Connect at the procedure's path, or the documented REST route with JSON)
// and, built on them, the typed client of each peer kind (clients.go), the
// same interface whichever wire it takes. It holds no storage and knows no
// domain: callers name the procedure and hand the messages.
package peerwire

import "slices"

// WellKnownPath is the instance document every Switchboard serves: its name,
// version and protocols, and, asked with a nonce, the nonce signed with the
// secret being proven (federation.AnswerVerification).
const WellKnownPath = "/.well-known/switchboard-instance"

// Protocol is a wire a peer says it speaks.
type Protocol string

// The protocols a document may list.
const (
	// Connect is Connect at the procedure's path (binary on a direct call).
	Connect Protocol = "connect"
	// REST is the documented route with JSON: what every peer implements.
	REST Protocol = "rest"
)

// Spoken is what this instance lists in its document.
var Spoken = []string{string(Connect), string(REST)}

// Document is the well-known answer without a nonce (RULINGS "Details for
// the house issue": {name, version, protocols}). A verification answer adds
// the nonce and its signature to the same fields.
type Document struct {
	Name      string   `json:"name"`
	Version   string   `json:"version"`
	Protocols []string `json:"protocols"`
}

// Choose is the protocol to call a peer with, given what its document
// lists: Connect when it lists connect, REST otherwise (a document that
// predates the field lists nothing).
func Choose(protocols []string) Protocol {
	if slices.Contains(protocols, string(Connect)) {
		return Connect
	}
	return REST
}
