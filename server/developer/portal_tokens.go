package developer

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/connecttoken"
	"github.com/switchboard-hq/switchboard/ent/developerkey"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// RevokeDeveloperKey deactivates one of the caller's developer keys: the
// developer routes refuse it from then on (403), and it stays listed.
// Revoking a revoked key changes nothing.
func (p *Portal) RevokeDeveloperKey(ctx context.Context, req *switchboardv1.RevokeDeveloperKeyRequest) (*switchboardv1.RevokeDeveloperKeyResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var row *ent.DeveloperKey
	err = p.dev.DB.InTx(ctx, func(tx *db.Tx) error {
		row, err = tx.DeveloperKey.Query().Where(developerkey.ID(req.GetId()), developerkey.UserID(pr.UserID)).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFound("developer key %q not found among your keys", req.GetId())
		} else if err != nil {
			return err
		}
		if !row.Active {
			return nil
		}
		row, err = tx.DeveloperKey.UpdateOneID(row.ID).SetActive(false).Save(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RevokeDeveloperKeyResponse{Key: toDeveloperKey(row)}, nil
}

func (p *Portal) toTokenInfo(t *ent.ConnectToken) *switchboardv1.ConnectTokenInfo {
	out := &switchboardv1.ConnectTokenInfo{
		Id: t.ID, Purpose: string(t.Purpose), Prefix: t.Prefix, CreatedAt: ts(t.CreatedAt), ExpiresAt: ts(t.ExpiresAt),
		AgentId: t.AgentID, Active: t.UsedAt == nil && p.dev.now().Before(t.ExpiresAt),
	}
	if t.UsedAt != nil {
		out.UsedAt = ts(*t.UsedAt)
	}
	return out
}

// ListConnectTokens lists the caller's connect tokens, newest first (at
// most maxListed), never their values.
func (p *Portal) ListConnectTokens(ctx context.Context, _ *switchboardv1.ListConnectTokensRequest) (*switchboardv1.ListConnectTokensResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := p.dev.DB.ConnectToken.Query().Where(connecttoken.UserID(pr.UserID)).
		Order(ent.Desc(connecttoken.FieldCreatedAt), ent.Desc(connecttoken.FieldID)).Limit(maxListed).All(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListConnectTokensResponse{Tokens: lists.Map(rows, p.toTokenInfo)}, nil
}

// RevokeConnectToken deletes an unused connect token (expired or not): it
// registers nothing from then on. A used one is the record of what it
// registered and stays (409).
func (p *Portal) RevokeConnectToken(ctx context.Context, req *switchboardv1.RevokeConnectTokenRequest) (*switchboardv1.RevokeConnectTokenResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var out *switchboardv1.ConnectTokenInfo
	err = p.dev.DB.InTx(ctx, func(tx *db.Tx) error {
		// The account's tokens serialize here as they do when issued.
		if err := p.dev.DB.Serialize(ctx, tx, "connect_tokens:"+pr.UserID); err != nil {
			return err
		}
		row, err := tx.ConnectToken.Query().Where(connecttoken.ID(req.GetId()), connecttoken.UserID(pr.UserID)).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFound("connect token %q not found among your tokens", req.GetId())
		} else if err != nil {
			return err
		}
		if row.UsedAt != nil {
			return apperr.Conflict("connect token %s… has been used; it stays as the record of what it registered", row.Prefix)
		}
		out = p.toTokenInfo(row)
		out.Active = false
		// A registration consuming it at this moment updates only an unused
		// row, so one of the two wins.
		n, err := tx.ConnectToken.Delete().Where(connecttoken.ID(row.ID), connecttoken.UsedAtIsNil()).Exec(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.Conflict("connect token %s… has just been used", row.Prefix)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RevokeConnectTokenResponse{Token: out}, nil
}
