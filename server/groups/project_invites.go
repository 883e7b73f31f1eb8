package groups

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/projectinvite"
	"github.com/switchboard-hq/switchboard/ent/projectmember"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/runes"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/network/rules"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

// inviteMetaKey names the invite in its queue item's metadata.
const inviteMetaKey = "projectInviteId"

// InviteToProject invites a local user (a queue item and a comms message in
// their queue) or an email no user has yet (the invite waits for them).
func (x *Projects) InviteToProject(ctx context.Context, req *switchboardv1.InviteToProjectRequest) (*switchboardv1.InviteToProjectResponse, error) {
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
	var pr *ent.Project
	out, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.ProjectInvite, error) {
		var err error
		pr, _, err = projectFor(ctx, tx.Client(), req.GetId(), p.UserID, ProjectInvite)
		if err != nil {
			return nil, err
		}
		u, err := local(ctx, tx.Client(), tg, tg.userID != "")
		if err != nil {
			return nil, err
		}
		create := tx.ProjectInvite.Create().SetProjectID(pr.ID).SetRole(projectinvite.Role(role)).
			SetInvitedBy(p.UserID).SetNillableMessage(req.Message)
		same := projectinvite.TargetEmailEqualFold(tg.email)
		if tg.connectionID != "" {
			conn, err := peerOf(ctx, tx.Client(), p.UserID, tg.connectionID)
			if err != nil {
				return nil, err
			}
			member, err := tx.ProjectMember.Query().Where(projectmember.ProjectID(pr.ID), projectmember.ConnectionID(conn.ID)).Exist(ctx)
			if err != nil {
				return nil, err
			}
			if member {
				return nil, apperr.Conflict("this connection's peer is already a member of project %q", pr.Name)
			}
			create.SetTargetConnectionID(conn.ID)
			same = projectinvite.TargetConnectionID(conn.ID)
		} else if u != nil {
			member, err := tx.ProjectMember.Query().Where(projectmember.ProjectID(pr.ID), projectmember.UserID(u.ID),
				projectmember.ViaTeamIDIsNil()).Exist(ctx)
			if err != nil {
				return nil, err
			}
			if member {
				return nil, apperr.Conflict("%s is already a member of project %q", u.Username, pr.Name)
			}
			create.SetTargetUserID(u.ID)
			same = projectinvite.Or(projectinvite.TargetUserID(u.ID), projectinvite.TargetEmailEqualFold(u.Email))
		} else if tg.email != "" {
			create.SetTargetEmail(tg.email)
		}
		if err := s.replacePending(ctx, tx, pr.ID, same, req.GetForce()); err != nil {
			return nil, err
		}
		now := s.now()
		inv, err := create.SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
		if err != nil {
			return nil, err
		}
		if u != nil {
			if inv, err = s.deliver(ctx, tx, p, pr, inv, u); err != nil {
				return nil, err
			}
		}
		if err := activity.Write(ctx, tx, activity.Entry{UserID: p.UserID, Action: "project_invite_sent", Actor: p.Actor(), At: now,
			Summary:  fmt.Sprintf("Invited %s to project %q as %s", firstOf(u, cmpOr(tg.email, "a connection's peer")), pr.Name, role),
			Metadata: map[string]any{"projectId": pr.ID, "inviteId": inv.ID}}); err != nil {
			return nil, err
		}
		return toProjectInvite(inv, pr.Name), nil
	})
	if err != nil {
		return nil, err
	}
	if c := tg.connectionID; c != "" {
		// A relay the peer's user approves or declines (its ack answers the
		// invite) and a project_invite notification (document 2 "Events").
		id, err := s.inviteRelay(ctx, c, "Join project "+pr.Name, map[string]any{
			"kind": rules.PayloadProjectInvite, "projectId": pr.ID, "projectName": pr.Name, "description": deref(pr.Description),
			"color": pr.Color, "inviteId": out.Id, "role": out.Role, "message": deref(out.Message), "inviterName": p.Name,
		}, func(ctx context.Context, tx *db.Tx, relayID string) error {
			return tx.ProjectInvite.UpdateOneID(out.Id).SetRelayID(relayID).Exec(ctx)
		}, func(ctx context.Context, tx *db.Tx) error {
			return tx.ProjectInvite.UpdateOneID(out.Id).SetStatus(projectinvite.StatusCancelled).SetAnsweredAt(s.now()).Exec(ctx)
		})
		if err != nil {
			return nil, err
		}
		out.RelayId = &id
		s.notify(ctx, c, string(vocab.NotificationTypeProjectInvite), "Invite to project "+pr.Name,
			fmt.Sprintf("%s invites you to project %q as %s.", p.Name, pr.Name, out.Role),
			map[string]any{"projectId": pr.ID, "inviteId": out.Id, "role": out.Role})
	}
	return &switchboardv1.InviteToProjectResponse{Invite: out}, nil
}

