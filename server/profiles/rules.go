package profiles

import (
	"slices"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// The pure rule of who sees what (RULINGS "Teams, projects, invites,
// profiles": Profiles; Reconciliation 19): no storage, no transport. A
// user's profile_visibility and a team's team_visibility hold the same three
// terms, and mean the same for each kind of viewer.

// Viewer is who asks, as far as a visibility cares.
type Viewer int

// The viewers, each seeing what the one before sees and more.
const (
	// Anonymous presented no credential the route takes.
	Anonymous Viewer = iota
	// Network is a signed-in user of this instance (a session or a key) or
	// a connected peer presenting its federation token.
	Network
	// Insider is the user whose profile it is, or a member of the team.
	Insider
)

// Levels are the visibilities v sees, for a query's IN list: public to
// anyone, network to the network, private to insiders only.
func Levels(v Viewer) []string {
	out := []string{string(vocab.ProfileVisibilityPublic)}
	if v >= Network {
		out = append(out, string(vocab.ProfileVisibilityNetwork))
	}
	if v >= Insider {
		out = append(out, string(vocab.ProfileVisibilityPrivate))
	}
	return out
}

// Sees reports whether v sees a profile (a user's or a team's) of
// visibility.
func Sees(v Viewer, visibility string) bool { return slices.Contains(Levels(v), visibility) }
