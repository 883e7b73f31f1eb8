package groups

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/projectmember"
	"github.com/switchboard-hq/switchboard/ent/teammember"
)

// How many members a team or project has (memberCount), one query for a
// whole list.

func teamSize(ctx context.Context, c *ent.Client, teamID string) (int, error) {
	return c.TeamMember.Query().Where(teammember.TeamID(teamID)).Count(ctx)
}

func projectSize(ctx context.Context, c *ent.Client, projectID string) (int, error) {
	return c.ProjectMember.Query().Where(projectmember.ProjectID(projectID)).Count(ctx)
}

// teamSizes counts the members of each of the teams, by id.
func teamSizes(ctx context.Context, c *ent.Client, ids []string) (map[string]int, error) {
	var rows []struct {
		ID    string `json:"team_id"`
		Count int    `json:"count"`
	}
	err := c.TeamMember.Query().Where(teammember.TeamIDIn(ids...)).GroupBy(teammember.FieldTeamID).
		Aggregate(ent.Count()).Scan(ctx, &rows)
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.ID] = r.Count
	}
	return out, err
}

// projectSizes counts the members of each of the projects, by id.
func projectSizes(ctx context.Context, c *ent.Client, ids []string) (map[string]int, error) {
	var rows []struct {
		ID    string `json:"project_id"`
		Count int    `json:"count"`
	}
	err := c.ProjectMember.Query().Where(projectmember.ProjectIDIn(ids...)).GroupBy(projectmember.FieldProjectID).
		Aggregate(ent.Count()).Scan(ctx, &rows)
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.ID] = r.Count
	}
	return out, err
}