func firstOf(u *ent.User, email string) string {
	if u != nil {
		return u.Name
	}
	return email
}

// replacePending refuses a second pending invite of one target (409
// ALREADY_INVITED) or, forced, cancels the old one and its queue item.
func (s *Core) replacePending(ctx context.Context, tx *db.Tx, projectID string, same predicate.ProjectInvite, force bool) error {
	old, err := tx.ProjectInvite.Query().Where(projectinvite.ProjectID(projectID),
		projectinvite.StatusEQ(projectinvite.StatusPending), same).All(ctx)
	if err != nil {
		return err
	}
	for _, o := range old {
		if !force {
			return alreadyInvited(o.ID)
		}
		if err := s.close(ctx, tx, o, projectinvite.StatusCancelled); err != nil {
			return err
		}
	}
	return nil
}

// deliver puts the invite in the invitee's queue (type notification,
// waiting for their answer whatever their auto-approve) and posts a comms
// message there.
func (s *Core) deliver(ctx context.Context, tx *db.Tx, p *auth.Principal, pr *ent.Project, inv *ent.ProjectInvite, u *ent.User) (*ent.ProjectInvite, error) {
	meta, err := json.Marshal(map[string]any{inviteMetaKey: inv.ID, "projectId": pr.ID, "role": string(inv.Role)})
	if err != nil {
		return nil, err
	}
	desc := fmt.Sprintf("%s invites you to project %q as %s. Approve to join, reject to decline.", p.Name, pr.Name, inv.Role)
	if inv.Message != nil {
		desc += "\n\n" + *inv.Message
	}
	title := "Join project " + pr.Name
	typ, metaText := string(vocab.QueueTypeNotification), string(meta)
	it, err := s.Queue.CreateHeld(ctx, tx, sessionOf(u), &switchboardv1.CreateQueueItemRequest{
		Title: runes.Prefix(title, 500), Description: &desc, Type: &typ, Metadata: &metaText,
	}, provenance.Mark{Kind: provenance.User, Ref: p.UserID})
	if err != nil {
		return nil, err
	}
	if _, err := comms.Post(ctx, tx, s.now(), u.ID, desc, "switchboard", map[string]any{
		"type": "project_invite", inviteMetaKey: inv.ID, "projectId": pr.ID, "queueItemId": it.ID,
	}); err != nil {
		return nil, err
	}
	return inv.Update().SetQueueItemID(it.ID).Save(ctx)
}

// ListProjectInvites lists a project's pending invites (members).
func (x *Projects) ListProjectInvites(ctx context.Context, req *switchboardv1.ListProjectInvitesRequest) (*switchboardv1.ListProjectInvitesResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pr, role, err := projectFor(ctx, s.DB.Client, req.GetId(), p.UserID, ProjectRead)
	if err != nil {
		return nil, err
	}
	if role == "" {
		return nil, apperr.NotFound("project %q not found", req.GetId())
	}
	invites, err := s.pendingInvites(ctx, s.DB.Client, pr)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListProjectInvitesResponse{Invites: invites}, nil
}

