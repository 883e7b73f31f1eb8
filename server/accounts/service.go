// Package accounts owns accounts and sessions: the instance owner's setup,
// further signups, login and logout, and the public username look-ups.
package accounts

import (
	"context"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/session"
	"github.com/switchboard-hq/switchboard/ent/team"
	"github.com/switchboard-hq/switchboard/ent/teammember"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/profiles"
)

// SessionTTL is how long a dashboard login lasts.
const SessionTTL = 30 * 24 * time.Hour

// CodeNoAccount marks a login on an instance that has no account at all
// (RULINGS "Onboarding … details": No account yet).
const CodeNoAccount = "NO_ACCOUNT"

// noAccountYet is that login's refusal, in the ruling's words: the dashboard
// opens owner creation on its code.
func noAccountYet() *apperr.Error {
	return &apperr.Error{Kind: apperr.KindIllegalMove, Message: "No account exists yet: create the owner",
		Detail: &switchboardv1.ErrorInfo{Code: CodeNoAccount}}
}

// Service implements AccountService.
type Service struct {
	DB         *db.DB
	Now        func() time.Time
	BcryptCost int
}

type newAccount struct {
	username, email, password, name string
	role                            user.Role
}

func validate(a *newAccount) error {
	a.username = strings.TrimSpace(a.username)
	a.email = strings.ToLower(strings.TrimSpace(a.email))
	a.name = strings.TrimSpace(a.name)
	if p := usernameProblem(a.username); p != "" {
		return apperr.Invalid("%s", p)
	}
	if addr, err := mail.ParseAddress(a.email); err != nil || addr.Address != a.email || len(a.email) > 254 {
		return apperr.Invalid("email must be a plain address such as name@example.com")
	}
	// Its length is the contract's (accounts.proto).
	if a.name == "" {
		return apperr.Invalid("name is required")
	}
	if utf8.RuneCountInString(a.password) < auth.MinPasswordLen {
		return apperr.Invalid("password must be at least %d characters", auth.MinPasswordLen)
	}
	if len(a.password) > auth.MaxPasswordBytes {
		return apperr.Invalid("password must be at most %d bytes", auth.MaxPasswordBytes)
	}
	return nil
}

// create stores a validated account with its settings row in one transaction.
func (s *Service) create(ctx context.Context, a newAccount, onlyIfNoOwner bool) (*ent.User, error) {
	return s.createThen(ctx, a, onlyIfNoOwner, nil)
}

// CreateMember creates a member account like Signup; after, when set, runs in
// the same transaction with the new row (developer signup issues its connect
// token there).
func (s *Service) CreateMember(ctx context.Context, username, email, password, name string, after func(tx *db.Tx, u *ent.User) error) (*ent.User, error) {
	return s.createThen(ctx, newAccount{username, email, password, name, user.RoleMember}, false, after)
}

// ToProtoUser renders an account.
func ToProtoUser(u *ent.User) *switchboardv1.User { return toProtoUser(u) }

