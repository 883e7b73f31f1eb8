package federation

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// Sign is the verification answer for nonce: the lowercase hex HMAC-SHA256
// of the nonce keyed by secret.
func Sign(secret, nonce string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(nonce))
	return hex.EncodeToString(m.Sum(nil))
}

// sameHash compares two hex hashes in constant time.
func SameHash(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }

// CallerName names the registered instance whose platform token an
// Authorization header presents, for the audit log; empty for anything else
// and on an instance that does not serve as a hub. It reads only the
// database, so the audit recorder the hub's own client uses can be built
// first.
func CallerName(c *ent.Client, serving bool) func(ctx context.Context, authorization string) string {
	return func(ctx context.Context, authorization string) string {
		if inst := PlatformInstance(ctx, c, serving, authorization); inst != nil {
			return inst.Name
		}
		return ""
	}
}

func PlatformInstance(ctx context.Context, c *ent.Client, serving bool, authorization string) *ent.FederationInstance {
	token, ok := strings.CutPrefix(authorization, "Bearer ")
	if !serving || !ok || !strings.HasPrefix(token, auth.PlatformTokenPrefix) {
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
		got := auth.KindOf(token)
		return "", apperr.Unauthenticated("%s takes %s (%s…) in %s, not %s", route, auth.KindOf(want), want, InstanceHeader, got)
	}
	return auth.HashToken(token), nil
}