// AnswerProjectInvite accepts or declines an invite made to the caller.
func (x *Projects) AnswerProjectInvite(ctx context.Context, req *switchboardv1.AnswerProjectInviteRequest) (*switchboardv1.AnswerProjectInviteResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSpace(req.GetInviteId())
	if id == "" || req.GetAction() == "" {
		return nil, apperr.Invalid("inviteId and action (accept or decline) are required")
	}
	return db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.AnswerProjectInviteResponse, error) {
		inv, err := tx.ProjectInvite.Query().Where(projectinvite.ID(id)).WithProject().Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("project invite %q not found", id)
		} else if err != nil {
			return nil, err
		}
		me, err := tx.User.Get(ctx, p.UserID)
		if err != nil {
			return nil, err
		}
		if !invitee(inv, me) {
			return nil, apperr.Forbidden("this invite was made for someone else")
		}
		if inv.Status != projectinvite.StatusPending {
			return nil, apperr.Conflict("this invite was already %s", inv.Status)
		}
		return s.answer(ctx, tx, p, me, inv, req.GetAction() == string(vocab.InviteActionAccept))
	})
}

// invitee says whether u is who inv invites.
func invitee(inv *ent.ProjectInvite, u *ent.User) bool {
	switch {
	case inv.TargetUserID != nil:
		return *inv.TargetUserID == u.ID
	case inv.TargetEmail != nil:
		return strings.EqualFold(*inv.TargetEmail, u.Email)
	}
	return false
}

// answer accepts (the membership) or declines a pending invite, removes its
// queue item and writes the activity for both sides.
func (s *Core) answer(ctx context.Context, tx *db.Tx, p *auth.Principal, me *ent.User, inv *ent.ProjectInvite, accept bool) (*switchboardv1.AnswerProjectInviteResponse, error) {
	pr := inv.Edges.Project
	out := &switchboardv1.AnswerProjectInviteResponse{}
	status, action := projectinvite.StatusDeclined, "project_invite_declined"
	if accept {
		status, action = projectinvite.StatusAccepted, "project_invite_accepted"
		if _, err := s.joinProject(ctx, tx, p, pr, me, projectmember.Role(inv.Role)); err != nil {
			return nil, err
		}
		n, err := projectSize(ctx, tx.Client(), pr.ID)
		if err != nil {
			return nil, err
		}
		out.Project = toProject(pr, string(inv.Role), n)
	}
	if err := s.close(ctx, tx, inv, status); err != nil {
		return nil, err
	}
	now := s.now()
	for _, who := range unique(inv.InvitedBy, me.ID) {
		if err := activity.Write(ctx, tx, activity.Entry{UserID: who, Action: action, Actor: p.Actor(), At: now,
			Summary:  fmt.Sprintf("%s %s the invite to project %q", me.Name, status, pr.Name),
			Metadata: map[string]any{"projectId": pr.ID, "inviteId": inv.ID}}); err != nil {
			return nil, err
		}
	}
	if err := s.tellInviter(ctx, tx, inv.InvitedBy, fmt.Sprintf("%s %s your invite to project %q.", me.Name, status, pr.Name),
		inv.ID, pr.ID, string(status)); err != nil {
		return nil, err
	}
	inv.Status, inv.AnsweredAt = status, &now
	out.Invite = toProjectInvite(inv, pr.Name)
	return out, nil
}

// commsInviteAnswered is the comms message type of an answered invite.
const commsInviteAnswered = "project_invite_answered"

// tellInviter posts the invite's answer in the inviter's comms (document 2
// "Events": comms messages on project invites).
func (s *Core) tellInviter(ctx context.Context, tx *db.Tx, inviterID, text, inviteID, projectID, status string) error {
	_, err := comms.Post(ctx, tx, s.now(), inviterID, text, "switchboard", map[string]any{
		"type": commsInviteAnswered, inviteMetaKey: inviteID, "projectId": projectID, "status": status,
	})
	return err
}

