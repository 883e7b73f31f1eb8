package hub

import (
	"context"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
)

// prefixShown is how much of a platform token admins see.
const prefixShown = 12

// bearerOf checks that token is of the kind want and answers its hash; a
// missing token or one of another kind is 401 naming both.
func bearerOf(token, want, route string) (string, error) {
	if token == "" {
		return "", apperr.Unauthenticated("missing credential: %s takes \"Authorization: Bearer %s…\"", route, want)
	}
	if !strings.HasPrefix(token, want) {
		got := auth.KindOf(token)
		return "", apperr.Unauthenticated("%s takes %s (%s…), not %s", route, auth.KindOf(want), want, got)
	}
	return auth.HashToken(token), nil
}

// PlatformCaller is the registered instance whose platform token an
// Authorization header presents; nil for anything else.
func (h *Core) PlatformCaller(ctx context.Context, authorization string) *ent.FederationInstance {
	return federation.PlatformInstance(ctx, h.DB.Client, h.Serving, authorization)
}
