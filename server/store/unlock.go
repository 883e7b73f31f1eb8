package store

import (
	"context"
	"errors"

	"entgo.io/ent/dialect/sql/sqlgraph"
	"golang.org/x/crypto/bcrypt"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/storeunlock"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// UnlockStoreAgent checks the listing's access password against its bcrypt
// hash and, when it matches, records an unlock for (caller, agent): the
// caller's executions of the agent are no longer charged (Unlocked, read by
// the engine at dispatch). A wrong password is 403 and writes nothing; a
// listing without a password is a failed precondition; unlocking again
// answers the first unlock. The MCP tool marketplace_unlock calls this very
// method with the tool's principal in ctx.
func (s *Service) UnlockStoreAgent(ctx context.Context, req *switchboardv1.UnlockStoreAgentRequest) (*switchboardv1.UnlockStoreAgentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetAccessPassword() == "" {
		return nil, apperr.Invalid("accessPassword is required")
	}
	row, err := visibleByIDOrSlug(ctx, s.DB.Client, p.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	if row.AccessPasswordHash == nil || *row.AccessPasswordHash == "" {
		return nil, apperr.IllegalMove("%q has no access password: there is nothing to unlock (its price applies to everyone)", row.Slug)
	}
	// bcrypt compares in constant time; it runs before the transaction
	// because it is slow on purpose.
	err = bcrypt.CompareHashAndPassword([]byte(*row.AccessPasswordHash), []byte(req.GetAccessPassword()))
	if errors.Is(err, bcrypt.ErrMismatchedHashAndPassword) {
		return nil, apperr.Forbidden("wrong access password for %q", row.Slug)
	} else if err != nil {
		return nil, apperr.Internal(err)
	}
	var unlock *ent.StoreUnlock
	mine := s.DB.StoreUnlock.Query().Where(storeunlock.UserID(p.UserID), storeunlock.AgentID(row.ID))
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		// Unlocked before: the same answer again. Read first, since a unique
		// violation aborts the transaction on PostgreSQL.
		found, err := tx.StoreUnlock.Query().Where(storeunlock.UserID(p.UserID), storeunlock.AgentID(row.ID)).Only(ctx)
		if err == nil {
			unlock = found
			return nil
		} else if !ent.IsNotFound(err) {
			return apperr.Internal(err)
		}
		now := s.now()
		unlock, err = tx.StoreUnlock.Create().SetUserID(p.UserID).SetAgentID(row.ID).SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
		switch {
		case sqlgraph.IsUniqueConstraintError(err):
			return errUnlockRaced
		case ent.IsConstraintError(err):
			return apperr.NotFound("store agent %q not found", row.ID)
		}
		return apperr.Wrap(err)
	})
	if errors.Is(err, errUnlockRaced) {
		// A concurrent unlock of the same pair committed first: answer it.
		unlock, err = mine.Only(ctx)
		err = apperr.Wrap(err)
	}
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UnlockStoreAgentResponse{
		AgentId: row.ID, Slug: row.Slug, Unlocked: true, UnlockedAt: ts(unlock.CreatedAt),
	}, nil
}

// errUnlockRaced is a concurrent unlock of the same pair that committed first.
var errUnlockRaced = errors.New("store: unlocked concurrently")

// Unlocked reports whether userID unlocked agentID with its access password,
// read in the transaction that decides a charge.
func Unlocked(ctx context.Context, c *ent.Client, userID, agentID string) (bool, error) {
	ok, err := c.StoreUnlock.Query().Where(storeunlock.UserID(userID), storeunlock.AgentID(agentID)).Exist(ctx)
	if err != nil {
		return false, apperr.Internal(err)
	}
	return ok, nil
}

// visibleByIDOrSlug is visible for a listing named by its id or, failing
// that, its slug (the MCP tool takes either; docs/decisions.md).
func visibleByIDOrSlug(ctx context.Context, c *ent.Client, userID, ref string) (*ent.StoreAgent, error) {
	row, _, err := visible(ctx, c, userID, ref)
	var ae *apperr.Error
	if err == nil || !errors.As(err, &ae) || ae.Kind != apperr.KindNotFound {
		return row, err
	}
	id, serr := c.StoreAgent.Query().Where(storeagent.Slug(ref)).OnlyID(ctx)
	if ent.IsNotFound(serr) {
		return nil, err
	} else if serr != nil {
		return nil, apperr.Internal(serr)
	}
	row, _, err = visible(ctx, c, userID, id)
	if err != nil {
		return nil, apperr.NotFound("store agent %q not found", ref)
	}
	return row, nil
}
