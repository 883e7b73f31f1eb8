package federation

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// The credential prefixes of federation (docs/decisions.md "Federation
// (issue 14)"): each route takes one kind, and a token of another kind is 401.
const (
	// PlatformTokenPrefix marks the token a hub issues to a spoke.
	PlatformTokenPrefix = "sbp_"
	// InstanceKeyPrefix marks a spoke's own secret, which the hub presents.
	InstanceKeyPrefix = "sbi_"
	// PeerTokenPrefix marks an operator-network token between peers.
	PeerTokenPrefix = "sbf_"
	// connectTokenPrefix is the developer area's connect token (fct_…).
	connectTokenPrefix = "fct_"
)

// prefixShown is how much of a platform token admins see.
const prefixShown = 12

// kinds names each prefix for refusals.
var kinds = map[string]string{
	PlatformTokenPrefix: "a platform token",
	InstanceKeyPrefix:   "an instance secret",
	PeerTokenPrefix:     "a peer federation token",
	connectTokenPrefix:  "a connect token",
	"sbk_":              "an API key",
	"sbd_":              "a developer key",
}

// bearerOf checks that token is of the kind want and answers its hash; a
// missing token or one of another kind is 401 naming both.
func bearerOf(token, want, route string) (string, error) {
	if token == "" {
		return "", apperr.Unauthenticated("missing credential: %s takes \"Authorization: Bearer %s…\"", route, want)
	}
	if !strings.HasPrefix(token, want) {
		got := "an unknown credential"
		for p, name := range kinds {
			if strings.HasPrefix(token, p) {
				got = name
			}
		}
		return "", apperr.Unauthenticated("%s takes %s (%s…), not %s", route, kinds[want], want, got)
	}
	return auth.HashToken(token), nil
}

// Sign is the verification answer for nonce: the lowercase hex HMAC-SHA256
// of the nonce keyed by secret.
func Sign(secret, nonce string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(nonce))
	return hex.EncodeToString(m.Sum(nil))
}

// sameHash compares two hex hashes in constant time.
func sameHash(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }

// seal seals a secret for a text column: base64 of the sealed bytes (a
// PostgreSQL text column takes only valid UTF-8).
func seal(box *secrets.Box, secret string, aad []byte) (string, error) {
	b, err := box.Seal([]byte(secret), aad)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// unseal opens what seal stored.
func unseal(box *secrets.Box, stored string, aad []byte) (string, error) {
	b, err := base64.StdEncoding.DecodeString(stored)
	if err != nil {
		return "", secrets.ErrCorrupt
	}
	b, err = box.Open(b, aad)
	return string(b), err
}

// CallerName names the registered instance whose platform token an
// Authorization header presents, for the audit log; empty for anything else
// and on an instance that does not serve as a hub. It reads only the
// database, so the audit recorder the hub's own client uses can be built
// first.
func CallerName(c *ent.Client, serving bool) func(ctx context.Context, authorization string) string {
	return func(ctx context.Context, authorization string) string {
		if inst := platformCaller(ctx, c, serving, authorization); inst != nil {
			return inst.Name
		}
		return ""
	}
}

// platformCaller is the registered instance whose platform token an
// Authorization header presents; nil for anything else.
func (h *Hub) platformCaller(ctx context.Context, authorization string) *ent.FederationInstance {
	return platformCaller(ctx, h.DB.Client, h.Serving, authorization)
}

func platformCaller(ctx context.Context, c *ent.Client, serving bool, authorization string) *ent.FederationInstance {
	token, ok := strings.CutPrefix(authorization, "Bearer ")
	if !serving || !ok || !strings.HasPrefix(token, PlatformTokenPrefix) {
		return nil
	}
	inst, err := c.FederationInstance.Query().Where(federationinstance.TokenHash(auth.HashToken(token))).Only(ctx)
	if err != nil {
		return nil
	}
	return inst
}

// HeaderToken checks a token sent in X-Federation-Token for route: a
// missing token or one of another kind than want is 401. It answers the
// token's hash (the operator network's peer routes look connections up by
// it).
func HeaderToken(token, want, route string) (string, error) {
	if token == "" {
		return "", apperr.Unauthenticated("missing credential: %s takes %s: %s…", route, InstanceHeader, want)
	}
	if !strings.HasPrefix(token, want) {
		got := "an unknown credential"
		for p, name := range kinds {
			if strings.HasPrefix(token, p) {
				got = name
			}
		}
		return "", apperr.Unauthenticated("%s takes %s (%s…) in %s, not %s", route, kinds[want], want, InstanceHeader, got)
	}
	return auth.HashToken(token), nil
}

// SealSecret seals a secret for a text column, bound to aad (as federation
// seals its own).
func SealSecret(box *secrets.Box, secret string, aad []byte) (string, error) {
	return seal(box, secret, aad)
}

// OpenSecret opens what SealSecret stored.
func OpenSecret(box *secrets.Box, stored string, aad []byte) (string, error) {
	return unseal(box, stored, aad)
}
