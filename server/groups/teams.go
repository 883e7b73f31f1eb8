package groups

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/project"
	"github.com/switchboard-hq/switchboard/ent/projectmember"
	"github.com/switchboard-hq/switchboard/ent/team"
	"github.com/switchboard-hq/switchboard/ent/teaminvite"
	"github.com/switchboard-hq/switchboard/ent/teammember"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/accounts"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
)

// CreateTeam makes a team owned by the caller.
func (x *Teams) CreateTeam(ctx context.Context, req *switchboardv1.CreateTeamRequest) (*switchboardv1.CreateTeamResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(req.GetName())
	if name == "" {
		return nil, apperr.Invalid("name is required")
	}
	handle := Kebab(name)
	if req.Handle != nil {
		handle = strings.TrimSpace(req.GetHandle())
	}
	if msg := handleProblem(handle); msg != "" {
		return nil, apperr.Invalid("%s", msg)
	}
	origin, err := originURL(req.OriginInstanceUrl)
	if err != nil {
		return nil, err
	}
	t, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.Team, error) {
		if err := handleFree(ctx, tx, handle); err != nil {
			return nil, err
		}
		now := s.now()
		create := tx.Team.Create().SetName(name).SetHandle(handle).SetNillableDescription(req.Description).
			SetNillableAvatarURL(req.AvatarUrl).SetNillableOriginInstanceURL(origin).
			// Billing follows the team's origin: only a team made on the
			// platform without one is the platform's.
			SetIsSelfHosted(!s.Platform || origin != nil).
			SetOwnerID(p.UserID).SetCreatedAt(now).SetUpdatedAt(now)
		if req.Visibility != nil {
			create.SetVisibility(team.Visibility(req.GetVisibility()))
		}
		t, err := create.Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := tx.TeamMember.Create().SetTeamID(t.ID).SetUserID(p.UserID).SetRole(teammember.RoleOwner).
			SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx); err != nil {
			return nil, err
		}
		return t, activity.Write(ctx, tx, activity.Entry{UserID: p.UserID, Action: "team_created", Actor: p.Actor(), At: now,
			Summary: fmt.Sprintf("Created team %q (@%s)", t.Name, t.Handle), Metadata: map[string]any{"teamId": t.ID}})
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateTeamResponse{Team: toTeam(t, string(teammember.RoleOwner), 1)}, nil
}

// handleProblem says why h cannot be a team's handle: the usernames' rules.
func handleProblem(h string) string {
	if msg := accounts.UsernameProblem(h); msg != "" {
		return "handle: " + strings.TrimPrefix(msg, "username ")
	}
	return ""
}

// handleFree refuses a handle a user or a team holds (one namespace).
func handleFree(ctx context.Context, tx *db.Tx, h string) error {
	taken, err := accounts.HandleTaken(ctx, tx, h)
	if err != nil {
		return err
	}
	if taken {
		return apperr.Conflict("handle %q is already taken by a user or a team", h)
	}
	return nil
}

// originURL checks originInstanceUrl: an http(s) address with a host.
func originURL(raw *string) (*string, error) {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		return nil, nil
	}
	v := strings.TrimRight(strings.TrimSpace(*raw), "/")
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, apperr.Invalid("originInstanceUrl must be an http or https address, such as https://switchboard.example.com")
	}
	return &v, nil
}

// ListTeams lists the caller's teams, newest first.
func (x *Teams) ListTeams(ctx context.Context, req *switchboardv1.ListTeamsRequest) (*switchboardv1.ListTeamsResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	mine := s.DB.TeamMember.Query().Where(teammember.UserID(p.UserID))
	total, err := mine.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := mine.Order(ent.Desc(teammember.FieldCreatedAt), ent.Desc(teammember.FieldID)).
		Offset(pg.Offset).Limit(pg.Limit).WithTeam().All(ctx)
	if err != nil {
		return nil, err
	}
	sizes, err := teamSizes(ctx, s.DB.Client, lists.Map(rows, func(m *ent.TeamMember) string { return m.TeamID }))
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListTeamsResponse{Teams: make([]*switchboardv1.Team, 0, len(rows)), Pagination: pg.Of(total, len(rows))}
	for _, m := range rows {
		out.Teams = append(out.Teams, toTeam(m.Edges.Team, string(m.Role), sizes[m.TeamID]))
	}
	return out, nil
}