func (s *Service) createThen(ctx context.Context, a newAccount, onlyIfNoOwner bool, after func(tx *db.Tx, u *ent.User) error) (*ent.User, error) {
	if err := validate(&a); err != nil {
		return nil, err
	}
	hash, err := auth.HashPassword(a.password, s.BcryptCost)
	if err != nil {
		return nil, err
	}
	var u *ent.User
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		if onlyIfNoOwner {
			if err := s.DB.Serialize(ctx, tx, "setup-owner"); err != nil {
				return err
			}
			exists, err := tx.User.Query().Where(user.RoleEQ(user.RoleAdmin)).Exist(ctx)
			if err != nil {
				return err
			}
			if exists {
				return apperr.Conflict("this instance is already set up; sign up or log in instead")
			}
		}
		if err := ensureUnique(ctx, tx, a); err != nil {
			return err
		}
		var err error
		u, err = tx.User.Create().
			SetUsername(a.username).SetEmail(a.email).SetName(a.name).
			SetPasswordHash(hash).SetRole(a.role).Save(ctx)
		if ent.IsConstraintError(err) {
			return apperr.Conflict("username or email is already taken")
		} else if err != nil {
			return err
		}
		if err := tx.Setting.Create().SetUserID(u.ID).Exec(ctx); err != nil {
			return err
		}
		if after != nil {
			if err := after(tx, u); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// ensureUnique names which of the two is taken; the unique indexes still guard
// the race between this check and the insert.
func ensureUnique(ctx context.Context, tx *db.Tx, a newAccount) error {
	if taken, err := HandleTaken(ctx, tx, a.username); err != nil {
		return err
	} else if taken {
		return apperr.Conflict("username %q is already taken", a.username)
	}
	if taken, err := tx.User.Query().Where(user.Email(a.email)).Exist(ctx); err != nil {
		return err
	} else if taken {
		return apperr.Conflict("an account with this email already exists")
	}
	return nil
}

// Setup creates the instance owner.
func (s *Service) Setup(ctx context.Context, req *switchboardv1.SetupRequest) (*switchboardv1.SetupResponse, error) {
	if !req.GetAcceptedTerms() {
		return nil, apperr.Invalid("acceptedTerms must be true")
	}
	u, err := s.create(ctx, newAccount{req.GetUsername(), req.GetEmail(), req.GetPassword(), req.GetName(), user.RoleAdmin}, true)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.SetupResponse{User: toProtoUser(u)}, nil
}

// GetSetup tells whether the owner account exists yet.
func (s *Service) GetSetup(ctx context.Context, _ *switchboardv1.GetSetupRequest) (*switchboardv1.GetSetupResponse, error) {
	exists, err := s.DB.User.Query().Where(user.RoleEQ(user.RoleAdmin)).Exist(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetSetupResponse{OwnerExists: exists}, nil
}

// Signup creates a further account.
func (s *Service) Signup(ctx context.Context, req *switchboardv1.SignupRequest) (*switchboardv1.SignupResponse, error) {
	u, err := s.create(ctx, newAccount{req.GetUsername(), req.GetEmail(), req.GetPassword(), req.GetName(), user.RoleMember}, false)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.SignupResponse{User: toProtoUser(u)}, nil
}

// Login checks the password and starts a session in a cookie.
func (s *Service) Login(ctx context.Context, req *switchboardv1.LoginRequest) (*switchboardv1.LoginResponse, error) {
	email := strings.ToLower(strings.TrimSpace(req.GetEmail()))
	username := strings.TrimSpace(req.GetUsername())
	q := s.DB.User.Query()
	switch {
	case email != "":
		q = q.Where(user.Email(email))
	case username != "":
		q = q.Where(user.Username(username))
	default:
		return nil, apperr.Invalid("email or username is required")
	}
	if req.GetPassword() == "" {
		return nil, apperr.Invalid("password is required")
	}
	u, err := q.Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	if u == nil {
		// Nobody to log in as: say so, rather than "invalid credentials".
		// That no account exists is public already (GET /api/setup).
		if exists, err := s.DB.User.Query().Exist(ctx); err != nil {
			return nil, err
		} else if !exists {
			return nil, noAccountYet()
		}
	}
	hash := ""
	if u != nil {
		hash = u.PasswordHash
	}
	if !auth.CheckPassword(hash, req.GetPassword()) {
		return nil, apperr.Unauthenticated("invalid credentials")
	}
	token, tokenHash := auth.NewSessionToken()
	expires := s.Now().Add(SessionTTL)
	if err := s.DB.Session.Create().SetUserID(u.ID).SetTokenHash(tokenHash).SetExpiresAt(expires).Exec(ctx); err != nil {
		return nil, err
	}
	auth.StartSession(ctx, token, SessionTTL)
	return &switchboardv1.LoginResponse{User: toProtoUser(u)}, nil
}

// GetCurrentUser answers the caller's account.
func (s *Service) GetCurrentUser(ctx context.Context, _ *switchboardv1.GetCurrentUserRequest) (*switchboardv1.GetCurrentUserResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	u, err := s.DB.User.Get(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetCurrentUserResponse{User: toProtoUser(u)}, nil
}

// Logout ends the caller's session and clears the cookie.
func (s *Service) Logout(ctx context.Context, _ *switchboardv1.LogoutRequest) (*switchboardv1.LogoutResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if p.SessionID != "" {
		if _, err := s.DB.Session.Delete().Where(session.ID(p.SessionID), session.UserID(p.UserID)).Exec(ctx); err != nil {
			return nil, err
		}
		if err := s.DB.Publish(ctx, auth.CredentialEnded{Credential: p.Credential()}); err != nil {
			return nil, apperr.Internal(err)
		}
	}
	auth.EndSession(ctx)
	return &switchboardv1.LogoutResponse{}, nil
}

// CheckUsername tells whether a username can be taken.
func (s *Service) CheckUsername(ctx context.Context, req *switchboardv1.CheckUsernameRequest) (*switchboardv1.CheckUsernameResponse, error) {
	name := strings.TrimSpace(req.GetUsername())
	if name == "" {
		return nil, apperr.Invalid("username query parameter is required")
	}
	res := &switchboardv1.CheckUsernameResponse{Username: name}
	if p := usernameProblem(name); p != "" {
		res.Reason = &p
		return res, nil
	}
	taken, err := handleInUse(ctx, s.DB.Client, name)
	if err != nil {
		return nil, err
	}
	if taken {
		reason := "username is already taken"
		res.Reason = &reason
		return res, nil
	}
	res.Available = true
	return res, nil
}

// maxResolve bounds one look-up.
const maxResolve = 50

// ResolveUsers maps handles to the users and teams holding them (one
// namespace). An anonymous caller gets only public users and teams
// (Reconciliation 19); a signed-in one (a session or any key of this
// instance, which a public route still recognizes) also network ones, its
// own account and the teams it is a member of, whatever their visibility
// (docs/decisions.md "Profiles (issue 28)").
func (s *Service) ResolveUsers(ctx context.Context, req *switchboardv1.ResolveUsersRequest) (*switchboardv1.ResolveUsersResponse, error) {
	var handles []string
	for _, h := range strings.Split(req.GetUsernames(), ",") {
		h = strings.TrimPrefix(strings.TrimSpace(h), "@")
		if h != "" {
			handles = append(handles, h)
		}
	}
	if len(handles) == 0 {
		return nil, apperr.Invalid("usernames query parameter is required (comma-separated handles)")
	}
	if len(handles) > maxResolve {
		return nil, apperr.Invalid("at most %d usernames per request", maxResolve)
	}
	users, teams := profiles.UsersSeen(profiles.Anonymous), profiles.TeamsSeen(profiles.Anonymous)
	if p, ok := auth.PrincipalFrom(ctx); ok && p != nil {
		users = user.Or(profiles.UsersSeen(profiles.Network), user.ID(p.UserID))
		teams = team.Or(profiles.TeamsSeen(profiles.Network), team.HasMembersWith(teammember.UserID(p.UserID)))
	}
	found, err := s.DB.User.Query().Where(user.UsernameIn(handles...), users).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ResolveUsersResponse{Users: map[string]*switchboardv1.ResolvedUser{}}
	for _, u := range found {
		out.Users[u.Username] = &switchboardv1.ResolvedUser{
			Id: u.ID, Name: u.Name, Username: u.Username, Avatar: u.Avatar, Type: "user",
		}
	}
	groups, err := s.DB.Team.Query().Where(team.HandleIn(handles...), teams).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range groups {
		out.Users[t.Handle] = &switchboardv1.ResolvedUser{
			Id: t.ID, Name: t.Name, Username: t.Handle, Avatar: t.AvatarURL, Type: "team",
		}
	}
	return out, nil
}
