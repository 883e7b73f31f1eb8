package groups

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/project"
	"github.com/switchboard-hq/switchboard/ent/projectinvite"
	"github.com/switchboard-hq/switchboard/ent/projectmember"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/kanban"
	"github.com/switchboard-hq/switchboard/server/page"
)

// CreateProject makes a project led by the caller.
func (x *Projects) CreateProject(ctx context.Context, req *switchboardv1.CreateProjectRequest) (*switchboardv1.CreateProjectResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(req.GetName())
	if name == "" {
		return nil, apperr.Invalid("name is required")
	}
	color := DefaultColor
	if req.Color != nil {
		if color = strings.TrimSpace(req.GetColor()); !ValidColor(color) {
			return nil, apperr.Invalid("color must be #RRGGBB, such as %s", DefaultColor)
		}
	}
	teamID := strings.TrimSpace(req.GetTeamId())
	if req.GetVisibility() == string(vocab.ProjectVisibilityTeam) && teamID == "" {
		return nil, apperr.Invalid("visibility team needs a teamId")
	}
	pr, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.Project, error) {
		if teamID != "" {
			if _, _, err := teamFor(ctx, tx.Client(), teamID, p.UserID, TeamManage); err != nil {
				return nil, err
			}
		}
		now := s.now()
		create := tx.Project.Create().SetName(name).SetNillableDescription(req.Description).SetColor(color).
			SetLeadID(p.UserID).SetCreatedAt(now).SetUpdatedAt(now)
		if req.Visibility != nil {
			create.SetVisibility(project.Visibility(req.GetVisibility()))
		}
		pr, err := create.Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := tx.ProjectMember.Create().SetProjectID(pr.ID).SetUserID(p.UserID).SetRole(projectmember.RoleLead).
			SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx); err != nil {
			return nil, err
		}
		if teamID != "" {
			if _, err := s.assign(ctx, tx, pr, teamID); err != nil {
				return nil, err
			}
			pr.TeamID = &teamID
		}
		return pr, activity.Write(ctx, tx, activity.Entry{UserID: p.UserID, Action: "project_created", Actor: p.Actor(), At: now,
			Summary: fmt.Sprintf("Created project %q", pr.Name), Metadata: map[string]any{"projectId": pr.ID}})
	})
	if err != nil {
		return nil, err
	}
	n, err := projectSize(ctx, s.DB.Client, pr.ID)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateProjectResponse{Project: toProject(pr, string(projectmember.RoleLead), n)}, nil
}

// ListProjects lists the projects the caller is a member of, most recently
// updated first.
func (x *Projects) ListProjects(ctx context.Context, req *switchboardv1.ListProjectsRequest) (*switchboardv1.ListProjectsResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	where := []predicate.Project{project.HasMembersWith(projectmember.UserID(p.UserID))}
	if id := req.GetTeamId(); id != "" {
		where = append(where, project.TeamID(id))
	}
	if st := req.GetStatus(); st != "" {
		where = append(where, project.StatusEQ(project.Status(st)))
	}
	q := s.DB.Project.Query().Where(where...)
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := q.Order(ent.Desc(project.FieldUpdatedAt), ent.Desc(project.FieldID)).
		Offset(pg.Offset).Limit(pg.Limit).WithMembers().All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListProjectsResponse{Projects: make([]*switchboardv1.Project, 0, len(rows)), Pagination: pg.Of(total, len(rows))}
	for _, r := range rows {
		role := ""
		for _, m := range r.Edges.Members {
			if m.UserID != nil && *m.UserID == p.UserID {
				role = string(m.Role)
			}
		}
		out.Projects = append(out.Projects, toProject(r, role, len(r.Edges.Members)))
	}
	return out, nil
}

