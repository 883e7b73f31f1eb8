package review

import (
	"context"
	"slices"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/reputation"
)

// reputations recalculates the reputation (server/reputation) of both
// parties to a reviewed execution, its requester and its agent's owner, as
// after every review. An unlinked execution (its listing removed) has no
// owner any more, and counts for neither owner: only its requester's is.
func (s *Service) reputations(ctx context.Context, tx *db.Tx, ex *ent.Execution) error {
	users := []string{ex.UserID}
	if ex.AgentID != nil {
		owner, err := tx.StoreAgent.Query().Where(storeagent.ID(*ex.AgentID)).Select(storeagent.FieldUserID).String(ctx)
		if err != nil {
			return err
		}
		users = append(users, owner)
	}
	slices.Sort(users) // one lock order for every transaction
	for _, u := range slices.Compact(users) {
		if err := reputation.Recalculate(ctx, tx, s.now(), u); err != nil {
			return err
		}
	}
	return nil
}
