// Package ids makes the opaque, collision-resistant identifiers every record carries.
package ids

import (
	"crypto/rand"

	"github.com/lucsky/cuid"
)

// New returns a fresh cuid drawn from the system's cryptographic random source,
// so ids cannot be guessed from one another.
func New() string {
	id, err := cuid.NewCrypto(rand.Reader)
	if err != nil {
		// crypto/rand does not fail on supported platforms; a failure here means
		// the process cannot make safe ids at all.
		panic("ids: crypto random source failed: " + err.Error())
	}
	return id
}