// close ends a pending invite in status and deletes its queue item.
func (s *Core) close(ctx context.Context, tx *db.Tx, inv *ent.ProjectInvite, status projectinvite.Status) error {
	now := s.now()
	n, err := tx.ProjectInvite.Update().Where(projectinvite.ID(inv.ID), projectinvite.StatusEQ(projectinvite.StatusPending)).
		SetStatus(status).SetAnsweredAt(now).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return apperr.Conflict("this invite was answered meanwhile")
	}
	if inv.QueueItemID != nil && inv.TargetUserID != nil {
		return s.Queue.Discard(ctx, tx, *inv.TargetUserID, *inv.QueueItemID)
	}
	return nil
}

// inviteOfItem is the pending invite an item of the queue stands for, nil
// for any other item.
func inviteOfItem(ctx context.Context, tx *db.Tx, it *ent.QueueItem) (*ent.ProjectInvite, error) {
	if it.Type != queueitem.TypeNotification || it.Metadata == "" {
		return nil, nil
	}
	var meta map[string]any
	if json.Unmarshal([]byte(it.Metadata), &meta) != nil {
		return nil, nil
	}
	id, _ := meta[inviteMetaKey].(string)
	if id == "" {
		return nil, nil
	}
	inv, err := tx.ProjectInvite.Query().Where(projectinvite.ID(id), projectinvite.QueueItemID(it.ID),
		projectinvite.StatusEQ(projectinvite.StatusPending)).WithProject().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return inv, err
}

// ItemMoved accepts the invite whose queue item its invitee approved
// (server/subscriptions.go, queue.ItemMoved); the item then goes, after the
// approval has committed.
func (s *Core) ItemMoved(ctx context.Context, tx *db.Tx, it *ent.QueueItem, from string) error {
	if joined, err := s.joinedOverNetwork(ctx, tx, it, from); err != nil || joined {
		return err
	}
	if from != string(vocab.QueueStatusPendingConfirmation) || it.Status != queueitem.StatusReady {
		return nil
	}
	inv, err := inviteOfItem(ctx, tx, it)
	if err != nil || inv == nil {
		return err
	}
	// The item is being moved in this unit of work: it is deleted after.
	if err := s.answerFromItem(ctx, tx, it, inv, true); err != nil {
		return err
	}
	userID, itemID := it.UserID, it.ID
	tx.AfterCommit(func() { s.discardLater(userID, itemID) })
	return nil
}

// discardLater deletes an approved invite's item in its own unit of work.
func (s *Core) discardLater(userID, itemID string) {
	ctx := context.Background()
	if err := s.DB.InTx(ctx, func(tx *db.Tx) error { return s.Queue.Discard(ctx, tx, userID, itemID) }); err != nil {
		s.Logger.Error("groups: removing an accepted invite's queue item", "queueItemId", itemID, "error", err)
	}
}

// ItemRemoved declines the invite whose queue item its invitee rejected or
// deleted (queue.ItemRemoved).
func (s *Core) ItemRemoved(ctx context.Context, tx *db.Tx, it *ent.QueueItem) error {
	inv, err := inviteOfItem(ctx, tx, it)
	if err != nil || inv == nil {
		return err
	}
	return s.answerFromItem(ctx, tx, it, inv, false) // the item is already gone
}

// answerFromItem answers inv as its item's owner, leaving the item to the
// queue's own change of it.
func (s *Core) answerFromItem(ctx context.Context, tx *db.Tx, it *ent.QueueItem, inv *ent.ProjectInvite, accept bool) error {
	me, err := tx.User.Get(ctx, it.UserID)
	if err != nil {
		return err
	}
	inv.QueueItemID = nil
	_, err = s.answer(ctx, tx, sessionOf(me), me, inv, accept)
	return err
}

// sessionOf is u acting in the dashboard: the principal of what u does by
// answering a queue item, and of an item made for u.
func sessionOf(u *ent.User) *auth.Principal {
	return &auth.Principal{UserID: u.ID, Username: u.Username, Name: u.Name, Role: string(u.Role), Via: auth.ViaSession}
}
