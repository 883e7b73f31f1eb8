// Package membership answers who belongs to a team or project, for the
// groups service that manages them (server/groups) and the areas that file
// work under one (the queue, the board, relays) without depending on it.
// No transport.
package membership

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/project"
	"github.com/switchboard-hq/switchboard/ent/projectmember"
	"github.com/switchboard-hq/switchboard/ent/teammember"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// ProjectRole is userID's role in the project: "" when the user is not a
// member; found is false when no such project exists.
func ProjectRole(ctx context.Context, c *ent.Client, projectID, userID string) (role string, found bool, err error) {
	m, err := c.ProjectMember.Query().
		Where(projectmember.ProjectID(projectID), projectmember.UserID(userID)).
		Select(projectmember.FieldRole).Only(ctx)
	switch {
	case err == nil:
		return string(m.Role), true, nil
	case !ent.IsNotFound(err):
		return "", false, err
	}
	found, err = c.Project.Query().Where(project.ID(projectID)).Exist(ctx)
	return "", found, err
}

// TeamRole is userID's role in a team, "" when the user is not a member.
func TeamRole(ctx context.Context, c *ent.Client, teamID, userID string) (string, error) {
	m, err := c.TeamMember.Query().Where(teammember.TeamID(teamID), teammember.UserID(userID)).
		Select(teammember.FieldRole).Only(ctx)
	if ent.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return string(m.Role), nil
}

// CheckNamed refuses a team or project a request names (a relay about it)
// that userID is not a member of: 404, as for any other account's row.
func CheckNamed(ctx context.Context, c *ent.Client, userID string, teamID, projectID *string) error {
	if projectID != nil && *projectID != "" {
		role, _, err := ProjectRole(ctx, c, *projectID, userID)
		if err != nil {
			return err
		}
		if role == "" {
			return apperr.NotFound("project %q not found", *projectID)
		}
	}
	if teamID != nil && *teamID != "" {
		role, err := TeamRole(ctx, c, *teamID, userID)
		if err != nil {
			return err
		}
		if role == "" {
			return apperr.NotFound("team %q not found", *teamID)
		}
	}
	return nil
}

// MayFile is whether a member in role may file cards and queue items in a
// project (RULINGS: the lead and contributors).
func MayFile(role string) bool {
	return role == string(vocab.ProjectRoleLead) || role == string(vocab.ProjectRoleContributor)
}

// CheckFile refuses filing work under projectID for userID: a project the
// user is not a member of (or none) is 404, a member whose role may not
// file is 403.
func CheckFile(ctx context.Context, c *ent.Client, userID, projectID string) error {
	role, _, err := ProjectRole(ctx, c, projectID, userID)
	if err != nil {
		return err
	}
	if role == "" {
		return apperr.NotFound("project %q not found", projectID)
	}
	if !MayFile(role) {
		return apperr.Forbidden("a project %s may not file cards or queue items in project %q", role, projectID)
	}
	return nil
}