// GetTeam answers a team with its members, projects and subscription.
func (x *Teams) GetTeam(ctx context.Context, req *switchboardv1.GetTeamRequest) (*switchboardv1.GetTeamResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	t, role, err := teamFor(ctx, s.DB.Client, req.GetId(), p.UserID, TeamRead)
	if err != nil {
		return nil, err
	}
	return s.teamDetail(ctx, s.DB.Client, t, role)
}

func (s *Core) teamDetail(ctx context.Context, c *ent.Client, t *ent.Team, role string) (*switchboardv1.GetTeamResponse, error) {
	members, err := teamMembers(ctx, c, t.ID)
	if err != nil {
		return nil, err
	}
	projects, err := s.teamProjects(ctx, c, t.ID)
	if err != nil {
		return nil, err
	}
	sub, err := s.subscriptionOf(ctx, c, t)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetTeamResponse{Team: toTeam(t, role, len(members)), Members: members, Projects: projects,
		Subscription: toSubscription(sub)}, nil
}

// teamProjects renders the projects assigned to a team, by name. Each
// carries no caller role: it is read as the team's.
func (s *Core) teamProjects(ctx context.Context, c *ent.Client, teamID string) ([]*switchboardv1.Project, error) {
	rows, err := c.Project.Query().Where(project.TeamID(teamID)).
		Order(ent.Asc(project.FieldName), ent.Asc(project.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	sizes, err := projectSizes(ctx, c, lists.Map(rows, func(p *ent.Project) string { return p.ID }))
	if err != nil {
		return nil, err
	}
	return lists.Map(rows, func(p *ent.Project) *switchboardv1.Project { return toProject(p, "", sizes[p.ID]) }), nil
}

// UpdateTeam changes the supplied fields, and hands ownership on.
func (x *Teams) UpdateTeam(ctx context.Context, req *switchboardv1.UpdateTeamRequest) (*switchboardv1.UpdateTeamResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var name, handle string
	if req.Name != nil {
		if name = strings.TrimSpace(req.GetName()); name == "" {
			return nil, apperr.Invalid("name cannot be empty")
		}
	}
	if req.Handle != nil {
		handle = strings.TrimSpace(req.GetHandle())
		if msg := handleProblem(handle); msg != "" {
			return nil, apperr.Invalid("%s", msg)
		}
	}
	out, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.Team, error) {
		t, role, err := teamFor(ctx, tx.Client(), req.GetId(), p.UserID, TeamManage)
		if err != nil {
			return nil, err
		}
		up := t.Update().SetUpdatedAt(s.now()).SetNillableDescription(req.Description).SetNillableAvatarURL(req.AvatarUrl)
		if req.Name != nil {
			up.SetName(name)
		}
		if req.Handle != nil && handle != t.Handle {
			if err := handleFree(ctx, tx, handle); err != nil {
				return nil, err
			}
			up.SetHandle(handle)
		}
		if req.Visibility != nil {
			up.SetVisibility(team.Visibility(req.GetVisibility()))
		}
		if req.OwnerId != nil && req.GetOwnerId() != t.OwnerID {
			if !TeamAllows(role, TeamTransfer) {
				return nil, apperr.Forbidden("a team %s may not %s", role, teamRightWords[TeamTransfer])
			}
			if err := transfer(ctx, tx, t, req.GetOwnerId()); err != nil {
				return nil, err
			}
			up.SetOwnerID(req.GetOwnerId())
			role = string(teammember.RoleAdmin)
		}
		t, err = up.Save(ctx)
		if err != nil {
			return nil, err
		}
		n, err := teamSize(ctx, tx.Client(), t.ID)
		if err != nil {
			return nil, err
		}
		return toTeam(t, role, n), nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateTeamResponse{Team: out}, nil
}

// transfer makes an admin the owner and the owner an admin.
func transfer(ctx context.Context, tx *db.Tx, t *ent.Team, to string) error {
	n, err := tx.TeamMember.Update().
		Where(teammember.TeamID(t.ID), teammember.UserID(to), teammember.RoleEQ(teammember.RoleAdmin)).
		SetRole(teammember.RoleOwner).Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return apperr.Invalid("ownerId must name an admin of the team; make the member an admin first")
	}
	return tx.TeamMember.Update().Where(teammember.TeamID(t.ID), teammember.UserID(t.OwnerID)).
		SetRole(teammember.RoleAdmin).Exec(ctx)
}

// DeleteTeam removes a team; its projects stay, without it.
func (x *Teams) DeleteTeam(ctx context.Context, req *switchboardv1.DeleteTeamRequest) (*switchboardv1.DeleteTeamResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	out, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.Team, error) {
		t, role, err := teamFor(ctx, tx.Client(), req.GetId(), p.UserID, TeamDelete)
		if err != nil {
			return nil, err
		}
		n, err := teamSize(ctx, tx.Client(), t.ID)
		if err != nil {
			return nil, err
		}
		if _, err := tx.ProjectMember.Delete().Where(projectmember.ViaTeamID(t.ID)).Exec(ctx); err != nil {
			return nil, err
		}
		// A project that only its team could read becomes private.
		if err := tx.Project.Update().Where(project.TeamID(t.ID), project.VisibilityEQ(project.VisibilityTeam)).
			SetVisibility(project.VisibilityPrivate).Exec(ctx); err != nil {
			return nil, err
		}
		if err := tx.Project.Update().Where(project.TeamID(t.ID)).ClearTeamID().SetUpdatedAt(s.now()).Exec(ctx); err != nil {
			return nil, err
		}
		if _, err := tx.TeamInvite.Delete().Where(teaminvite.TeamID(t.ID)).Exec(ctx); err != nil {
			return nil, err
		}
		if _, err := tx.TeamMember.Delete().Where(teammember.TeamID(t.ID)).Exec(ctx); err != nil {
			return nil, err
		}
		if err := tx.Team.DeleteOne(t).Exec(ctx); err != nil {
			return nil, err
		}
		return toTeam(t, role, n), nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeleteTeamResponse{Team: out}, nil
}

// AddTeamMember adds a local user directly.
func (x *Teams) AddTeamMember(ctx context.Context, req *switchboardv1.AddTeamMemberRequest) (*switchboardv1.AddTeamMemberResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	tg, err := pickTarget(req.Email, req.UserId, req.ConnectionId, false)
	if err != nil {
		return nil, err
	}
	role, err := memberRole(req.Role)
	if err != nil {
		return nil, err
	}
	var joined *ent.Team
	out, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.TeamMember, error) {
		t, _, err := teamFor(ctx, tx.Client(), req.GetId(), p.UserID, TeamManage)
		if err != nil {
			return nil, err
		}
		if tg.connectionID != "" {
			joined = t
			return s.joinPeer(ctx, tx, p, t, tg.connectionID, role)
		}
		u, err := local(ctx, tx.Client(), tg, true)
		if err != nil {
			return nil, err
		}
		m, err := s.join(ctx, tx, p, t, u, role)
		if err != nil {
			return nil, err
		}
		return toTeamMember(m, parties{users: map[string]*ent.User{u.ID: u}}), nil
	})
	if err != nil {
		return nil, err
	}
	if joined != nil {
		s.notify(ctx, tg.connectionID, string(vocab.NotificationTypeTeamAdded), "Added to team "+joined.Name,
			fmt.Sprintf("%s added you to team %q (@%s) as %s.", p.Name, joined.Name, joined.Handle, role),
			map[string]any{"teamId": joined.ID, "teamName": joined.Name, "teamHandle": joined.Handle, "role": string(role)})
	}
	return &switchboardv1.AddTeamMemberResponse{Member: out}, nil
}

