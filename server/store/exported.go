package store

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
)

// What the packages that build on listings (the review lifecycle) use.

// ExecutionProto renders an execution as the store answers it.
func ExecutionProto(e *ent.Execution) *switchboardv1.StoreExecution { return toExecution(e) }

// Rerate recalculates a listing's rating average under its lock, after a
// rating was written in tx.
func Rerate(ctx context.Context, d *db.DB, tx *db.Tx, agentID string) error {
	if err := d.Serialize(ctx, tx, lockKey(agentID)); err != nil {
		return err
	}
	row, err := tx.StoreAgent.Get(ctx, agentID)
	if err != nil {
		return err
	}
	_, err = rerate(ctx, tx, row)
	return err
}
