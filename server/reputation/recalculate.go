package reputation

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/ent/contractreview"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/userreputation"
	"github.com/switchboard-hq/switchboard/internal/db"
)

// Recalculate recomputes userID's reputation from everything the store and
// the task economy hold of it, and writes the row (created the first time)
// in tx, stamped now. It writes nothing for an account with no role and no
// review received. Concurrent recalculations of one account take turns, so
// the last to commit read what the others wrote.
func Recalculate(ctx context.Context, tx *db.Tx, now time.Time, userID string) error {
	if err := tx.Serialize(ctx, "reputation:"+userID); err != nil {
		return err
	}
	var t Tally
	var err error
	if t.Store, err = storeTally(ctx, tx, userID); err != nil {
		return fmt.Errorf("reputation: the store's reviews of %s: %w", userID, err)
	}
	if t.Contracts, err = contractTally(ctx, tx, userID); err != nil {
		return fmt.Errorf("reputation: the contracts of %s: %w", userID, err)
	}
	r, ok := t.Compute()
	if !ok {
		return nil
	}
	return write(ctx, tx, now, userID, r)
}

// storeTally reads the reviewed executions (confirmed or denied) of the
// user's agents and of the user's own requests, other than of one's own
// agent. An execution whose listing was removed counts for no owner.
func storeTally(ctx context.Context, tx *db.Tx, userID string) (StoreTally, error) {
	var s StoreTally
	done := execution.ReviewStatusIn(execution.ReviewStatusConfirmed, execution.ReviewStatusDenied)
	provided, err := tx.Execution.Query().Where(done, execution.IsOwnAgent(false),
		execution.HasStoreAgentWith(storeagent.UserID(userID))).
		Select(execution.FieldReviewStatus, execution.FieldRating).All(ctx)
	if err != nil {
		return s, err
	}
	for _, e := range provided {
		if *e.ReviewStatus == execution.ReviewStatusConfirmed {
			s.Confirmed++
		} else {
			s.Denied++
		}
		if e.Rating != nil {
			s.Received.Add(*e.Rating)
		}
	}
	s.Requested, err = tx.Execution.Query().Where(done, execution.IsOwnAgent(false), execution.UserID(userID)).Count(ctx)
	return s, err
}

// had are the states of a contract that was taken on: past the offer, and
// neither declined nor withdrawn.
var had = []contract.Status{contract.StatusActive, contract.StatusDelivered, contract.StatusDisputed, contract.StatusClosed}

// contractTally reads the reviews the user received and wrote and the
// contracts the user had on either side. A review of a side on another
// instance names no local reviewee, so it counts for no one here.
func contractTally(ctx context.Context, tx *db.Tx, userID string) (ContractTally, error) {
	var c ContractTally
	received, err := tx.ContractReview.Query().Where(contractreview.RevieweeUserID(userID)).
		Select(contractreview.FieldBy, contractreview.FieldOverall).All(ctx)
	if err != nil {
		return c, err
	}
	for _, r := range received {
		// The reviewer's side names what the reviewee was.
		if r.By == contractreview.ByClient {
			c.AsProvider.Add(r.Overall)
		} else {
			c.AsClient.Add(r.Overall)
		}
	}
	if c.Given, err = tx.ContractReview.Query().Where(contractreview.ReviewerUserID(userID)).Count(ctx); err != nil {
		return c, err
	}
	provided, err := tx.Contract.Query().Where(contract.ProviderUserID(userID), contract.StatusIn(had...)).
		Select(contract.FieldStatus, contract.FieldDisputeOutcome).All(ctx)
	if err != nil {
		return c, err
	}
	c.Provided = len(provided)
	for _, k := range provided {
		switch {
		case k.Status != contract.StatusClosed:
		case paid(k):
			c.Paid++
		default:
			c.Unpaid++
		}
	}
	c.Commissioned, err = tx.Contract.Query().Where(contract.ClientUserID(userID), contract.StatusIn(had...)).Count(ctx)
	return c, err
}

// paid says whether a closed contract paid its provider: closed by the
// client or the timer, or a dispute released or split; only a refund pays
// nothing. Read from the outcome rather than the amount, so a contract at
// no price, or a remote client's capture not yet reported, still counts.
func paid(k *ent.Contract) bool {
	return k.DisputeOutcome == nil || *k.DisputeOutcome != contract.DisputeOutcomeRefund
}

// write updates the user's row, or creates it the first time. An average
// now without ratings is cleared: rows written before contract reviews
// counted carry a client average of ratings given, which is no longer one.
func write(ctx context.Context, tx *db.Tx, now time.Time, userID string, r Reputation) error {
	role := userreputation.TaskEconomyRole(r.Role)
	u := tx.UserReputation.Update().Where(userreputation.UserID(userID)).
		SetTaskEconomyRole(role).SetReputationScore(r.Score).
		SetReviewsReceived(r.Received).SetReviewsGiven(r.Given).SetUpdatedAt(now)
	setOrClear(r.Avg, u.SetAvgRating, u.ClearAvgRating)
	setOrClear(r.AvgProvider, u.SetAvgProviderRating, u.ClearAvgProviderRating)
	setOrClear(r.AvgClient, u.SetAvgClientRating, u.ClearAvgClientRating)
	n, err := u.Save(ctx)
	if err != nil || n > 0 {
		return err
	}
	return tx.UserReputation.Create().SetUserID(userID).
		SetTaskEconomyRole(role).SetReputationScore(r.Score).
		SetNillableAvgRating(r.Avg).SetNillableAvgProviderRating(r.AvgProvider).SetNillableAvgClientRating(r.AvgClient).
		SetReviewsReceived(r.Received).SetReviewsGiven(r.Given).SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx)
}

func setOrClear[U any](v *float64, set func(float64) U, unset func() U) {
	if v == nil {
		unset()
	} else {
		set(*v)
	}
}
