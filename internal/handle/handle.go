// Package handle names people across instances the way every surface shows
// them: the operator network's connections, chat mentions, relays.
package handle

import (
	"net/url"
	"strings"
)

// Peer shows a peer as user@host of its verified origin: the local part of
// the peer's email and the origin's host (with its port).
func Peer(email, origin string) string {
	local, _, _ := strings.Cut(email, "@")
	host := origin
	if u, err := url.Parse(origin); err == nil && u.Host != "" {
		host = u.Host
	}
	return local + "@" + host
}