// GetProject answers a project with its members, cards and pending invites.
func (x *Projects) GetProject(ctx context.Context, req *switchboardv1.GetProjectRequest) (*switchboardv1.GetProjectResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pr, role, err := projectFor(ctx, s.DB.Client, req.GetId(), p.UserID, ProjectRead)
	if err != nil {
		return nil, err
	}
	members, err := projectMembers(ctx, s.DB.Client, pr.ID)
	if err != nil {
		return nil, err
	}
	cards, err := kanban.ProjectCards(ctx, s.DB.Client, pr.ID)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.GetProjectResponse{Project: toProject(pr, role, len(members)), Members: members, Cards: cards,
		Invites: []*switchboardv1.ProjectInvite{}}
	if role != "" {
		if out.Invites, err = s.pendingInvites(ctx, s.DB.Client, pr); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *Core) pendingInvites(ctx context.Context, c *ent.Client, pr *ent.Project) ([]*switchboardv1.ProjectInvite, error) {
	rows, err := c.ProjectInvite.Query().
		Where(projectinvite.ProjectID(pr.ID), projectinvite.StatusEQ(projectinvite.StatusPending)).
		Order(ent.Desc(projectinvite.FieldCreatedAt), ent.Desc(projectinvite.FieldID)).Limit(maxInvites).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*switchboardv1.ProjectInvite, 0, len(rows))
	for _, r := range rows {
		out = append(out, toProjectInvite(r, pr.Name))
	}
	return out, nil
}

// UpdateProject changes the supplied fields (the lead).
func (x *Projects) UpdateProject(ctx context.Context, req *switchboardv1.UpdateProjectRequest) (*switchboardv1.UpdateProjectResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var name, color string
	if req.Name != nil {
		if name = strings.TrimSpace(req.GetName()); name == "" {
			return nil, apperr.Invalid("name cannot be empty")
		}
	}
	if req.Color != nil {
		if color = strings.TrimSpace(req.GetColor()); !ValidColor(color) {
			return nil, apperr.Invalid("color must be #RRGGBB, such as %s", DefaultColor)
		}
	}
	out, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.Project, error) {
		pr, role, err := projectFor(ctx, tx.Client(), req.GetId(), p.UserID, ProjectUpdate)
		if err != nil {
			return nil, err
		}
		if req.GetVisibility() == string(vocab.ProjectVisibilityTeam) && pr.TeamID == nil {
			return nil, apperr.Invalid("visibility team needs the project assigned to a team")
		}
		up := pr.Update().SetUpdatedAt(s.now()).SetNillableDescription(req.Description)
		if req.Name != nil {
			up.SetName(name)
		}
		if req.Color != nil {
			up.SetColor(color)
		}
		if req.Visibility != nil {
			up.SetVisibility(project.Visibility(req.GetVisibility()))
		}
		if req.Status != nil {
			up.SetStatus(project.Status(req.GetStatus()))
		}
		if pr, err = up.Save(ctx); err != nil {
			return nil, err
		}
		n, err := projectSize(ctx, tx.Client(), pr.ID)
		if err != nil {
			return nil, err
		}
		return toProject(pr, role, n), nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateProjectResponse{Project: out}, nil
}

// projectRoleOf is the role of an add or invite: contributor by default,
// never lead.
func projectRoleOf(r *string) (projectmember.Role, error) {
	if r == nil {
		return projectmember.RoleContributor, nil
	}
	if *r == string(vocab.ProjectRoleLead) {
		return "", apperr.Invalid("role: a project has one lead; choose contributor, reviewer or observer")
	}
	return projectmember.Role(*r), nil
}

// AddProjectMember adds a local user directly (the lead or a contributor).
func (x *Projects) AddProjectMember(ctx context.Context, req *switchboardv1.AddProjectMemberRequest) (*switchboardv1.AddProjectMemberResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	tg, err := pickTarget(req.Email, req.UserId, req.ConnectionId, false)
	if err != nil {
		return nil, err
	}
	role, err := projectRoleOf(req.Role)
	if err != nil {
		return nil, err
	}
	out, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.ProjectMember, error) {
		pr, _, err := projectFor(ctx, tx.Client(), req.GetId(), p.UserID, ProjectAdd)
		if err != nil {
			return nil, err
		}
		if tg.connectionID != "" {
			return s.joinProjectPeer(ctx, tx, p, pr, tg.connectionID, role)
		}
		u, err := local(ctx, tx.Client(), tg, true)
		if err != nil {
			return nil, err
		}
		m, err := s.joinProject(ctx, tx, p, pr, u, role)
		if err != nil {
			return nil, err
		}
		return toProjectMember(m, parties{users: map[string]*ent.User{u.ID: u}}), nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.AddProjectMemberResponse{Member: out}, nil
}

