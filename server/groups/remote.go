package groups

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/project"
	"github.com/switchboard-hq/switchboard/ent/projectinvite"
	"github.com/switchboard-hq/switchboard/ent/projectmember"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/ent/team"
	"github.com/switchboard-hq/switchboard/ent/teaminvite"
	"github.com/switchboard-hq/switchboard/ent/teammember"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/runes"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/accounts"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/network/rules"
)

// Invites and members over the operator network (issue 28 points 2, 4, 6):
// the inviting side sends a relay (intent introduce, payload kind
// project_invite or team_invite) and learns the answer from the relay's
// ack (network.RelayAcked); the invited side keeps a mirror of the team or
// project once its user approves the relay's item, which later relays from
// that connection naming the origin's id resolve to.

// Relays is what invites over the network need of the operator's relays
// (server/network/relays.Service).
type Relays interface {
	SendRelay(ctx context.Context, req *switchboardv1.SendRelayRequest) (*switchboardv1.SendRelayResponse, error)
}

// Notifier sends a notification to a connection's peer
// (server/network/operator.Service).
type Notifier interface {
	SendNotification(ctx context.Context, req *switchboardv1.SendNotificationRequest) (*switchboardv1.SendNotificationResponse, error)
}

// inviteRelay sends an invite's relay to the connection's peer, after the
// invite's unit of work: sent, the invite records the relay; refused, the
// invite is cancelled and the refusal answered.
func (s *Core) inviteRelay(ctx context.Context, connectionID, subject string, payload map[string]any,
	record func(ctx context.Context, tx *db.Tx, relayID string) error, cancel func(ctx context.Context, tx *db.Tx) error) (string, error) {
	st, err := structpb.NewStruct(payload)
	if err != nil {
		return "", err
	}
	res, err := s.Relays.SendRelay(ctx, &switchboardv1.SendRelayRequest{ConnectionId: connectionID, Subject: subject,
		Intent: rules.IntentIntroduce, Type: rules.TypeRequest, Payload: st})
	if err != nil {
		if cerr := s.DB.InTx(ctx, func(tx *db.Tx) error { return cancel(ctx, tx) }); cerr != nil {
			s.Logger.Error("groups: cancelling an invite whose relay failed", "error", cerr)
		}
		return "", err
	}
	id := res.GetRelay().GetId()
	return id, s.DB.InTx(ctx, func(tx *db.Tx) error { return record(ctx, tx, id) })
}

// notify tells a connection's peer something; the change it reports has
// committed, so a failure is logged, not answered.
func (s *Core) notify(ctx context.Context, connectionID, typ, title, body string, meta map[string]any) {
	st, err := structpb.NewStruct(meta)
	if err == nil {
		_, err = s.Notify.SendNotification(ctx, &switchboardv1.SendNotificationRequest{ConnectionId: connectionID,
			Type: typ, Title: title, Body: body, Metadata: st})
	}
	if err != nil {
		s.Logger.Warn("groups: notifying a connection's peer", "connectionId", connectionID, "type", typ, "error", err)
	}
}

