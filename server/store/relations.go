package store

import (
	"context"
	"errors"

	"entgo.io/ent/dialect/sql/sqlgraph"
	"golang.org/x/crypto/bcrypt"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/storeinstall"
	"github.com/switchboard-hq/switchboard/ent/storesubscription"
	"github.com/switchboard-hq/switchboard/ent/storeunlock"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// SubscribeStoreAgent subscribes the caller to an active listing; a second
// subscription is a 409.
func (s *Service) SubscribeStoreAgent(ctx context.Context, req *switchboardv1.SubscribeStoreAgentRequest) (*switchboardv1.SubscribeStoreAgentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	out, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.StoreAgent, error) {
		row, err := joinable(ctx, tx.Client(), p.UserID, req.GetId(), "subscribed to")
		if err != nil {
			return nil, err
		}
		now := s.now()
		err = tx.StoreSubscription.Create().SetUserID(p.UserID).SetAgentID(row.ID).SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx)
		if err = joined(err, row, "you are already subscribed to %q"); err != nil {
			return nil, err
		}
		return s.count(ctx, tx, p.UserID, row, func(u *ent.StoreAgentUpdateOne) { u.AddSubscriberCount(1) })
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.SubscribeStoreAgentResponse{Agent: out}, nil
}

// UnsubscribeStoreAgent ends the caller's subscription; none is a 404.
func (s *Service) UnsubscribeStoreAgent(ctx context.Context, req *switchboardv1.UnsubscribeStoreAgentRequest) (*switchboardv1.UnsubscribeStoreAgentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	out, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.StoreAgent, error) {
		row, _, err := visible(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return nil, err
		}
		n, err := tx.StoreSubscription.Delete().Where(storesubscription.UserID(p.UserID), storesubscription.AgentID(row.ID)).Exec(ctx)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, apperr.NotFound("you are not subscribed to %q", row.Slug)
		}
		return s.count(ctx, tx, p.UserID, row, func(u *ent.StoreAgentUpdateOne) { u.AddSubscriberCount(-1) })
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UnsubscribeStoreAgentResponse{Agent: out}, nil
}

// InstallStoreAgent installs an active listing into the caller's toolkit and
// writes its kit as memory entries; a second installation is a 409.
func (s *Service) InstallStoreAgent(ctx context.Context, req *switchboardv1.InstallStoreAgentRequest) (*switchboardv1.InstallStoreAgentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.InstallStoreAgentResponse{}
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		row, err := joinable(ctx, tx.Client(), p.UserID, req.GetId(), "installed")
		if err != nil {
			return err
		}
		now := s.now()
		err = tx.StoreInstall.Create().SetUserID(p.UserID).SetAgentID(row.ID).SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx)
		if err = joined(err, row, "%q is already installed"); err != nil {
			return err
		}
		entries, err := writeMemory(ctx, tx, p.UserID, row, now)
		if err != nil {
			return err
		}
		for _, e := range entries {
			out.MemoryEntries = append(out.MemoryEntries, toMemoryEntry(e))
		}
		out.Agent, err = s.count(ctx, tx, p.UserID, row, func(u *ent.StoreAgentUpdateOne) { u.AddInstallCount(1) })
		return err
	})
	if err != nil {
		return nil, err
	}
	s.installed(ctx, p.UserID)
	return out, nil
}

// UninstallStoreAgent removes the caller's installation and every memory
// entry it wrote; none is a 404.
func (s *Service) UninstallStoreAgent(ctx context.Context, req *switchboardv1.UninstallStoreAgentRequest) (*switchboardv1.UninstallStoreAgentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.UninstallStoreAgentResponse{}
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		row, _, err := visible(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return err
		}
		n, err := tx.StoreInstall.Delete().Where(storeinstall.UserID(p.UserID), storeinstall.AgentID(row.ID)).Exec(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.NotFound("%q is not installed", row.Slug)
		}
		removed, err := removeMemory(ctx, tx, p.UserID, row.ID)
		if err != nil {
			return err
		}
		out.RemovedMemoryEntries = int32(removed)
		out.Agent, err = s.count(ctx, tx, p.UserID, row, func(u *ent.StoreAgentUpdateOne) { u.AddInstallCount(-1) })
		return err
	})
	if err != nil {
		return nil, err
	}
	s.installed(ctx, p.UserID)
	return out, nil
}

