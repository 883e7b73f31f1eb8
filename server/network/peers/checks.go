package peers

import (
	"context"

	"github.com/switchboard-hq/switchboard/server/auth"
)

// The credential checks the gate runs before a request's body is read
// (gate.Check; RULINGS "Credentials before bodies" and the house details'
// order: the switch 403, the credential 401, then the body 400). Each is the
// handler's own check with its route name; the handler still makes it.

// PeerCheck refuses a peer's call while the operator network is off (403),
// then one without a connection's federation token (401), as fromPeer does.
func (s *Service) PeerCheck(route string) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := s.core.FromPeer(ctx, route, nil)
		return err
	}
}

// SwitchCheck refuses a peer's connection request while the operator
// network is off (403): the request proves its caller by the origin its body
// names, so the switch is all the gate can check.
func (s *Service) SwitchCheck(ctx context.Context) error {
	_, err := s.core.SwitchOn(ctx)
	return err
}

// OptionalPeer is the check of a public route a peer may also call with its
// token (the profile pages, where it shows what the network sees): a call
// without X-Federation-Token is anyone's; a presented token must be an
// active connection's (401 for none, 404 for a removed one, 403 while the
// network is off or the connection is not active).
func (s *Service) OptionalPeer(route string) func(context.Context) error {
	return func(ctx context.Context) error {
		if auth.CredentialsFrom(ctx).FederationToken == "" {
			return nil
		}
		_, err := s.core.FromActivePeer(ctx, route, nil)
		return err
	}
}
