package network

import (
	// Quiet hours name IANA zones; the binary carries them.
	_ "time/tzdata"
)

// DefaultMaxOpenRelays is maxOpenRelays when the user has not set it.
const DefaultMaxOpenRelays = 50