// RelayAcked answers the invite whose relay the peer acked
// (network.RelayAcked): accepted (or completed) adds the connection's peer
// as a member in the invite's role, declined declines.
func (s *Core) RelayAcked(ctx context.Context, tx *db.Tx, r *ent.Relay, state string) error {
	accept := state == string(vocab.RelayStateAccepted) || state == string(vocab.RelayStateCompleted)
	if !accept && state != string(vocab.RelayStateDeclined) {
		return nil
	}
	now := s.now()
	if inv, err := tx.ProjectInvite.Query().Where(projectinvite.RelayID(r.ID), projectinvite.StatusEQ(projectinvite.StatusPending)).
		WithProject().Only(ctx); err == nil {
		status, action := projectinvite.StatusDeclined, "project_invite_declined"
		if accept {
			status, action = projectinvite.StatusAccepted, "project_invite_accepted"
			if err := s.joinRemote(ctx, tx, inv.ProjectID, r.ConnectionID, projectmember.Role(inv.Role)); err != nil {
				return err
			}
		}
		if err := inv.Update().SetStatus(status).SetAnsweredAt(now).SetUpdatedAt(now).Exec(ctx); err != nil {
			return err
		}
		if err := s.tellInviter(ctx, tx, inv.InvitedBy, fmt.Sprintf("Your invite to project %q was %s over the network.",
			inv.Edges.Project.Name, status), inv.ID, inv.ProjectID, string(status)); err != nil {
			return err
		}
		return activity.Write(ctx, tx, activity.Entry{UserID: inv.InvitedBy, Action: action, Actor: "network", At: now,
			Summary:  fmt.Sprintf("The invite to project %q was %s over the network", inv.Edges.Project.Name, status),
			Metadata: map[string]any{"projectId": inv.ProjectID, "inviteId": inv.ID, "connectionId": r.ConnectionID}})
	} else if !ent.IsNotFound(err) {
		return err
	}
	inv, err := tx.TeamInvite.Query().Where(teaminvite.RelayID(r.ID), teaminvite.StatusEQ(teaminvite.StatusPending)).
		WithTeam().Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	status := teaminvite.StatusDeclined
	if accept {
		status = teaminvite.StatusAccepted
		exists, err := tx.TeamMember.Query().Where(teammember.TeamID(inv.TeamID), teammember.ConnectionID(r.ConnectionID)).Exist(ctx)
		if err != nil {
			return err
		}
		if !exists {
			m, err := tx.TeamMember.Create().SetTeamID(inv.TeamID).SetConnectionID(r.ConnectionID).
				SetRole(teammember.Role(inv.Role)).SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
			if err != nil {
				return err
			}
			if err := s.joinTeamProjects(ctx, tx, inv.TeamID, m); err != nil {
				return err
			}
			if err := activity.Write(ctx, tx, activity.Entry{UserID: inv.InvitedBy, Action: "team_member_added", Actor: "network",
				At: now, Summary: fmt.Sprintf("A connection's peer joined team %q as %s", inv.Edges.Team.Name, inv.Role),
				Metadata: map[string]any{"teamId": inv.TeamID, "connectionId": r.ConnectionID}}); err != nil {
				return err
			}
		}
	}
	return inv.Update().SetStatus(status).SetAnsweredAt(now).SetUpdatedAt(now).Exec(ctx)
}

// joinRemote makes a connection's peer a member of a project, unless it is.
func (s *Core) joinRemote(ctx context.Context, tx *db.Tx, projectID, connectionID string, role projectmember.Role) error {
	exists, err := tx.ProjectMember.Query().Where(projectmember.ProjectID(projectID), projectmember.ConnectionID(connectionID)).Exist(ctx)
	if err != nil || exists {
		return err
	}
	now := s.now()
	return tx.ProjectMember.Create().SetProjectID(projectID).SetConnectionID(connectionID).SetRole(role).
		SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx)
}

// relayInvite is what an invite relay's item carries: its connection and
// the relay's payload (server/network's item metadata).
type relayInvite struct {
	ConnectionID string         `json:"connectionId"`
	Payload      map[string]any `json:"relayPayload"`
}

func (r relayInvite) text(key string) string {
	v, _ := r.Payload[key].(string)
	return strings.TrimSpace(v)
}

// joinedOverNetwork is the invited side of an invite relay: when its user
// approves the relay's item, this side keeps a mirror of the team or
// project (RULINGS: the relay mirror), with the user in the invite's role
// and the inviting peer as its lead or owner; the item is then completed,
// so the relay reads completed on the inviting side. Other items: nothing.
func (s *Core) joinedOverNetwork(ctx context.Context, tx *db.Tx, it *ent.QueueItem, from string) (bool, error) {
	if it.TaskOrigin != queueitem.TaskOriginFederation || from != string(vocab.QueueStatusPendingConfirmation) ||
		it.Status != queueitem.StatusReady {
		return false, nil
	}
	var ri relayInvite
	if json.Unmarshal([]byte(it.Metadata), &ri) != nil || ri.ConnectionID == "" {
		return false, nil
	}
	var err error
	switch ri.text("kind") {
	case rules.PayloadProjectInvite:
		err = s.mirrorProject(ctx, tx, it.UserID, ri)
	case rules.PayloadTeamInvite:
		err = s.mirrorTeam(ctx, tx, it.UserID, ri)
	default:
		return false, nil
	}
	if err != nil {
		return false, err
	}
	userID, itemID := it.UserID, it.ID
	tx.AfterCommit(func() {
		if err := s.Queue.Finish(context.Background(), userID, itemID, "Joined over the network"); err != nil {
			s.Logger.Error("groups: completing an accepted invite's item", "queueItemId", itemID, "error", err)
		}
	})
	return true, nil
}

