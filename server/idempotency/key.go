package idempotency

import (
	"net/http"
	"strings"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// Header is the request header that names a key; ReplayedHeader marks an
// answer given again.
const (
	Header         = "Idempotency-Key"
	ReplayedHeader = "Idempotent-Replayed"
	maxKeyLen      = 255
)

// parseKey reads the one key a request names: 1–255 printable ASCII
// characters (space included; HTTP trims the ends).
func parseKey(h http.Header) (string, error) {
	values := h.Values(Header)
	if len(values) != 1 {
		return "", apperr.Invalid("send one %s header, not %d", Header, len(values))
	}
	key := values[0]
	if key == "" || len(key) > maxKeyLen {
		return "", apperr.Invalid("%s must be 1 to %d characters", Header, maxKeyLen)
	}
	for i := range len(key) {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "", apperr.Invalid("%s must be printable ASCII characters", Header)
		}
	}
	return key, nil
}

// scopeOf is the credential a key belongs to: the API key or the session, so
// two keys of one account never share a key's answer.
func scopeOf(p *auth.Principal) (string, error) {
	switch {
	case p == nil:
	case p.Via == auth.ViaKey && p.KeyID != "":
		return "key:" + p.KeyID, nil
	case p.Via == auth.ViaSession && p.SessionID != "":
		return "session:" + p.SessionID, nil
	}
	return "", apperr.Invalid("%s needs an API key or a session to belong to", Header)
}

// grpcFamily reports the gRPC and gRPC-Web protocols, whose answers end in
// trailers and are not stored; REST and the Connect protocol take the header.
func grpcFamily(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc")
}