// joinProject makes u a direct member of pr in role: a member through a team
// becomes a direct one (so unassigning the team keeps them); a direct
// member already is 409. It writes project_member_added.
func (s *Core) joinProject(ctx context.Context, tx *db.Tx, p *auth.Principal, pr *ent.Project, u *ent.User, role projectmember.Role) (*ent.ProjectMember, error) {
	now := s.now()
	m, err := tx.ProjectMember.Query().Where(projectmember.ProjectID(pr.ID), projectmember.UserID(u.ID)).Only(ctx)
	switch {
	case err == nil && m.ViaTeamID == nil:
		return nil, apperr.Conflict("%s is already a member of project %q", u.Username, pr.Name)
	case err == nil:
		m, err = m.Update().ClearViaTeamID().SetRole(role).SetUpdatedAt(now).Save(ctx)
	case ent.IsNotFound(err):
		m, err = tx.ProjectMember.Create().SetProjectID(pr.ID).SetUserID(u.ID).SetRole(role).
			SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
	}
	if err != nil {
		return nil, err
	}
	for _, who := range unique(p.UserID, u.ID) {
		if err := activity.Write(ctx, tx, activity.Entry{UserID: who, Action: "project_member_added", Actor: p.Actor(), At: now,
			Summary:  fmt.Sprintf("%s joined project %q as %s", u.Name, pr.Name, role),
			Metadata: map[string]any{"projectId": pr.ID, "userId": u.ID, "role": string(role)}}); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// joinProjectPeer adds an active connection's peer to pr directly.
func (s *Core) joinProjectPeer(ctx context.Context, tx *db.Tx, p *auth.Principal, pr *ent.Project, connectionID string, role projectmember.Role) (*switchboardv1.ProjectMember, error) {
	conn, err := peerOf(ctx, tx.Client(), p.UserID, connectionID)
	if err != nil {
		return nil, err
	}
	exists, err := tx.ProjectMember.Query().Where(projectmember.ProjectID(pr.ID), projectmember.ConnectionID(conn.ID)).Exist(ctx)
	if err != nil {
		return nil, err
	}
	if exists {
		return nil, apperr.Conflict("this connection's peer is already a member of project %q", pr.Name)
	}
	if err := s.joinRemote(ctx, tx, pr.ID, conn.ID, role); err != nil {
		return nil, err
	}
	m, err := tx.ProjectMember.Query().Where(projectmember.ProjectID(pr.ID), projectmember.ConnectionID(conn.ID)).Only(ctx)
	if err != nil {
		return nil, err
	}
	if err := activity.Write(ctx, tx, activity.Entry{UserID: p.UserID, Action: "project_member_added", Actor: p.Actor(), At: s.now(),
		Summary:  fmt.Sprintf("%s joined project %q as %s", shownName(conn), pr.Name, role),
		Metadata: map[string]any{"projectId": pr.ID, "connectionId": conn.ID, "role": string(role)}}); err != nil {
		return nil, err
	}
	return toProjectMember(m, parties{conns: map[string]*ent.NetworkConnection{conn.ID: conn}}), nil
}

// RemoveProjectMember removes a member (the lead); anyone may leave.
func (x *Projects) RemoveProjectMember(ctx context.Context, req *switchboardv1.RemoveProjectMemberRequest) (*switchboardv1.RemoveProjectMemberResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	memberID := strings.TrimSpace(req.GetMemberId())
	if memberID == "" {
		return nil, apperr.Invalid("memberId is required")
	}
	out, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.ProjectMember, error) {
		right := ProjectRemove
		if memberID == p.UserID {
			right = ProjectRead // leaving
		}
		pr, role, err := projectFor(ctx, tx.Client(), req.GetId(), p.UserID, right)
		if err != nil {
			return nil, err
		}
		if role == "" {
			return nil, apperr.NotFound("project %q not found", req.GetId())
		}
		m, err := tx.ProjectMember.Query().Where(projectmember.ProjectID(pr.ID),
			projectmember.Or(projectmember.UserID(memberID), projectmember.ConnectionID(memberID))).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("member %q not found in this project", memberID)
		} else if err != nil {
			return nil, err
		}
		if m.Role == projectmember.RoleLead {
			return nil, apperr.Forbidden("the lead cannot be removed")
		}
		if err := tx.ProjectMember.DeleteOne(m).Exec(ctx); err != nil {
			return nil, err
		}
		out, err := renderProjectMembers(ctx, tx.Client(), []*ent.ProjectMember{m})
		if err != nil {
			return nil, err
		}
		return out[0], nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RemoveProjectMemberResponse{Member: out}, nil
}
