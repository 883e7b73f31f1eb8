package developer

import (
	"context"
	"slices"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/store"
)

// decideAny applies d to the store agent or the capability pack id names
// (the review queue lists both under one set of routes): exactly one of
// the answers is set.
func (s *Service) decideAny(ctx context.Context, id string, d decision) (*ent.StoreAgent, *switchboardv1.MarketplaceReview, error) {
	if err := admin(ctx); err != nil {
		return nil, nil, err
	}
	if id != "" {
		isPack, err := s.DB.CapabilityPack.Query().Where(capabilitypack.ID(id)).Exist(ctx)
		if err != nil {
			return nil, nil, apperr.Internal(err)
		}
		if isPack {
			pack, err := s.decidePack(ctx, id, d)
			return nil, pack, err
		}
	}
	row, err := s.decide(ctx, id, d)
	return row, nil, err
}

func ownerView(row *ent.StoreAgent) *switchboardv1.StoreAgent {
	if row == nil {
		return nil
	}
	return store.OwnerView(row)
}

// decidePack moves a capability pack's status under its lock; a synced
// pack's decision goes to its spoke through the outbox in the same
// transaction (CapabilityDecided). Packs have no ship-gate.
func (s *Service) decidePack(ctx context.Context, id string, d decision) (*switchboardv1.MarketplaceReview, error) {
	if err := checkReason(d.reason); err != nil {
		return nil, err
	}
	var row *ent.CapabilityPack
	err := s.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := s.DB.Serialize(ctx, tx, "capability_pack:"+id); err != nil {
			return apperr.Internal(err)
		}
		cur, err := tx.CapabilityPack.Get(ctx, id)
		switch {
		case ent.IsNotFound(err):
			return apperr.NotFound("capability %q not found", id)
		case err != nil:
			return apperr.Internal(err)
		case !slices.Contains(d.from, string(cur.Status)):
			return apperr.IllegalMove("capability %q is %s; it cannot become %s", cur.Name, cur.Status, d.to)
		}
		row, err = tx.CapabilityPack.UpdateOneID(id).SetStatus(capabilitypack.Status(d.to)).SetUpdatedAt(s.now()).Save(ctx)
		if err != nil {
			return apperr.Internal(err)
		}
		return tx.Publish(ctx, CapabilityDecided{Pack: row, Reason: d.reason})
	})
	if err != nil {
		return nil, err
	}
	item := review("capability", row.ID, row.Name, row.Slug, string(row.Status), row.SourceInstanceID, row.RemoteID,
		row.CreatedAt, row.UpdatedAt)
	if err := s.nameInstances(ctx, []*switchboardv1.MarketplaceReview{item}); err != nil {
		return nil, err
	}
	return item, nil
}