func (s *Core) mirrorProject(ctx context.Context, tx *db.Tx, userID string, ri relayInvite) error {
	originID := ri.text("projectId")
	if originID == "" {
		return nil
	}
	role := projectmember.Role(ri.text("role"))
	if projectmember.RoleValidator(role) != nil || role == projectmember.RoleLead {
		role = projectmember.RoleContributor
	}
	now := s.now()
	p, err := tx.Project.Query().Where(project.OriginConnectionID(ri.ConnectionID), project.OriginID(originID)).Only(ctx)
	if ent.IsNotFound(err) {
		name := runes.Prefix(ri.text("projectName"), 200)
		if name == "" {
			name = "Shared project"
		}
		color := ri.text("color")
		if !ValidColor(color) {
			color = DefaultColor
		}
		create := tx.Project.Create().SetName(name).SetColor(color).SetLeadID(ri.ConnectionID).
			SetOriginConnectionID(ri.ConnectionID).SetOriginID(originID).SetCreatedAt(now).SetUpdatedAt(now)
		if d := ri.text("description"); d != "" {
			create.SetDescription(runes.Prefix(d, 5000))
		}
		if p, err = create.Save(ctx); err != nil {
			return err
		}
		if err := s.joinRemote(ctx, tx, p.ID, ri.ConnectionID, projectmember.RoleLead); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	exists, err := tx.ProjectMember.Query().Where(projectmember.ProjectID(p.ID), projectmember.UserID(userID)).Exist(ctx)
	if err != nil || exists {
		return err
	}
	if err := tx.ProjectMember.Create().SetProjectID(p.ID).SetUserID(userID).SetRole(role).
		SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx); err != nil {
		return err
	}
	return activity.Write(ctx, tx, activity.Entry{UserID: userID, Action: "project_invite_accepted", Actor: "network", At: now,
		Summary:  fmt.Sprintf("Joined project %q over the network as %s", p.Name, role),
		Metadata: map[string]any{"projectId": p.ID, "connectionId": ri.ConnectionID, "originProjectId": originID}})
}

func (s *Core) mirrorTeam(ctx context.Context, tx *db.Tx, userID string, ri relayInvite) error {
	originID := ri.text("teamId")
	if originID == "" {
		return nil
	}
	role := teammember.Role(ri.text("role"))
	if teammember.RoleValidator(role) != nil || role == teammember.RoleOwner {
		role = teammember.RoleMember
	}
	now := s.now()
	t, err := tx.Team.Query().Where(team.OriginConnectionID(ri.ConnectionID), team.OriginID(originID)).Only(ctx)
	if ent.IsNotFound(err) {
		name := runes.Prefix(ri.text("teamName"), 200)
		if name == "" {
			name = "Shared team"
		}
		h, err := s.freeHandle(ctx, tx, Kebab(cmpOr(ri.text("teamHandle"), name)))
		if err != nil {
			return err
		}
		if t, err = tx.Team.Create().SetName(name).SetHandle(h).SetVisibility(team.VisibilityPrivate).
			SetIsSelfHosted(true).SetOwnerID(ri.ConnectionID).SetOriginConnectionID(ri.ConnectionID).SetOriginID(originID).
			SetCreatedAt(now).SetUpdatedAt(now).Save(ctx); err != nil {
			return err
		}
		if err := tx.TeamMember.Create().SetTeamID(t.ID).SetConnectionID(ri.ConnectionID).SetRole(teammember.RoleOwner).
			SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	exists, err := tx.TeamMember.Query().Where(teammember.TeamID(t.ID), teammember.UserID(userID)).Exist(ctx)
	if err != nil || exists {
		return err
	}
	if err := tx.TeamMember.Create().SetTeamID(t.ID).SetUserID(userID).SetRole(role).
		SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx); err != nil {
		return err
	}
	return activity.Write(ctx, tx, activity.Entry{UserID: userID, Action: "team_member_added", Actor: "network", At: now,
		Summary:  fmt.Sprintf("Joined team %q over the network as %s", t.Name, role),
		Metadata: map[string]any{"teamId": t.ID, "connectionId": ri.ConnectionID, "originTeamId": originID}})
}

// freeHandle is want, or want with the first free number after it: a
// mirror's handle is this instance's, in its one namespace.
func (s *Core) freeHandle(ctx context.Context, tx *db.Tx, want string) (string, error) {
	if handleProblem(want) != "" {
		want = "team"
	}
	for i := 1; i <= 50; i++ {
		h := want
		if i > 1 {
			suffix := fmt.Sprintf("-%d", i)
			h = strings.TrimRight(runes.Prefix(want, maxHandle-len(suffix)), "-") + suffix
		}
		taken, err := accounts.HandleTaken(ctx, tx, h)
		if err != nil {
			return "", err
		}
		if !taken && handleProblem(h) == "" {
			return h, nil
		}
	}
	return "", fmt.Errorf("groups: no free handle near %q", want)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
