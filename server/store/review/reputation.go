package review

import (
	"context"
	"slices"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/userreputation"
	"github.com/switchboard-hq/switchboard/internal/db"
)

// reputations recalculates the reputation of both parties to a reviewed
// execution: its requester and its agent's owner (recalculated
// after every review). An unlinked execution (its listing removed) has no
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
		if err := s.recalculate(ctx, tx, u); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) recalculate(ctx context.Context, tx *db.Tx, userID string) error {
	if err := s.DB.Serialize(ctx, tx, "reputation:"+userID); err != nil {
		return err
	}
	var t Tally
	done := execution.ReviewStatusIn(execution.ReviewStatusConfirmed, execution.ReviewStatusDenied)
	provided, err := tx.Execution.Query().Where(done, execution.IsOwnAgent(false),
		execution.HasStoreAgentWith(storeagent.UserID(userID))).
		Select(execution.FieldReviewStatus, execution.FieldRating).All(ctx)
	if err != nil {
		return err
	}
	for _, e := range provided {
		if *e.ReviewStatus == execution.ReviewStatusConfirmed {
			t.ProviderConfirmed++
		} else {
			t.ProviderDenied++
		}
		if e.Rating != nil {
			t.ProviderSum += *e.Rating
			t.ProviderRated++
		}
	}
	requested, err := tx.Execution.Query().Where(done, execution.IsOwnAgent(false), execution.UserID(userID)).
		Select(execution.FieldRating).All(ctx)
	if err != nil {
		return err
	}
	for _, e := range requested {
		t.ClientReviewed++
		if e.Rating != nil {
			t.ClientSum += *e.Rating
			t.ClientRated++
		}
	}
	r, ok := t.Compute()
	if !ok {
		return nil
	}
	now := s.now()
	n, err := tx.UserReputation.Update().Where(userreputation.UserID(userID)).
		SetTaskEconomyRole(userreputation.TaskEconomyRole(r.Role)).SetReputationScore(r.Score).
		SetNillableAvgRating(r.Avg).SetNillableAvgProviderRating(r.AvgProvider).SetNillableAvgClientRating(r.AvgClient).
		SetReviewsReceived(r.Received).SetReviewsGiven(r.Given).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	err = tx.UserReputation.Create().SetUserID(userID).
		SetTaskEconomyRole(userreputation.TaskEconomyRole(r.Role)).SetReputationScore(r.Score).
		SetNillableAvgRating(r.Avg).SetNillableAvgProviderRating(r.AvgProvider).SetNillableAvgClientRating(r.AvgClient).
		SetReviewsReceived(r.Received).SetReviewsGiven(r.Given).SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx)
	return err
}
