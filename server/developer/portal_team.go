package developer

import (
	"context"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/developerteammember"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

func toMember(m *ent.DeveloperTeamMember, u *ent.User) *switchboardv1.DeveloperTeamMember {
	return &switchboardv1.DeveloperTeamMember{UserId: u.ID, Username: u.Username, Name: u.Name, Email: u.Email, AddedAt: ts(m.CreatedAt)}
}

// users reads the accounts ids name, by id.
func users(ctx context.Context, c *ent.Client, ids []string) (map[string]*ent.User, error) {
	rows, err := c.User.Query().Where(user.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*ent.User, len(rows))
	for _, u := range rows {
		out[u.ID] = u
	}
	return out, nil
}

// ListDeveloperTeam lists the caller's team and the teams it belongs to,
// each oldest first.
func (p *Portal) ListDeveloperTeam(ctx context.Context, _ *switchboardv1.ListDeveloperTeamRequest) (*switchboardv1.ListDeveloperTeamResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := p.dev.DB.DeveloperTeamMember.Query().Where(developerteammember.Or(developerteammember.OwnerID(pr.UserID),
		developerteammember.MemberID(pr.UserID))).
		Order(ent.Asc(developerteammember.FieldCreatedAt), ent.Asc(developerteammember.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, r.OwnerID, r.MemberID)
	}
	byID, err := users(ctx, p.dev.DB.Client, ids)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListDeveloperTeamResponse{Members: []*switchboardv1.DeveloperTeamMember{}, MemberOf: []*switchboardv1.DeveloperTeamOwner{}}
	for _, r := range rows {
		if r.OwnerID == pr.UserID {
			if u := byID[r.MemberID]; u != nil {
				out.Members = append(out.Members, toMember(r, u))
			}
			continue
		}
		if u := byID[r.OwnerID]; u != nil {
			out.MemberOf = append(out.MemberOf, &switchboardv1.DeveloperTeamOwner{UserId: u.ID, Username: u.Username, Name: u.Name, AddedAt: ts(r.CreatedAt)})
		}
	}
	return out, nil
}

// AddDeveloperTeamMember adds the account with email to the caller's team.
// An email no account of this instance has is 404; the caller's own is 400;
// a member already in is 409, as is a team of maxTeamMembers.
func (p *Portal) AddDeveloperTeamMember(ctx context.Context, req *switchboardv1.AddDeveloperTeamMemberRequest) (*switchboardv1.AddDeveloperTeamMemberResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	email := strings.ToLower(strings.TrimSpace(req.GetEmail()))
	if email == "" {
		return nil, apperr.Invalid("email is required: the email of an account of this instance")
	}
	var out *switchboardv1.DeveloperTeamMember
	err = p.dev.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := p.dev.DB.Serialize(ctx, tx, "developer_team:"+pr.UserID); err != nil {
			return err
		}
		u, err := tx.User.Query().Where(user.Email(email)).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFound("no account of this instance has the email %s", email)
		} else if err != nil {
			return err
		}
		if u.ID == pr.UserID {
			return apperr.Invalid("email is your own: your team is the other accounts who manage your agents")
		}
		rows, err := tx.DeveloperTeamMember.Query().Where(developerteammember.OwnerID(pr.UserID)).All(ctx)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if r.MemberID == u.ID {
				return apperr.Conflict("%s is already a member of your team", u.Username)
			}
		}
		if len(rows) >= maxTeamMembers {
			return apperr.Conflict("your team already has %d members, the most it may hold", maxTeamMembers)
		}
		m, err := tx.DeveloperTeamMember.Create().SetOwnerID(pr.UserID).SetMemberID(u.ID).Save(ctx)
		if err != nil {
			return err
		}
		out = toMember(m, u)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.AddDeveloperTeamMemberResponse{Member: out}, nil
}

// RemoveDeveloperTeamMember removes userId from the caller's team: from then
// on it manages none of the caller's agents.
func (p *Portal) RemoveDeveloperTeamMember(ctx context.Context, req *switchboardv1.RemoveDeveloperTeamMemberRequest) (*switchboardv1.RemoveDeveloperTeamMemberResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetUserId() == "" {
		return nil, apperr.Invalid("userId is required: the member to remove")
	}
	var out *switchboardv1.DeveloperTeamMember
	err = p.dev.DB.InTx(ctx, func(tx *db.Tx) error {
		m, err := tx.DeveloperTeamMember.Query().Where(developerteammember.OwnerID(pr.UserID),
			developerteammember.MemberID(req.GetUserId())).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFound("user %q is not a member of your team", req.GetUserId())
		} else if err != nil {
			return err
		}
		u, err := tx.User.Get(ctx, m.MemberID)
		if err != nil {
			return err
		}
		out = toMember(m, u)
		return tx.DeveloperTeamMember.DeleteOneID(m.ID).Exec(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RemoveDeveloperTeamMemberResponse{Member: out}, nil
}
