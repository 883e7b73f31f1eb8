package reputation_test

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/ent/contractreview"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/userreputation"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/reputation"
)

// RULINGS "The task economy" (after every review the reputation is
// recomputed from both sources): Recalculate reads the store's reviewed
// executions and the contract reviews received, and writes the row, over
// one left by the old rule (a client average of ratings given).
func TestRecalculate(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t)
	ctx := t.Context()
	then := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	now := then.Add(24 * time.Hour)
	d.SetClock(func() time.Time { return then })
	w := world{t: t, ctx: ctx, d: d, now: now, names: map[string]string{}}

	ann, bob, carol, dave := w.user("ann"), w.user("bob"), w.user("carol"), w.user("dave")
	agent := d.StoreAgent.Create().SetUserID(bob).SetName("Scout").SetSlug("scout").SaveX(ctx)
	confirmed, denied, pending := execution.ReviewStatusConfirmed, execution.ReviewStatusDenied, execution.ReviewStatusPendingReview
	w.execution(ann, agent.ID, confirmed, 4, false)
	w.execution(carol, agent.ID, denied, 0, false)
	w.execution(carol, agent.ID, confirmed, 5, false)
	w.execution(bob, agent.ID, confirmed, 1, true) // one's own agent counts for no one
	w.execution(ann, agent.ID, pending, 1, false)  // not reviewed yet

	// Ann hired bob twice: one closed and paid, one refunded after a
	// dispute; bob's offer to carol waits, dave declined ann's; carol's
	// provider is on another instance (no local reviewee).
	paid := w.contract(&ann, &bob, contract.StatusClosed, nil)
	refunded := w.contract(&ann, &bob, contract.StatusClosed, ptr(contract.DisputeOutcomeRefund))
	w.contract(&carol, &bob, contract.StatusOffered, nil)
	w.contract(&ann, &dave, contract.StatusDeclined, nil)
	remote := w.contract(&carol, nil, contract.StatusClosed, nil)
	w.review(paid, contractreview.ByClient, ann, &bob, 5)
	w.review(paid, contractreview.ByProvider, bob, &ann, 3)
	w.review(refunded, contractreview.ByClient, ann, &bob, 2)
	w.review(remote, contractreview.ByClient, carol, nil, 4)

	// Rows as the old rule left them: a client average of ratings given.
	for _, u := range []struct {
		id  string
		avg float64
	}{{ann, 4}, {carol, 5}} {
		d.UserReputation.Create().SetUserID(u.id).SetTaskEconomyRole(userreputation.TaskEconomyRoleClient).
			SetReputationScore(20 * u.avg).SetAvgRating(u.avg).SetAvgClientRating(u.avg).SetReviewsGiven(1).ExecX(ctx)
	}

	for _, u := range []string{ann, bob, carol, dave} {
		if err := d.InTx(ctx, func(tx *db.Tx) error { return reputation.Recalculate(ctx, tx, w.now, u) }); err != nil {
			t.Fatalf("recalculate %s: %v", u, err)
		}
	}

	// Bob: store ratings 4 and 5 (confirmed 2, denied 1), contract reviews
	// as provider 5 and 2 (paid 1, refunded 1): provider average 16/4 = 4,
	// 20 × 4 × 3/5.
	w.want(bob, userreputation.TaskEconomyRoleProvider, 48, f(4), f(4), nil, 5, 1, now)
	// Ann: received 3 as client (her store rating of 4 and her two contract
	// reviews are given): 20 × 3.
	w.want(ann, userreputation.TaskEconomyRoleClient, 60, f(3), nil, f(3), 1, 3, then)
	// Carol gave ratings (a 5 in the store, a 4 to her remote provider) and
	// received none: no average, the old one cleared.
	w.want(carol, userreputation.TaskEconomyRoleClient, 0, nil, nil, nil, 0, 3, then)
	if d.UserReputation.Query().Where(userreputation.UserID(dave)).ExistX(ctx) {
		t.Error("dave, who only declined an offer, has a reputation row")
	}
}

// world writes the rows a test reads back, as the store and the economy
// would have left them.
type world struct {
	t   *testing.T
	ctx context.Context
	d   *db.DB
	now time.Time // when Recalculate runs
	// names of the users by id, for the messages
	names map[string]string
}

func (w world) user(name string) string {
	id := w.d.User.Create().SetUsername(name).SetEmail(name + "@example.com").SetName(name).SetPasswordHash("x").
		SaveX(w.ctx).ID
	w.names[id] = name
	return id
}

func (w world) execution(by, agentID string, review execution.ReviewStatus, rating int, own bool) {
	c := w.d.Execution.Create().SetUserID(by).SetAgentID(agentID).SetStatus(execution.StatusCompleted).SetInput("task").
		SetIsOwnAgent(own).SetReviewStatus(review)
	if rating > 0 {
		c.SetRating(rating)
	}
	c.ExecX(w.ctx)
}

func (w world) contract(client, provider *string, status contract.Status, outcome *contract.DisputeOutcome) string {
	c := w.d.Contract.Create().SetNillableClientUserID(client).SetNillableProviderUserID(provider).
		SetTaskType("research").SetTitle("Market scan").SetPriceCents(10000).SetFeeCents(1000).SetCurrency("USD").
		SetStatus(status).SetNillableDisputeOutcome(outcome)
	if provider == nil {
		c.SetConnectionID("con_1").SetOriginContractID("ctr_remote")
	}
	return c.SaveX(w.ctx).ID
}

func (w world) review(contractID string, by contractreview.By, reviewer string, reviewee *string, overall int) {
	w.d.ContractReview.Create().SetContractID(contractID).SetBy(by).SetReviewerUserID(reviewer).
		SetNillableRevieweeUserID(reviewee).SetOverall(overall).SetCommunication(1).SetQuality(1).SetTimeliness(1).
		ExecX(w.ctx)
}

func (w world) want(userID string, role userreputation.TaskEconomyRole, score float64, avg, provider, client *float64,
	received, given int, created time.Time) {
	w.t.Helper()
	r, err := w.d.UserReputation.Query().Where(userreputation.UserID(userID)).Only(w.ctx)
	if err != nil {
		w.t.Fatalf("reputation of %s: %v", w.names[userID], err)
	}
	if r.TaskEconomyRole != role || r.ReputationScore != score || r.ReviewsReceived != received || r.ReviewsGiven != given ||
		show(r.AvgRating) != show(avg) || show(r.AvgProviderRating) != show(provider) || show(r.AvgClientRating) != show(client) {
		w.t.Errorf("%s: role %s score %v avg %s provider %s client %s received %d given %d; want %s %v %s %s %s %d %d",
			w.names[userID], r.TaskEconomyRole, r.ReputationScore, show(r.AvgRating), show(r.AvgProviderRating), show(r.AvgClientRating),
			r.ReviewsReceived, r.ReviewsGiven, role, score, show(avg), show(provider), show(client), received, given)
	}
	if !r.CreatedAt.Equal(created) || !r.UpdatedAt.Equal(w.now) {
		w.t.Errorf("%s: created at %v, updated at %v", w.names[userID], r.CreatedAt, r.UpdatedAt)
	}
}

func ptr[T any](v T) *T { return &v }
