// Package profiles answers the profile pages of users and teams (issue 28;
// RULINGS "Teams, projects, invites, profiles": Profiles): ProfileService,
// read-only and public, served to anyone for a public profile, to the
// network (signed-in users here, connected peers) for a network one, and to
// the user or the team's members for a private one (404 to anyone else, as
// for an unknown id). Who sees which visibility is rules.go's, which the
// other surfaces that list users or teams to outsiders (the public resolve,
// mentions, the hub's discovery, the peers' mention search) read too.
//
// It stands apart from server/groups at the trust boundary: groups serves
// the members of a team or project, this package the anonymous and the
// peers, over the same rows and without a write.
package profiles

import (
	"context"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/auth"
)

var (
	_ switchboardv1connect.ProfileServiceHandler = (*Service)(nil)
	_ switchboardv1.ProfileServiceServer         = (*Service)(nil)
)

// Service implements ProfileService.
type Service struct {
	DB *db.DB
	// Peer checks a presented X-Federation-Token: nil when it is an active
	// connection's (server/network/peers' OptionalPeer, the same check the
	// gate runs before the request is read).
	Peer func(ctx context.Context) error
}

// viewer is who asks: the signed-in user's id ("" for none), and whether
// the caller is the network (signed in here, or a connected peer).
func (s *Service) viewer(ctx context.Context) (userID string, network bool, err error) {
	if auth.CredentialsFrom(ctx).FederationToken != "" {
		if err := s.Peer(ctx); err != nil {
			return "", false, err
		}
		return "", true, nil
	}
	// A key without the route's scope is refused as a credential, and so
	// is served as anyone is.
	if p, ok := auth.PrincipalFrom(ctx); ok && p != nil {
		return p.UserID, true, nil
	}
	return "", false, nil
}
