package groups

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/project"
	"github.com/switchboard-hq/switchboard/ent/team"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/membership"
)

// teamFor loads a team the caller is a member of and the caller's role,
// refusing what the role may not do: another's team is 404, a right the
// role lacks 403.
func teamFor(ctx context.Context, c *ent.Client, teamID, userID string, r TeamRight) (*ent.Team, string, error) {
	role, err := membership.TeamRole(ctx, c, teamID, userID)
	if err != nil {
		return nil, "", err
	}
	if role == "" {
		return nil, "", apperr.NotFound("team %q not found", teamID)
	}
	if !TeamAllows(role, r) {
		return nil, "", apperr.Forbidden("a team %s may not %s", role, teamRightWords[r])
	}
	t, err := c.Team.Query().Where(team.ID(teamID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, "", apperr.NotFound("team %q not found", teamID)
	}
	return t, role, err
}

var teamRightWords = map[TeamRight]string{
	TeamRead:     "read this team",
	TeamManage:   "change this team, its members, invites or projects (the owner or an admin may)",
	TeamDelete:   "delete this team (only its owner may)",
	TeamTransfer: "hand this team to another owner (only its owner may)",
}

// projectFor loads a project for right r: a member lacking r is 403; a
// non-member is 404, except that reading is granted by the project's
// visibility (public to anyone signed in here, team to its team's members).
func projectFor(ctx context.Context, c *ent.Client, projectID, userID string, r ProjectRight) (*ent.Project, string, error) {
	role, _, err := membership.ProjectRole(ctx, c, projectID, userID)
	if err != nil {
		return nil, "", err
	}
	p, err := c.Project.Query().Where(project.ID(projectID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, "", apperr.NotFound("project %q not found", projectID)
	}
	if err != nil {
		return nil, "", err
	}
	if role == "" {
		if r == ProjectRead {
			inTeam := false
			if p.TeamID != nil {
				tr, err := membership.TeamRole(ctx, c, *p.TeamID, userID)
				if err != nil {
					return nil, "", err
				}
				inTeam = tr != ""
			}
			if ProjectVisible(string(p.Visibility), inTeam) {
				return p, "", nil
			}
		}
		return nil, "", apperr.NotFound("project %q not found", projectID)
	}
	if !ProjectAllows(role, r) {
		return nil, "", apperr.Forbidden("a project %s may not %s", role, projectRightWords[r])
	}
	return p, role, nil
}

var projectRightWords = map[ProjectRight]string{
	ProjectRead:   "read this project",
	ProjectFile:   "file cards or queue items in this project",
	ProjectAdd:    "add members to this project (the lead or a contributor may)",
	ProjectInvite: "invite to this project (only its lead may)",
	ProjectUpdate: "change this project (only its lead may)",
	ProjectRemove: "remove members of this project (only its lead may)",
	ProjectReview: "complete review items of this project",
	ProjectAssign: "assign this project to a team (only its lead may)",
}
