package assistant

import (
	"context"
	"encoding/json"
	"strings"

	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// groupSpecs are issue 28's tags (RULINGS "Teams, projects, invites,
// profiles": create_project, invite_to_project, assign_team_to_project),
// each through the project or team service's own method, offered only
// where that service exists.
func (e *Executor) groupSpecs() []*spec {
	var out []*spec
	if e.Projects != nil {
		out = append(out,
			&spec{name: "create_project", description: "Create a project you lead (name, description, teamId, color)",
				run: e.createProject},
			&spec{name: "invite_to_project", description: "Invite someone to a project (projectId, userId, email or connectionId, role)",
				run: e.inviteToProject})
	}
	if e.Teams != nil {
		out = append(out, &spec{name: "assign_team_to_project",
			description: "Assign a team to a project: its members join as contributors (teamId, projectId)", run: e.assignTeam})
	}
	return out
}

// projectBody is create_project's body: CreateProjectRequest's fields the
// rulings name (the visibility stays the default, private).
type projectBody struct {
	Name        string  `json:"name"`
	Description *string `json:"description"`
	TeamID      *string `json:"teamId"`
	Color       *string `json:"color"`
}

// createProject is create_project: the project service's CreateProject,
// the operator its lead; a teamId assigns the team as the route does.
func (e *Executor) createProject(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
	a, err := decode[projectBody]("create_project", body)
	if err != nil {
		return nil, err
	}
	return call(ctx, e.Projects.CreateProject, &switchboardv1.CreateProjectRequest{Name: a.Name, Description: a.Description,
		TeamId: a.TeamID, Color: a.Color})
}

// createProjectEffects: a project of the operator's alone changes nothing
// for anyone else; one made for a team assigns the team, whose members
// then may act in it (as assign_team_to_project).
func (e *Executor) createProjectEffects(_ context.Context, _ *auth.Principal, body json.RawMessage) (Effect, error) {
	a, err := decode[projectBody]("create_project", body)
	if err != nil {
		return 0, err
	}
	if a.TeamID != nil && strings.TrimSpace(*a.TeamID) != "" {
		return Grants, nil
	}
	return 0, nil
}

// inviteToProject is invite_to_project: the project service's
// InviteToProject (a local invitee's queue item, or a relay to a
// connection's peer); message and force as the route takes them.
func (e *Executor) inviteToProject(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
	a, err := decode[struct {
		ProjectID    string  `json:"projectId"`
		UserID       *string `json:"userId"`
		Email        *string `json:"email"`
		ConnectionID *string `json:"connectionId"`
		Role         *string `json:"role"`
		Message      *string `json:"message"`
		Force        bool    `json:"force"`
	}]("invite_to_project", body)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.ProjectID) == "" {
		return nil, apperr.Invalid("invite_to_project: projectId is required")
	}
	return call(ctx, e.Projects.InviteToProject, &switchboardv1.InviteToProjectRequest{Id: a.ProjectID, UserId: a.UserID,
		Email: a.Email, ConnectionId: a.ConnectionID, Role: a.Role, Message: a.Message, Force: a.Force})
}

// assignTeam is assign_team_to_project: the team service's
// AssignTeamProject (the team's members join as contributors).
func (e *Executor) assignTeam(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
	a, err := decode[struct {
		TeamID    string `json:"teamId"`
		ProjectID string `json:"projectId"`
	}]("assign_team_to_project", body)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.TeamID) == "" {
		return nil, apperr.Invalid("assign_team_to_project: teamId is required")
	}
	return call(ctx, e.Teams.AssignTeamProject, &switchboardv1.AssignTeamProjectRequest{Id: a.TeamID, ProjectId: a.ProjectID})
}
