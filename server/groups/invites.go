package groups

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/teaminvite"
	"github.com/switchboard-hq/switchboard/ent/teammember"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network/rules"
)

// InviteLifetime is how long a team invite can be answered (document 2
// "Limits": team invite expiry).
const InviteLifetime = 7 * 24 * time.Hour

// CodeInviteExpired is the refusal code of an expired invite (410).
const CodeInviteExpired = "INVITE_EXPIRED"

// CodeAlreadyInvited is the refusal code of a duplicate pending invite (409).
const CodeAlreadyInvited = "ALREADY_INVITED"

// newToken is an invite token, 32 random bytes as base64url, and its hash.
func newToken() (token, hash string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, tokenHash(token)
}

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// inviteURL is where the dashboard previews and answers an invite.
func (s *Core) inviteURL(token string) string {
	return strings.TrimRight(s.PublicURL, "/") + "/#/invite/" + token
}

// alreadyInvited is the 409 of a second pending invite of one target.
func alreadyInvited(inviteID string) error {
	return &apperr.Error{Kind: apperr.KindConflict,
		Message: fmt.Sprintf("this person already has a pending invite (%s); send force: true to replace it", inviteID),
		Detail:  &switchboardv1.ErrorInfo{Code: CodeAlreadyInvited, InviteId: &inviteID}}
}

// CreateTeamInvite makes a token invite; the token is answered once.
func (x *Teams) CreateTeamInvite(ctx context.Context, req *switchboardv1.CreateTeamInviteRequest) (*switchboardv1.CreateTeamInviteResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	tg, err := pickTarget(req.Email, req.UserId, req.ConnectionId, true)
	if err != nil {
		return nil, err
	}
	role, err := memberRole(req.Role)
	if err != nil {
		return nil, err
	}
	token, hash := newToken()
	var t *ent.Team
	inv, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.TeamInvite, error) {
		var err error
		t, _, err = teamFor(ctx, tx.Client(), req.GetId(), p.UserID, TeamManage)
		if err != nil {
			return nil, err
		}
		u, err := local(ctx, tx.Client(), tg, tg.userID != "")
		if err != nil {
			return nil, err
		}
		create := tx.TeamInvite.Create().SetTeamID(t.ID).SetTokenHash(hash).SetRole(teaminvite.Role(role)).
			SetNillableMessage(req.Message).SetInvitedBy(p.UserID)
		// The same person by email or by id is one target.
		same := []*ent.TeamInviteQuery{}
		switch {
		case tg.connectionID != "":
			conn, err := peerOf(ctx, tx.Client(), p.UserID, tg.connectionID)
			if err != nil {
				return nil, err
			}
			member, err := tx.TeamMember.Query().Where(teammember.TeamID(t.ID), teammember.ConnectionID(conn.ID)).Exist(ctx)
			if err != nil {
				return nil, err
			}
			if member {
				return nil, apperr.Conflict("this connection's peer is already a member of team %q", t.Name)
			}
			// Its answer arrives as an ack, which cannot be refused: the
			// seat is checked now.
			if err := s.seatGate(ctx, tx, t); err != nil {
				return nil, err
			}
			create.SetTargetConnectionID(conn.ID)
			same = append(same, tx.TeamInvite.Query().Where(teaminvite.TargetConnectionID(conn.ID)))
		case u != nil:
			member, err := tx.TeamMember.Query().Where(teammember.TeamID(t.ID), teammember.UserID(u.ID)).Exist(ctx)
			if err != nil {
				return nil, err
			}
			if member {
				return nil, apperr.Conflict("%s is already a member of team %q", u.Username, t.Name)
			}
			create.SetTargetUserID(u.ID)
			same = append(same, tx.TeamInvite.Query().Where(teaminvite.TargetUserID(u.ID)),
				tx.TeamInvite.Query().Where(teaminvite.TargetEmailEqualFold(u.Email)))
		case tg.email != "":
			create.SetTargetEmail(tg.email)
			same = append(same, tx.TeamInvite.Query().Where(teaminvite.TargetEmailEqualFold(tg.email)))
		}
		now := s.now()
		for _, q := range same {
			old, err := q.Where(teaminvite.TeamID(t.ID), teaminvite.StatusEQ(teaminvite.StatusPending),
				teaminvite.ExpiresAtGTE(now)).First(ctx)
			if ent.IsNotFound(err) {
				continue
			} else if err != nil {
				return nil, err
			}
			if !req.GetForce() {
				return nil, alreadyInvited(old.ID)
			}
			if err := old.Update().SetStatus(teaminvite.StatusCancelled).SetAnsweredAt(now).SetUpdatedAt(now).Exec(ctx); err != nil {
				return nil, err
			}
		}
		return create.SetExpiresAt(now.Add(InviteLifetime)).SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	if tg.connectionID != "" {
		// The invite travels as a relay whose ack answers it (RULINGS).
		id, err := s.inviteRelay(ctx, tg.connectionID, "Join team "+t.Name, map[string]any{
			"kind": rules.PayloadTeamInvite, "teamId": t.ID, "teamName": t.Name, "teamHandle": t.Handle, "inviteId": inv.ID,
			"role": string(inv.Role), "message": deref(inv.Message), "inviterName": p.Name, "url": s.inviteURL(token),
			"expiresAt": inv.ExpiresAt.Format(time.RFC3339),
		}, func(ctx context.Context, tx *db.Tx, relayID string) error {
			return tx.TeamInvite.UpdateOneID(inv.ID).SetRelayID(relayID).Exec(ctx)
		}, func(ctx context.Context, tx *db.Tx) error {
			return tx.TeamInvite.UpdateOneID(inv.ID).SetStatus(teaminvite.StatusCancelled).SetAnsweredAt(s.now()).Exec(ctx)
		})
		if err != nil {
			return nil, err
		}
		inv.RelayID = &id
	}
	return &switchboardv1.CreateTeamInviteResponse{InviteId: inv.ID, Token: token, Url: s.inviteURL(token),
		ExpiresAt: ts(inv.ExpiresAt), Invite: toTeamInvite(inv, s.now())}, nil
}

