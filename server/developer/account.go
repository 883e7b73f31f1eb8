package developer

import (
	"context"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/developerkey"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/server/accounts"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// RegisterPath is where a connect token registers an agent.
const RegisterPath = "/api/developer/agents/register"

// DeveloperSignup creates a developer account: a member account named after
// its username, optionally with a connect token for one agent.
func (s *Service) DeveloperSignup(ctx context.Context, req *switchboardv1.DeveloperSignupRequest) (*switchboardv1.DeveloperSignupResponse, error) {
	out := &switchboardv1.DeveloperSignupResponse{Created: true}
	var after func(tx *db.Tx, u *ent.User) error
	if req.GetIssueAgentToken() {
		after = func(tx *db.Tx, u *ent.User) error {
			token, row, err := s.issueConnectToken(ctx, tx, u.ID, "agent")
			if err != nil {
				return err
			}
			out.AgentToken = s.toConnectToken(token, row)
			return nil
		}
	}
	u, err := s.Accounts.CreateMember(ctx, req.GetUsername(), req.GetContactEmail(), req.GetPassword(), strings.TrimSpace(req.GetUsername()), after)
	if err != nil {
		if e := apperr.From(err); e.Kind == apperr.KindInvalid && strings.HasPrefix(e.Message, "email ") {
			return nil, apperr.Invalid("contactEmail must be a plain address such as name@example.com")
		}
		return nil, err
	}
	out.Account = accounts.ToProtoUser(u)
	return out, nil
}

func (s *Service) toConnectToken(token string, row *ent.ConnectToken) *switchboardv1.ConnectToken {
	return &switchboardv1.ConnectToken{
		Token: token, Purpose: string(row.Purpose), ExpiresAt: ts(row.ExpiresAt),
		RegisterUrl: strings.TrimRight(s.BaseURL, "/") + RegisterPath,
	}
}

// CreateConnectToken issues a connect token for the session's account.
func (s *Service) CreateConnectToken(ctx context.Context, req *switchboardv1.CreateConnectTokenRequest) (*switchboardv1.CreateConnectTokenResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	purpose := req.GetPurpose()
	if purpose == "" {
		purpose = "agent"
	}
	if !slices.Contains(purposes, purpose) {
		return nil, apperr.OneOf("purpose", purpose, purposes)
	}
	// An instance token joins an instance to this one as its hub.
	if purpose == "instance" && p.Role != "admin" {
		return nil, apperr.Forbidden("only the admin may mint a connect token of purpose instance")
	}
	var out *switchboardv1.ConnectToken
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		token, row, err := s.issueConnectToken(ctx, tx, p.UserID, purpose)
		if err != nil {
			return err
		}
		out = s.toConnectToken(token, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateConnectTokenResponse{Token: out}, nil
}

// maxDeveloperKeys bounds an account's keys (and the list).
const maxDeveloperKeys = 100

// CreateDeveloperKey makes a developer key and answers its value once.
func (s *Service) CreateDeveloperKey(ctx context.Context, req *switchboardv1.CreateDeveloperKeyRequest) (*switchboardv1.CreateDeveloperKeyResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	label := strings.TrimSpace(req.GetLabel())
	// Its length is the contract's (500 characters); one line is ours.
	if label == "" || strings.ContainsFunc(label, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, apperr.Invalid("label is required: one line of text")
	}
	key, hash := auth.NewToken(auth.DeveloperKeyPrefix)
	var row *ent.DeveloperKey
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		n, err := tx.DeveloperKey.Query().Where(developerkey.UserID(p.UserID)).Count(ctx)
		if err != nil {
			return err
		}
		if n >= maxDeveloperKeys {
			return apperr.Conflict("this account already has %d developer keys, the most it may hold", maxDeveloperKeys)
		}
		row, err = tx.DeveloperKey.Create().SetUserID(p.UserID).SetLabel(label).SetPrefix(key[:prefixShown]).
			SetKeyHash(hash).SetCreatedAt(s.now()).Save(ctx)
		if err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateDeveloperKeyResponse{Key: toDeveloperKey(row), DeveloperKey: key}, nil
}

// ListDeveloperKeys lists the caller's developer keys, newest first.
func (s *Service) ListDeveloperKeys(ctx context.Context, _ *switchboardv1.ListDeveloperKeysRequest) (*switchboardv1.ListDeveloperKeysResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.DB.DeveloperKey.Query().Where(developerkey.UserID(p.UserID)).
		Order(ent.Desc(developerkey.FieldCreatedAt), ent.Desc(developerkey.FieldID)).Limit(maxDeveloperKeys).All(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListDeveloperKeysResponse{Keys: lists.Map(rows, toDeveloperKey)}, nil
}
