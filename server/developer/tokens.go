package developer

import (
	"context"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/connecttoken"
	"github.com/switchboard-hq/switchboard/ent/developerkey"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// Connect-token rules (docs/decisions.md "Store limits").
const (
	ConnectTokenTTL        = 24 * time.Hour
	MaxActiveConnectTokens = 10
)

// prefixShown is how much of a token is kept in clear to recognise it.
const prefixShown = 12

// The purposes of a connect token.
var purposes = vocab.Values("token_purpose")

// issueConnectToken writes a token for userID inside tx, refusing past the cap
// of active (unused, unexpired) tokens. The account's tokens serialize on a
// lock so two issues cannot both pass the count.
func (s *Service) issueConnectToken(ctx context.Context, tx *db.Tx, userID, purpose string) (token string, row *ent.ConnectToken, err error) {
	if err := s.DB.Serialize(ctx, tx, "connect_tokens:"+userID); err != nil {
		return "", nil, err
	}
	now := s.now()
	active, err := tx.ConnectToken.Query().Where(connecttoken.UserID(userID), connecttoken.UsedAtIsNil(),
		connecttoken.ExpiresAtGT(now)).Count(ctx)
	if err != nil {
		return "", nil, err
	}
	if active >= MaxActiveConnectTokens {
		return "", nil, apperr.Conflict("this account already has %d active connect tokens, the most it may hold; use one or let one expire", MaxActiveConnectTokens)
	}
	token, hash := auth.NewToken(auth.ConnectTokenPrefix)
	row, err = tx.ConnectToken.Create().SetUserID(userID).SetPurpose(connecttoken.Purpose(purpose)).
		SetPrefix(token[:prefixShown]).SetTokenHash(hash).SetCreatedAt(now).SetExpiresAt(now.Add(ConnectTokenTTL)).Save(ctx)
	if err != nil {
		return "", nil, err
	}
	return token, row, nil
}

// bearerKind is which of the developer credentials a request presented.
type bearerKind uint8

const (
	viaDeveloperKey bearerKind = iota + 1
	viaConnectToken
	viaSelfConfig
)

// developer is the caller of a developer route.
type developer struct {
	userID string
	via    bearerKind
	// tokenID is the connect token's id (viaConnectToken).
	tokenID string
	// agentID is the agent a self-config token belongs to (viaSelfConfig).
	agentID string
}

// caller resolves the bearer token of a developer route: a developer key, a
// connect token usable for agents, or (when selfConfig) an agent's
// self-config token. Missing or unknown: 401; deactivated, expired, spent or
// instance-purpose: 403 (docs/decisions.md "Accounts, keys, sessions").
func (s *Service) caller(ctx context.Context, selfConfig bool) (*developer, error) {
	token := auth.CredentialsFrom(ctx).Bearer
	if token == "" {
		return nil, apperr.Unauthenticated("missing credential: send \"Authorization: Bearer <developer key or connect token>\"")
	}
	hash := auth.HashToken(token)
	switch {
	case strings.HasPrefix(token, auth.DeveloperKeyPrefix):
		k, err := s.DB.DeveloperKey.Query().Where(developerkey.KeyHash(hash)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.Unauthenticated("invalid developer key")
		} else if err != nil {
			return nil, err
		}
		if !k.Active {
			return nil, apperr.Forbidden("developer key has been deactivated")
		}
		// Best effort: bookkeeping must not fail the request.
		_ = s.DB.DeveloperKey.UpdateOneID(k.ID).SetLastUsedAt(s.now()).Exec(ctx)
		return &developer{userID: k.UserID, via: viaDeveloperKey}, nil
	case strings.HasPrefix(token, auth.ConnectTokenPrefix):
		t, err := s.DB.ConnectToken.Query().Where(connecttoken.TokenHash(hash)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.Unauthenticated("invalid connect token")
		} else if err != nil {
			return nil, err
		}
		switch {
		case t.Purpose == connecttoken.PurposeInstance:
			return nil, apperr.Forbidden("this connect token registers instances, not agents")
		case t.UsedAt != nil:
			return nil, apperr.Forbidden("this connect token has already been used")
		case !s.now().Before(t.ExpiresAt):
			return nil, apperr.Forbidden("this connect token expired")
		}
		return &developer{userID: t.UserID, via: viaConnectToken, tokenID: t.ID}, nil
	case selfConfig && strings.HasPrefix(token, auth.SelfConfigPrefix):
		a, err := s.DB.StoreAgent.Query().Where(storeagent.SelfConfigTokenHash(hash)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.Unauthenticated("invalid self-config token")
		} else if err != nil {
			return nil, err
		}
		return &developer{userID: a.UserID, via: viaSelfConfig, agentID: a.ID}, nil
	}
	return nil, apperr.Unauthenticated("invalid credential: expected a developer key (%s…) or a connect token (%s…)", auth.DeveloperKeyPrefix, auth.ConnectTokenPrefix)
}

// consume spends the connect token of d inside tx, once: a token used by a
// concurrent registration is refused, and that registration rolls back.
func (s *Service) consume(ctx context.Context, tx *db.Tx, d *developer, agentID string) error {
	if d.via != viaConnectToken {
		return nil
	}
	n, err := tx.ConnectToken.Update().Where(connecttoken.ID(d.tokenID), connecttoken.UsedAtIsNil()).
		SetUsedAt(s.now()).SetAgentID(agentID).Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return apperr.Forbidden("this connect token has already been used")
	}
	return nil
}
