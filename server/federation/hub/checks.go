package hub

import (
	"context"

	"github.com/switchboard-hq/switchboard/server/auth"
)

// The credential checks the gate runs before a request's body is read
// (gate.Check; RULINGS "Credentials before bodies"): each is the handler's
// own check with the handler's route name, so the refusal reads the same;
// the handler still makes it, for the row it finds.

// PlatformCheck refuses a hub route's call on a standalone (404) or without
// an instance's platform token (401), as caller does.
func (h *Platform) PlatformCheck(route string, deactivatedServed bool) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := h.hub.caller(ctx, route, deactivatedServed)
		return err
	}
}

// DiscoverCheck is discovery's: open to anyone on a hub, but a bearer token,
// when one is presented, must be a platform token.
func (h *Platform) DiscoverCheck(ctx context.Context) error {
	if err := h.hub.serving(); err != nil {
		return err
	}
	if auth.CredentialsFrom(ctx).Bearer == "" {
		return nil
	}
	_, err := h.hub.caller(ctx, "discover", false)
	return err
}
