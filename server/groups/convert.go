package groups

import (
	"context"
	"slices"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/projectmember"
	"github.com/switchboard-hq/switchboard/ent/teammember"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

func ts(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t) }

func optTS(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return timestamppb.New(*t)
}

// opt is nil for "", so an empty column renders absent.
func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toTeam(t *ent.Team, role string, members int) *switchboardv1.Team {
	return &switchboardv1.Team{
		Id: t.ID, Name: t.Name, Handle: t.Handle, Description: t.Description, AvatarUrl: t.AvatarURL,
		Visibility: string(t.Visibility), OriginInstanceUrl: t.OriginInstanceURL, IsSelfHosted: t.IsSelfHosted,
		OwnerId: t.OwnerID, Role: opt(role), MemberCount: int32(members),
		CreatedAt: ts(t.CreatedAt), UpdatedAt: ts(t.UpdatedAt),
	}
}

func toProject(p *ent.Project, role string, members int) *switchboardv1.Project {
	return &switchboardv1.Project{
		Id: p.ID, Name: p.Name, Description: p.Description, TeamId: p.TeamID, Color: p.Color,
		Visibility: string(p.Visibility), Status: string(p.Status), Kind: string(p.Kind), LeadId: p.LeadID,
		Role: opt(role), MemberCount: int32(members), CreatedAt: ts(p.CreatedAt), UpdatedAt: ts(p.UpdatedAt),
	}
}

// inviteStatus is an invite's status as read at now: a pending invite past
// its expiry is expired.
func inviteStatus(status string, expires *time.Time, now time.Time) string {
	if status == string(vocab.InviteStatusPending) && expires != nil && now.After(*expires) {
		return string(vocab.InviteStatusExpired)
	}
	return status
}

func toTeamInvite(inv *ent.TeamInvite, now time.Time) *switchboardv1.TeamInvite {
	return &switchboardv1.TeamInvite{
		Id: inv.ID, TeamId: inv.TeamID, Role: string(inv.Role), Message: inv.Message,
		Email: inv.TargetEmail, UserId: inv.TargetUserID, ConnectionId: inv.TargetConnectionID,
		Status: inviteStatus(string(inv.Status), &inv.ExpiresAt, now), InvitedBy: inv.InvitedBy,
		ExpiresAt: ts(inv.ExpiresAt), AnsweredAt: optTS(inv.AnsweredAt), RelayId: inv.RelayID, CreatedAt: ts(inv.CreatedAt),
	}
}

func toProjectInvite(inv *ent.ProjectInvite, projectName string) *switchboardv1.ProjectInvite {
	return &switchboardv1.ProjectInvite{
		Id: inv.ID, ProjectId: inv.ProjectID, ProjectName: projectName, Role: string(inv.Role),
		UserId: inv.TargetUserID, Email: inv.TargetEmail, ConnectionId: inv.TargetConnectionID,
		Status: string(inv.Status), InvitedBy: inv.InvitedBy, Message: inv.Message,
		QueueItemId: inv.QueueItemID, RelayId: inv.RelayID, AnsweredAt: optTS(inv.AnsweredAt), CreatedAt: ts(inv.CreatedAt),
	}
}

// parties are the users and the connections' peers a list of members
// names, by id.
type parties struct {
	users map[string]*ent.User
	conns map[string]*ent.NetworkConnection
}

func partiesOf(ctx context.Context, c *ent.Client, userIDs, connectionIDs []string) (parties, error) {
	users, err := people(ctx, c, userIDs)
	if err != nil {
		return parties{}, err
	}
	conns, err := connections(ctx, c, connectionIDs)
	return parties{users: users, conns: conns}, err
}