// joinPeer makes an active connection's peer a member of t in role.
func (s *Core) joinPeer(ctx context.Context, tx *db.Tx, p *auth.Principal, t *ent.Team, connectionID string, role teammember.Role) (*switchboardv1.TeamMember, error) {
	conn, err := peerOf(ctx, tx.Client(), p.UserID, connectionID)
	if err != nil {
		return nil, err
	}
	exists, err := tx.TeamMember.Query().Where(teammember.TeamID(t.ID), teammember.ConnectionID(conn.ID)).Exist(ctx)
	if err != nil {
		return nil, err
	}
	if exists {
		return nil, apperr.Conflict("this connection's peer is already a member of team %q", t.Name)
	}
	if err := s.seatGate(ctx, tx, t); err != nil {
		return nil, err
	}
	now := s.now()
	m, err := tx.TeamMember.Create().SetTeamID(t.ID).SetConnectionID(conn.ID).SetRole(role).
		SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.joinTeamProjects(ctx, tx, t.ID, m); err != nil {
		return nil, err
	}
	if err := activity.Write(ctx, tx, activity.Entry{UserID: p.UserID, Action: "team_member_added", Actor: p.Actor(), At: now,
		Summary:  fmt.Sprintf("%s joined team %q as %s", shownName(conn), t.Name, role),
		Metadata: map[string]any{"teamId": t.ID, "connectionId": conn.ID, "role": string(role)}}); err != nil {
		return nil, err
	}
	return toTeamMember(m, parties{conns: map[string]*ent.NetworkConnection{conn.ID: conn}}), nil
}

