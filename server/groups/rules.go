package groups

import (
	"regexp"
	"strings"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// The pure rules of who may do what in a team or a project (RULINGS "Teams,
// projects, invites, profiles"): no storage, no transport.

// TeamRight is something done to a team.
type TeamRight int

// The team rights.
const (
	// TeamRead: the detail, members, invites, assigned projects.
	TeamRead TeamRight = iota
	// TeamManage: update, add and remove members, invite, assign projects.
	TeamManage
	// TeamDelete: delete the team.
	TeamDelete
	// TeamTransfer: hand ownership to an admin.
	TeamTransfer
)

// TeamAllows says whether a member in role has right r; "" is no member.
func TeamAllows(role string, r TeamRight) bool {
	switch vocab.TeamRole(role) {
	case vocab.TeamRoleOwner:
		return true
	case vocab.TeamRoleAdmin:
		return r == TeamRead || r == TeamManage
	case vocab.TeamRoleMember:
		return r == TeamRead
	}
	return false
}

// ProjectRight is something done to a project.
type ProjectRight int

// The project rights.
const (
	// ProjectRead: the detail, members, cards, pending invites.
	ProjectRead ProjectRight = iota
	// ProjectFile: create cards and queue items in the project.
	ProjectFile
	// ProjectAdd: add members directly.
	ProjectAdd
	// ProjectInvite: invite by user, email or connection.
	ProjectInvite
	// ProjectUpdate: change the project's fields.
	ProjectUpdate
	// ProjectRemove: remove members.
	ProjectRemove
	// ProjectReview: complete queue_review checklist items on project cards.
	ProjectReview
	// ProjectAssign: assign the project to a team or take it off one.
	ProjectAssign
)

// ProjectAllows says whether a member in role has right r; "" is no member.
// The lead does everything; a contributor files work and adds members; a
// reviewer reads and reviews; an observer reads.
func ProjectAllows(role string, r ProjectRight) bool {
	switch vocab.ProjectRole(role) {
	case vocab.ProjectRoleLead:
		return true
	case vocab.ProjectRoleContributor:
		return r == ProjectRead || r == ProjectFile || r == ProjectAdd
	case vocab.ProjectRoleReviewer:
		return r == ProjectRead || r == ProjectReview
	case vocab.ProjectRoleObserver:
		return r == ProjectRead
	}
	return false
}

// ProjectVisible says whether a non-member may read a project of
// visibility v: public to anyone signed in here, team to the members of
// the project's team (inTeam).
func ProjectVisible(v string, inTeam bool) bool {
	switch vocab.ProjectVisibility(v) {
	case vocab.ProjectVisibilityPublic:
		return true
	case vocab.ProjectVisibilityTeam:
		return inTeam
	}
	return false
}

var nonHandle = regexp.MustCompile(`[^a-z0-9]+`)

// maxHandle is the usernames' maximum length, which handles share.
const maxHandle = 30

// Kebab is the handle a team's name gives when none is asked for: lower
// case, every run of other characters one '-', no '-' at either end, cut
// to the usernames' length.
func Kebab(name string) string {
	h := strings.Trim(nonHandle.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(h) > maxHandle {
		h = strings.TrimRight(h[:maxHandle], "-")
	}
	return h
}

var color = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// DefaultColor is a project's color when none is given.
const DefaultColor = "#6366F1"

// ValidColor says whether c is #RRGGBB.
func ValidColor(c string) bool { return color.MatchString(c) }
