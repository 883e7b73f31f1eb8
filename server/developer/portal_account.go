package developer

import (
	"context"
	"net/mail"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/connecttoken"
	"github.com/switchboard-hq/switchboard/ent/developerkey"
	"github.com/switchboard-hq/switchboard/ent/developerteammember"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/user"
	"github.com/switchboard-hq/switchboard/ent/widgettemplate"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/store"
)

func toAccount(u *ent.User) *switchboardv1.DeveloperAccount {
	return &switchboardv1.DeveloperAccount{Id: u.ID, Username: u.Username, Name: u.Name, ContactEmail: u.Email, CreatedAt: ts(u.CreatedAt)}
}

// GetDeveloperAccount answers the caller's account.
func (p *Portal) GetDeveloperAccount(ctx context.Context, _ *switchboardv1.GetDeveloperAccountRequest) (*switchboardv1.GetDeveloperAccountResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	u, err := p.dev.DB.User.Get(ctx, pr.UserID)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetDeveloperAccountResponse{Account: toAccount(u)}, nil
}

// UpdateDeveloperAccount changes the name or the contact email, which is the
// account's email: stored lowercased, unique across the instance (409).
func (p *Portal) UpdateDeveloperAccount(ctx context.Context, req *switchboardv1.UpdateDeveloperAccountRequest) (*switchboardv1.UpdateDeveloperAccountResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var name, email *string
	if req.Name != nil {
		n := strings.TrimSpace(req.GetName())
		if n == "" {
			return nil, apperr.Invalid("name cannot be empty")
		}
		name = &n
	}
	if req.ContactEmail != nil {
		e := strings.ToLower(strings.TrimSpace(req.GetContactEmail()))
		if addr, err := mail.ParseAddress(e); err != nil || addr.Address != e {
			return nil, apperr.Invalid("contactEmail must be a plain address such as name@example.com")
		}
		email = &e
	}
	var u *ent.User
	err = p.dev.DB.InTx(ctx, func(tx *db.Tx) error {
		if u, err = tx.User.Get(ctx, pr.UserID); err != nil {
			return err
		}
		up := tx.User.UpdateOneID(u.ID)
		changed := false
		if name != nil && *name != u.Name {
			up.SetName(*name)
			changed = true
		}
		if email != nil && *email != u.Email {
			taken, err := tx.User.Query().Where(user.Email(*email), user.IDNEQ(u.ID)).Exist(ctx)
			if err != nil {
				return err
			}
			if taken {
				return apperr.Conflict("another account has the email %s", *email)
			}
			up.SetEmail(*email)
			changed = true
		}
		if !changed {
			return nil
		}
		u, err = up.Save(ctx)
		if ent.IsConstraintError(err) {
			return apperr.Conflict("another account has the email %s", *email)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateDeveloperAccountResponse{Account: toAccount(u)}, nil
}

// DeleteDeveloperAccount closes the developer side of the account in one
// unit of work, once confirm repeats the username (docs/decisions.md "The
// developer portal (issue 31)"): its own agents are removed as the store
// removes a listing for good (refused with 409 while one has work in
// flight, its finished executions and ledger lines kept, unlinked), and its
// developer keys, connect tokens, team rows (as owner and as member) and
// widget templates are deleted. The sign-in account and its operator data
// stay; listings synced from a spoke stay with their spoke, and the
// instance's own agents (an admin's my-agents) stay with the instance.
func (p *Portal) DeleteDeveloperAccount(ctx context.Context, req *switchboardv1.DeleteDeveloperAccountRequest) (*switchboardv1.DeleteDeveloperAccountResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	confirm := strings.TrimSpace(req.GetConfirm())
	if confirm == "" {
		return nil, apperr.Invalid("confirm is required: repeat your username to delete your developer account")
	}
	out := &switchboardv1.DeleteDeveloperAccountResponse{Deleted: &switchboardv1.DeletedDeveloperRows{}}
	err = p.dev.DB.InTx(ctx, func(tx *db.Tx) error {
		u, err := tx.User.Get(ctx, pr.UserID)
		if err != nil {
			return err
		}
		if confirm != u.Username {
			return apperr.Invalid("confirm must repeat your username (%s) exactly", u.Username)
		}
		out.Account = toAccount(u)
		return p.closeAccount(ctx, tx, u.ID, out.Deleted)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// closeAccount removes what the developer account holds, counting it in n.
func (p *Portal) closeAccount(ctx context.Context, tx *db.Tx, userID string, n *switchboardv1.DeletedDeveloperRows) error {
	agents, err := tx.StoreAgent.Query().Where(storeagent.UserID(userID), storeagent.SourceInstanceIDIsNil(),
		storeagent.InstanceOwned(false)).
		Order(ent.Asc(storeagent.FieldCreatedAt), ent.Asc(storeagent.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	for _, a := range agents {
		unlinked, err := store.RemoveSynced(ctx, p.dev.DB, tx, a)
		if err != nil {
			return err
		}
		n.Agents++
		n.ExecutionsUnlinked += int32(unlinked)
	}
	counts := []struct {
		into *int32
		del  func() (int, error)
	}{
		{&n.DeveloperKeys, func() (int, error) {
			return tx.DeveloperKey.Delete().Where(developerkey.UserID(userID)).Exec(ctx)
		}},
		{&n.ConnectTokens, func() (int, error) {
			return tx.ConnectToken.Delete().Where(connecttoken.UserID(userID)).Exec(ctx)
		}},
		{&n.TeamMembers, func() (int, error) {
			return tx.DeveloperTeamMember.Delete().Where(developerteammember.Or(developerteammember.OwnerID(userID),
				developerteammember.MemberID(userID))).Exec(ctx)
		}},
		{&n.WidgetTemplates, func() (int, error) {
			return tx.WidgetTemplate.Delete().Where(widgettemplate.UserID(userID)).Exec(ctx)
		}},
	}
	for _, c := range counts {
		k, err := c.del()
		if err != nil {
			return err
		}
		*c.into = int32(k)
	}
	return nil
}
