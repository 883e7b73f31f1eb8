package store

import (
	"context"

	"entgo.io/ent/dialect/sql/sqlgraph"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/storeinstall"
	"github.com/switchboard-hq/switchboard/ent/storesubscription"
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
	var out *switchboardv1.StoreAgent
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		row, err := joinable(ctx, tx.Client(), p.UserID, req.GetId(), "subscribed to")
		if err != nil {
			return err
		}
		now := s.now()
		err = tx.StoreSubscription.Create().SetUserID(p.UserID).SetAgentID(row.ID).SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx)
		if err = joined(err, row, "you are already subscribed to %q"); err != nil {
			return err
		}
		out, err = s.count(ctx, tx, p.UserID, row, func(u *ent.StoreAgentUpdateOne) { u.AddSubscriberCount(1) })
		return err
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
	var out *switchboardv1.StoreAgent
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		row, _, err := visible(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return err
		}
		n, err := tx.StoreSubscription.Delete().Where(storesubscription.UserID(p.UserID), storesubscription.AgentID(row.ID)).Exec(ctx)
		if err != nil {
			return apperr.Internal(err)
		}
		if n == 0 {
			return apperr.NotFound("you are not subscribed to %q", row.Slug)
		}
		out, err = s.count(ctx, tx, p.UserID, row, func(u *ent.StoreAgentUpdateOne) { u.AddSubscriberCount(-1) })
		return err
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
			return apperr.Internal(err)
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
			return apperr.Internal(err)
		}
		if n == 0 {
			return apperr.NotFound("%q is not installed", row.Slug)
		}
		removed, err := removeMemory(ctx, tx, p.UserID, row.ID)
		if err != nil {
			return apperr.Internal(err)
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
		return apperr.Internal(err)
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
		return nil, apperr.Internal(err)
	}
	return s.render(ctx, tx.Client(), userID, row)
}