// memberRole is a member's role on an add or invite: admin or member.
func memberRole(r *string) (teammember.Role, error) {
	if r == nil {
		return teammember.RoleMember, nil
	}
	if *r == string(vocab.TeamRoleOwner) {
		return "", apperr.Invalid("role: a team has one owner; add as admin, then hand ownership on with ownerId")
	}
	return teammember.Role(*r), nil
}

// join makes u a member of t in role, joins u to the team's projects and
// writes team_member_added for the one who added and the one added; a
// member already is 409.
func (s *Core) join(ctx context.Context, tx *db.Tx, p *auth.Principal, t *ent.Team, u *ent.User, role teammember.Role) (*ent.TeamMember, error) {
	exists, err := tx.TeamMember.Query().Where(teammember.TeamID(t.ID), teammember.UserID(u.ID)).Exist(ctx)
	if err != nil {
		return nil, err
	}
	if exists {
		return nil, apperr.Conflict("%s is already a member of team %q", u.Username, t.Name)
	}
	if err := s.seatGate(ctx, tx, t); err != nil {
		return nil, err
	}
	now := s.now()
	m, err := tx.TeamMember.Create().SetTeamID(t.ID).SetUserID(u.ID).SetRole(role).
		SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.joinTeamProjects(ctx, tx, t.ID, m); err != nil {
		return nil, err
	}
	for _, who := range unique(p.UserID, u.ID) {
		if err := activity.Write(ctx, tx, activity.Entry{UserID: who, Action: "team_member_added", Actor: p.Actor(), At: now,
			Summary:  fmt.Sprintf("%s joined team %q as %s", u.Name, t.Name, role),
			Metadata: map[string]any{"teamId": t.ID, "userId": u.ID, "role": string(role)}}); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// unique is the distinct ids among ids, in order.
func unique(ids ...string) []string {
	out := ids[:0:0]
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// RemoveTeamMember removes a member; a member may remove only themselves.
func (x *Teams) RemoveTeamMember(ctx context.Context, req *switchboardv1.RemoveTeamMemberRequest) (*switchboardv1.RemoveTeamMemberResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	memberID := strings.TrimSpace(req.GetMemberId())
	if memberID == "" {
		return nil, apperr.Invalid("memberId is required")
	}
	out, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.TeamMember, error) {
		right := TeamManage
		if memberID == p.UserID {
			right = TeamRead // leaving
		}
		t, _, err := teamFor(ctx, tx.Client(), req.GetId(), p.UserID, right)
		if err != nil {
			return nil, err
		}
		m, err := tx.TeamMember.Query().Where(teammember.TeamID(t.ID),
			teammember.Or(teammember.UserID(memberID), teammember.ConnectionID(memberID))).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("member %q not found in this team", memberID)
		} else if err != nil {
			return nil, err
		}
		if m.Role == teammember.RoleOwner {
			return nil, apperr.Forbidden("the owner cannot be removed; hand ownership to an admin first (ownerId)")
		}
		if err := tx.TeamMember.DeleteOne(m).Exec(ctx); err != nil {
			return nil, err
		}
		same := projectmember.UserID(deref(m.UserID))
		if m.UserID == nil {
			same = projectmember.ConnectionID(deref(m.ConnectionID))
		}
		if _, err := tx.ProjectMember.Delete().Where(projectmember.ViaTeamID(t.ID), same).Exec(ctx); err != nil {
			return nil, err
		}
		shown, err := renderTeamMembers(ctx, tx.Client(), []*ent.TeamMember{m})
		if err != nil {
			return nil, err
		}
		tm := shown[0]
		for _, who := range unique(p.UserID, deref(m.UserID)) {
			if who == "" {
				continue
			}
			if err := activity.Write(ctx, tx, activity.Entry{UserID: who, Action: "team_member_removed", Actor: p.Actor(),
				At: s.now(), Summary: fmt.Sprintf("%s left team %q", nameOr(tm), t.Name),
				Metadata: map[string]any{"teamId": t.ID, "memberId": memberID}}); err != nil {
				return nil, err
			}
		}
		return tm, nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RemoveTeamMemberResponse{Member: out}, nil
}

func nameOr(m *switchboardv1.TeamMember) string {
	if m.Name != "" {
		return m.Name
	}
	return m.MemberId
}