// ListTeamInvites lists a team's invites, newest first.
func (x *Teams) ListTeamInvites(ctx context.Context, req *switchboardv1.ListTeamInvitesRequest) (*switchboardv1.ListTeamInvitesResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	t, _, err := teamFor(ctx, s.DB.Client, req.GetId(), p.UserID, TeamRead)
	if err != nil {
		return nil, err
	}
	rows, err := s.DB.TeamInvite.Query().Where(teaminvite.TeamID(t.ID)).
		Order(ent.Desc(teaminvite.FieldCreatedAt), ent.Desc(teaminvite.FieldID)).Limit(maxInvites).All(ctx)
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := &switchboardv1.ListTeamInvitesResponse{Invites: make([]*switchboardv1.TeamInvite, 0, len(rows))}
	for _, r := range rows {
		out.Invites = append(out.Invites, toTeamInvite(r, now))
	}
	return out, nil
}

// maxInvites bounds an invite list.
const maxInvites = 500

// openInvite finds the invite a token names, refusing what cannot be
// answered: unknown 404, past its expiry 410, answered or cancelled 409.
func (s *Core) openInvite(ctx context.Context, c *ent.Client, token string) (*ent.TeamInvite, error) {
	inv, err := c.TeamInvite.Query().Where(teaminvite.TokenHash(tokenHash(token))).WithTeam().Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("no invite has this token")
	} else if err != nil {
		return nil, err
	}
	if inv.Status != teaminvite.StatusPending {
		return nil, apperr.Conflict("this invite was already %s", inv.Status)
	}
	if s.now().After(inv.ExpiresAt) {
		return nil, &apperr.Error{Kind: apperr.KindGone, Message: CodeInviteExpired + ": this invite expired; ask for a new one",
			Detail: &switchboardv1.ErrorInfo{Code: CodeInviteExpired}}
	}
	return inv, nil
}

// PreviewTeamInvite shows what a token invites to, without anything private.
func (x *Teams) PreviewTeamInvite(ctx context.Context, req *switchboardv1.PreviewTeamInviteRequest) (*switchboardv1.PreviewTeamInviteResponse, error) {
	s := x.core
	inv, err := s.openInvite(ctx, s.DB.Client, req.GetToken())
	if err != nil {
		return nil, err
	}
	inviter, err := s.DB.User.Query().Where(user.ID(inv.InvitedBy)).Select(user.FieldName).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	name := ""
	if inviter != nil {
		name = inviter.Name
	}
	t := inv.Edges.Team
	return &switchboardv1.PreviewTeamInviteResponse{TeamName: t.Name, TeamHandle: t.Handle, InviterName: name,
		Role: string(inv.Role), Message: inv.Message, ExpiresAt: ts(inv.ExpiresAt)}, nil
}

// AnswerTeamInvite accepts or declines an invite as the signed-in user.
func (x *Teams) AnswerTeamInvite(ctx context.Context, req *switchboardv1.AnswerTeamInviteRequest) (*switchboardv1.AnswerTeamInviteResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetAction() == "" {
		return nil, apperr.Invalid("action is required: accept or decline")
	}
	return db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.AnswerTeamInviteResponse, error) {
		inv, err := s.openInvite(ctx, tx.Client(), req.GetToken())
		if err != nil {
			return nil, err
		}
		me, err := tx.User.Get(ctx, p.UserID)
		if err != nil {
			return nil, err
		}
		if !meantFor(inv, me) {
			return nil, apperr.Forbidden("this invite was made for someone else")
		}
		now := s.now()
		status := teaminvite.StatusDeclined
		out := &switchboardv1.AnswerTeamInviteResponse{}
		if req.GetAction() == string(vocab.InviteActionAccept) {
			status = teaminvite.StatusAccepted
			m, err := s.join(ctx, tx, p, inv.Edges.Team, me, teammember.Role(inv.Role))
			if err != nil {
				return nil, err
			}
			n, err := teamSize(ctx, tx.Client(), inv.TeamID)
			if err != nil {
				return nil, err
			}
			out.Team = toTeam(inv.Edges.Team, string(m.Role), n)
		}
		// Conditional, so of two answers racing one applies.
		n, err := tx.TeamInvite.Update().Where(teaminvite.ID(inv.ID), teaminvite.StatusEQ(teaminvite.StatusPending)).
			SetStatus(status).SetAnsweredAt(now).SetAnsweredBy(p.UserID).SetUpdatedAt(now).Save(ctx)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, apperr.Conflict("this invite was answered meanwhile")
		}
		inv.Status, inv.AnsweredAt = status, &now
		out.Invite = toTeamInvite(inv, now)
		return out, nil
	})
}

// meantFor says whether u may answer inv: anyone for an open link, else
// only the user it names (by id or email).
func meantFor(inv *ent.TeamInvite, u *ent.User) bool {
	switch {
	case inv.TargetUserID != nil:
		return *inv.TargetUserID == u.ID
	case inv.TargetEmail != nil:
		return strings.EqualFold(*inv.TargetEmail, u.Email)
	case inv.TargetConnectionID != nil:
		return false // answered by the peer's ack
	}
	return true
}