// people loads the users named by ids, by id.
func people(ctx context.Context, c *ent.Client, ids []string) (map[string]*ent.User, error) {
	out := make(map[string]*ent.User, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := c.User.Query().Where(user.IDIn(ids...)).
		Select(user.FieldID, user.FieldName, user.FieldUsername, user.FieldAvatar).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, u := range rows {
		out[u.ID] = u
	}
	return out, nil
}

// teamRoleOrder sorts owner, admins, members.
var teamRoleOrder = map[teammember.Role]int{teammember.RoleOwner: 0, teammember.RoleAdmin: 1, teammember.RoleMember: 2}

// teamMembers renders a team's members: owner first, then admins, then
// members, each by when they joined. No emails.
func teamMembers(ctx context.Context, c *ent.Client, teamID string) ([]*switchboardv1.TeamMember, error) {
	rows, err := c.TeamMember.Query().Where(teammember.TeamID(teamID)).
		Order(ent.Asc(teammember.FieldCreatedAt), ent.Asc(teammember.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	sortStable(rows, func(m *ent.TeamMember) int { return teamRoleOrder[m.Role] })
	return renderTeamMembers(ctx, c, rows)
}

// renderTeamMembers renders members with the users and connections they
// name, read once for the list.
func renderTeamMembers(ctx context.Context, c *ent.Client, rows []*ent.TeamMember) ([]*switchboardv1.TeamMember, error) {
	who, err := partiesOf(ctx, c, userIDs(rows, func(m *ent.TeamMember) *string { return m.UserID }),
		userIDs(rows, func(m *ent.TeamMember) *string { return m.ConnectionID }))
	if err != nil {
		return nil, err
	}
	return lists.Map(rows, func(m *ent.TeamMember) *switchboardv1.TeamMember { return toTeamMember(m, who) }), nil
}

func toTeamMember(m *ent.TeamMember, who parties) *switchboardv1.TeamMember {
	tm := &switchboardv1.TeamMember{UserId: m.UserID, ConnectionId: m.ConnectionID, Role: string(m.Role), JoinedAt: ts(m.CreatedAt)}
	if m.UserID != nil {
		tm.MemberId = *m.UserID
		if u := who.users[*m.UserID]; u != nil {
			tm.Name, tm.Username, tm.Avatar = u.Name, &u.Username, u.Avatar
		}
	} else if m.ConnectionID != nil {
		tm.MemberId = *m.ConnectionID
		if c := who.conns[*m.ConnectionID]; c != nil {
			tm.Name, tm.InstanceUrl = shownName(c), &c.PeerInstanceURL
		}
	}
	return tm
}

// shownName is how a connection's peer is named: the name its handshake or
// profile notification recorded, else its email (server/network).
func shownName(c *ent.NetworkConnection) string {
	if c.PeerUserName != "" {
		return c.PeerUserName
	}
	return c.PeerUserEmail
}

// connections loads the connections named by ids, by id.
func connections(ctx context.Context, c *ent.Client, ids []string) (map[string]*ent.NetworkConnection, error) {
	out := make(map[string]*ent.NetworkConnection, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := c.NetworkConnection.Query().Where(networkconnection.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, nil
}

var projectRoleOrder = map[projectmember.Role]int{projectmember.RoleLead: 0, projectmember.RoleContributor: 1,
	projectmember.RoleReviewer: 2, projectmember.RoleObserver: 3}

// projectMembers renders a project's members: the lead, contributors,
// reviewers, observers, each by when they joined.
func projectMembers(ctx context.Context, c *ent.Client, projectID string) ([]*switchboardv1.ProjectMember, error) {
	rows, err := c.ProjectMember.Query().Where(projectmember.ProjectID(projectID)).
		Order(ent.Asc(projectmember.FieldCreatedAt), ent.Asc(projectmember.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	sortStable(rows, func(m *ent.ProjectMember) int { return projectRoleOrder[m.Role] })
	return renderProjectMembers(ctx, c, rows)
}

// renderProjectMembers renders members with the users and connections they
// name, read once for the list.
func renderProjectMembers(ctx context.Context, c *ent.Client, rows []*ent.ProjectMember) ([]*switchboardv1.ProjectMember, error) {
	who, err := partiesOf(ctx, c, userIDs(rows, func(m *ent.ProjectMember) *string { return m.UserID }),
		userIDs(rows, func(m *ent.ProjectMember) *string { return m.ConnectionID }))
	if err != nil {
		return nil, err
	}
	return lists.Map(rows, func(m *ent.ProjectMember) *switchboardv1.ProjectMember { return toProjectMember(m, who) }), nil
}

func toProjectMember(m *ent.ProjectMember, who parties) *switchboardv1.ProjectMember {
	pm := &switchboardv1.ProjectMember{UserId: m.UserID, ConnectionId: m.ConnectionID, Role: string(m.Role),
		Via: string(vocab.ProjectMemberViaDirect), JoinedAt: ts(m.CreatedAt)}
	if m.ViaTeamID != nil {
		pm.Via = string(vocab.ProjectMemberViaTeam)
	}
	if m.UserID != nil {
		pm.MemberId = *m.UserID
		if u := who.users[*m.UserID]; u != nil {
			pm.Name, pm.Username, pm.Avatar = u.Name, &u.Username, u.Avatar
		}
	} else if m.ConnectionID != nil {
		pm.MemberId = *m.ConnectionID
		if c := who.conns[*m.ConnectionID]; c != nil {
			pm.Name, pm.InstanceUrl = shownName(c), &c.PeerInstanceURL
		}
	}
	return pm
}

func userIDs[T any](rows []T, id func(T) *string) []string {
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		if p := id(r); p != nil {
			out = append(out, *p)
		}
	}
	return out
}

// sortStable orders rows by key, keeping the order of equal keys.
func sortStable[T any](rows []T, key func(T) int) {
	slices.SortStableFunc(rows, func(a, b T) int { return key(a) - key(b) })
}
