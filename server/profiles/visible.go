package profiles

import (
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/setting"
	"github.com/switchboard-hq/switchboard/ent/team"
	"github.com/switchboard-hq/switchboard/ent/user"
)

// Levels as predicates, for the surfaces that list users or teams to
// someone who is not inside them (the public resolve, mentions, the hub's
// discovery, a peer's mention search).

// UsersSeen keeps the users whose profile v sees (an account without a
// settings row is public).
func UsersSeen(v Viewer) predicate.User {
	levels := Levels(v)
	in := make([]setting.ProfileVisibility, len(levels))
	for i, l := range levels {
		in[i] = setting.ProfileVisibility(l)
	}
	// Levels always holds public first.
	return user.Or(user.Not(user.HasSettings()), user.HasSettingsWith(setting.ProfileVisibilityIn(in...)))
}

// TeamsSeen keeps the teams v sees by visibility alone (an insider's own
// teams are the caller's to add: membership is per team).
func TeamsSeen(v Viewer) predicate.Team {
	levels := Levels(v)
	in := make([]team.Visibility, len(levels))
	for i, l := range levels {
		in[i] = team.Visibility(l)
	}
	return team.VisibilityIn(in...)
}
