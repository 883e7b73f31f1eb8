package groups

import (
	"context"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/project"
	"github.com/switchboard-hq/switchboard/ent/projectmember"
	"github.com/switchboard-hq/switchboard/ent/teammember"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// AssignTeamProject assigns a project to a team; its members join as
// contributors.
func (x *Teams) AssignTeamProject(ctx context.Context, req *switchboardv1.AssignTeamProjectRequest) (*switchboardv1.AssignTeamProjectResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	projectID := strings.TrimSpace(req.GetProjectId())
	if projectID == "" {
		return nil, apperr.Invalid("projectId is required")
	}
	return db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.AssignTeamProjectResponse, error) {
		t, _, err := teamFor(ctx, tx.Client(), req.GetId(), p.UserID, TeamManage)
		if err != nil {
			return nil, err
		}
		pr, role, err := projectFor(ctx, tx.Client(), projectID, p.UserID, ProjectAssign)
		if err != nil {
			return nil, err
		}
		added, err := s.assign(ctx, tx, pr, t.ID)
		if err != nil {
			return nil, err
		}
		pr, err = tx.Project.Get(ctx, pr.ID)
		if err != nil {
			return nil, err
		}
		n, err := projectSize(ctx, tx.Client(), pr.ID)
		if err != nil {
			return nil, err
		}
		return &switchboardv1.AssignTeamProjectResponse{Project: toProject(pr, role, n), Added: int32(added)}, nil
	})
}

// assign sets the project's team and joins every local member of the team
// not yet in the project as a contributor through it; a project on another
// team is 409.
func (s *Core) assign(ctx context.Context, tx *db.Tx, pr *ent.Project, teamID string) (int, error) {
	if pr.TeamID != nil && *pr.TeamID != teamID {
		return 0, apperr.Conflict("project %q is assigned to another team; unassign it there first", pr.Name)
	}
	if pr.TeamID == nil {
		if err := pr.Update().SetTeamID(teamID).SetUpdatedAt(s.now()).Exec(ctx); err != nil {
			return 0, err
		}
	}
	members, err := tx.TeamMember.Query().Where(teammember.TeamID(teamID)).All(ctx)
	if err != nil {
		return 0, err
	}
	added := 0
	for _, m := range members {
		ok, err := s.joinProjectViaTeam(ctx, tx, pr.ID, teamID, m)
		if err != nil {
			return 0, err
		}
		if ok {
			added++
		}
	}
	return added, nil
}

// joinProjectViaTeam makes a team member (a local user or a connection's
// peer) a contributor of the project through the team, unless they are a
// member already; it answers whether they joined.
func (s *Core) joinProjectViaTeam(ctx context.Context, tx *db.Tx, projectID, teamID string, m *ent.TeamMember) (bool, error) {
	same := projectmember.UserID(deref(m.UserID))
	if m.UserID == nil {
		same = projectmember.ConnectionID(deref(m.ConnectionID))
	}
	exists, err := tx.ProjectMember.Query().Where(projectmember.ProjectID(projectID), same).Exist(ctx)
	if err != nil || exists {
		return false, err
	}
	now := s.now()
	return true, tx.ProjectMember.Create().SetProjectID(projectID).SetNillableUserID(m.UserID).
		SetNillableConnectionID(m.ConnectionID).SetRole(projectmember.RoleContributor).SetViaTeamID(teamID).
		SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx)
}

// joinTeamProjects joins a new team member to every project of the team.
func (s *Core) joinTeamProjects(ctx context.Context, tx *db.Tx, teamID string, m *ent.TeamMember) error {
	projects, err := tx.Project.Query().Where(project.TeamID(teamID)).IDs(ctx)
	if err != nil {
		return err
	}
	for _, id := range projects {
		if _, err := s.joinProjectViaTeam(ctx, tx, id, teamID, m); err != nil {
			return err
		}
	}
	return nil
}

// ListTeamProjects lists the projects assigned to a team.
func (x *Teams) ListTeamProjects(ctx context.Context, req *switchboardv1.ListTeamProjectsRequest) (*switchboardv1.ListTeamProjectsResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	t, _, err := teamFor(ctx, s.DB.Client, req.GetId(), p.UserID, TeamRead)
	if err != nil {
		return nil, err
	}
	projects, err := s.teamProjects(ctx, s.DB.Client, t.ID)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListTeamProjectsResponse{Projects: projects}, nil
}

// UnassignTeamProject takes a project off a team; the members who were in
// it only through the team leave it.
func (x *Teams) UnassignTeamProject(ctx context.Context, req *switchboardv1.UnassignTeamProjectRequest) (*switchboardv1.UnassignTeamProjectResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	projectID := strings.TrimSpace(req.GetProjectId())
	if projectID == "" {
		return nil, apperr.Invalid("projectId is required")
	}
	return db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.UnassignTeamProjectResponse, error) {
		t, _, err := teamFor(ctx, tx.Client(), req.GetId(), p.UserID, TeamManage)
		if err != nil {
			return nil, err
		}
		pr, role, err := projectFor(ctx, tx.Client(), projectID, p.UserID, ProjectAssign)
		if err != nil {
			return nil, err
		}
		if pr.TeamID == nil || *pr.TeamID != t.ID {
			return nil, apperr.NotFound("project %q is not assigned to this team", projectID)
		}
		removed, err := tx.ProjectMember.Delete().Where(projectmember.ProjectID(pr.ID), projectmember.ViaTeamID(t.ID)).Exec(ctx)
		if err != nil {
			return nil, err
		}
		up := pr.Update().ClearTeamID().SetUpdatedAt(s.now())
		if pr.Visibility == project.VisibilityTeam {
			up.SetVisibility(project.VisibilityPrivate)
		}
		if pr, err = up.Save(ctx); err != nil {
			return nil, err
		}
		n, err := projectSize(ctx, tx.Client(), pr.ID)
		if err != nil {
			return nil, err
		}
		return &switchboardv1.UnassignTeamProjectResponse{Project: toProject(pr, role, n), Removed: int32(removed)}, nil
	})
}