// UnlockStoreAgent checks the listing's access password against its bcrypt
// hash and, when it matches, records an unlock for (caller, agent): the
// caller's executions of the agent are no longer charged (Unlocked, read by
// the engine at dispatch). A wrong password is 403 and writes nothing; a
// listing without a password is a failed precondition; unlocking again
// answers the first unlock. Each attempt is a guess, counted before the
// comparison (Guesses) and refused past the client's or the listing's
// window, right or not. The MCP tool marketplace_unlock calls this very
// method with the tool's principal (and client) in ctx.
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
	if err := s.Guesses.Guess(ctx, "store_agent:"+row.ID); err != nil {
		return nil, err
	}
	// bcrypt compares in constant time; it runs before the transaction
	// because it is slow on purpose.
	err = bcrypt.CompareHashAndPassword([]byte(*row.AccessPasswordHash), []byte(req.GetAccessPassword()))
	if errors.Is(err, bcrypt.ErrMismatchedHashAndPassword) {
		return nil, apperr.Forbidden("wrong access password for %q", row.Slug)
	} else if err != nil {
		return nil, err
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
			return err
		}
		now := s.now()
		unlock, err = tx.StoreUnlock.Create().SetUserID(p.UserID).SetAgentID(row.ID).SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
		switch {
		case sqlgraph.IsUniqueConstraintError(err):
			return errUnlockRaced
		case ent.IsConstraintError(err):
			return apperr.NotFound("store agent %q not found", row.ID)
		}
		return err
	})
	if errors.Is(err, errUnlockRaced) {
		// A concurrent unlock of the same pair committed first: answer it.
		unlock, err = mine.Only(ctx)
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

// joined answers for the creation of the caller's row joining a listing (a
// subscription or an installation): a second one is a 409 worded by conflict
// (a format of the listing's slug); the listing gone meanwhile is a 404.
func joined(err error, row *ent.StoreAgent, conflict string) error {
	switch {
	case sqlgraph.IsUniqueConstraintError(err):
		return apperr.Conflict(conflict, row.Slug)
	case ent.IsConstraintError(err):
		return apperr.NotFound("store agent %q not found", row.ID)
	case err != nil:
		return err
	}
	return nil
}

// joinable loads a listing the caller may subscribe to or install: visible
// and active. A visible listing that is not active (the caller's own, or one
// they joined before) is refused with the reason; others are not found.
func joinable(ctx context.Context, c *ent.Client, userID, id, what string) (*ent.StoreAgent, error) {
	row, _, err := visible(ctx, c, userID, id)
	if err != nil {
		return nil, err
	}
	if row.Status != storeagent.StatusActive {
		return nil, apperr.IllegalMove("%q is %s: only an active listing can be %s", row.Slug, row.Status, what)
	}
	return row, nil
}

// count moves one of a listing's counters in SQL (no lost updates between
// concurrent callers) and answers the listing as the caller now sees it.
// Counters are not owner changes: updated_at stays.
func (s *Service) count(ctx context.Context, tx *db.Tx, userID string, row *ent.StoreAgent, move func(*ent.StoreAgentUpdateOne)) (*switchboardv1.StoreAgent, error) {
	u := tx.StoreAgent.UpdateOneID(row.ID).SetUpdatedAt(row.UpdatedAt)
	move(u)
	row, err := u.Save(ctx)
	if ent.IsNotFound(err) { // deleted since it was read
		return nil, apperr.NotFound("store agent not found")
	} else if err != nil {
		return nil, err
	}
	return s.render(ctx, tx.Client(), userID, row)
}

// Unlocked reports whether userID unlocked agentID with its access password,
// read in the transaction that decides a charge.
func Unlocked(ctx context.Context, c *ent.Client, userID, agentID string) (bool, error) {
	ok, err := c.StoreUnlock.Query().Where(storeunlock.UserID(userID), storeunlock.AgentID(agentID)).Exist(ctx)
	if err != nil {
		return false, err
	}
	return ok, nil
}

// visibleByIDOrSlug is visible for a listing named by its id or, failing
// that, its slug (the MCP tool takes either; docs/decisions.md).
func visibleByIDOrSlug(ctx context.Context, c *ent.Client, userID, ref string) (*ent.StoreAgent, error) {
	row, _, err := visible(ctx, c, userID, ref)
	if err == nil || apperr.From(err).Kind != apperr.KindNotFound {
		return row, err
	}
	id, serr := c.StoreAgent.Query().Where(storeagent.Slug(ref)).OnlyID(ctx)
	if ent.IsNotFound(serr) {
		return nil, err
	} else if serr != nil {
		return nil, serr
	}
	row, _, err = visible(ctx, c, userID, id)
	if err != nil {
		return nil, apperr.NotFound("store agent %q not found", ref)
	}
	return row, nil
}
