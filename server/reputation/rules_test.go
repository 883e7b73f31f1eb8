package reputation_test

import (
	"fmt"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/reputation"
)

// Document 2 "Other records" (User reputation) and RULINGS "The task
// economy" (after every review: provider and client averages from reviews
// received, the overall average over both and the store's, the role from
// the contracts, the existing score over all of them; averages use
// overall).
func TestCompute(t *testing.T) {
	t.Parallel()
	type (
		store     = reputation.StoreTally
		contracts = reputation.ContractTally
		ratings   = reputation.Ratings
	)
	for _, tc := range []struct {
		name                  string
		tally                 reputation.Tally
		role                  vocab.EconomyRole
		avg, provider, client *float64
		score                 float64
		received, given       int
	}{
		{
			// The store's formula as it was: 20 × 4.5 × 3/4 confirmed.
			name:  "store only, as provider",
			tally: reputation.Tally{Store: store{Received: ratings{Sum: 9, N: 2}, Confirmed: 3, Denied: 1}},
			role:  vocab.EconomyRoleProvider, avg: f(4.5), provider: f(4.5), score: 67.5, received: 4,
		},
		{
			name:  "store only, both sides, no rating",
			tally: reputation.Tally{Store: store{Requested: 2, Denied: 1}},
			role:  vocab.EconomyRoleBoth, received: 1, given: 2,
		},
		{
			// The store has no rating of requesters: what one gives as a
			// requester is not a client rating.
			name:  "store only, as client",
			tally: reputation.Tally{Store: store{Requested: 1}},
			role:  vocab.EconomyRoleClient, given: 1,
		},
		{
			name:  "averages to two decimals",
			tally: reputation.Tally{Store: store{Received: ratings{Sum: 14, N: 3}, Confirmed: 3}},
			role:  vocab.EconomyRoleProvider, avg: f(4.67), provider: f(4.67), score: 93.3, received: 3,
		},
		{
			// One paid and one refunded: 20 × 4 × 1/2.
			name: "contracts only, as provider",
			tally: reputation.Tally{Contracts: contracts{AsProvider: ratings{Sum: 8, N: 2}, Provided: 2, Paid: 1, Unpaid: 1,
				Given: 2}},
			role: vocab.EconomyRoleProvider, avg: f(4), provider: f(4), score: 40, received: 2, given: 2,
		},
		{
			name:  "contracts only, as client",
			tally: reputation.Tally{Contracts: contracts{AsClient: ratings{Sum: 4, N: 1}, Commissioned: 1, Given: 1}},
			role:  vocab.EconomyRoleClient, avg: f(4), client: f(4), score: 80, received: 1, given: 1,
		},
		{
			name:  "a refunded contract counts as a denial",
			tally: reputation.Tally{Contracts: contracts{AsProvider: ratings{Sum: 5, N: 1}, Provided: 1, Unpaid: 1}},
			role:  vocab.EconomyRoleProvider, avg: f(5), provider: f(5), score: 0, received: 1,
		},
		{
			// Not closed yet: neither paid nor refunded, so no share.
			name:  "a contract taken on, no review yet",
			tally: reputation.Tally{Contracts: contracts{Provided: 1}},
			role:  vocab.EconomyRoleProvider,
		},
		{
			name:  "a review received names the side without a contract here",
			tally: reputation.Tally{Contracts: contracts{AsClient: ratings{Sum: 2, N: 1}}},
			role:  vocab.EconomyRoleClient, avg: f(2), client: f(2), score: 40, received: 1,
		},
		{
			// Provider: (9 + 3) / 3 from the store and a contract; client: 5;
			// overall (9 + 3 + 5) / 4 = 4.25; confirmed 2 + paid 1 of 4
			// decided: 20 × 4.25 × 3/4 = 63.75.
			name: "store and contracts together",
			tally: reputation.Tally{
				Store: store{Received: ratings{Sum: 9, N: 2}, Confirmed: 2, Denied: 1, Requested: 1},
				Contracts: contracts{AsProvider: ratings{Sum: 3, N: 1}, AsClient: ratings{Sum: 5, N: 1},
					Provided: 1, Paid: 1, Commissioned: 1, Given: 2},
			},
			role: vocab.EconomyRoleBoth, avg: f(4.25), provider: f(4), client: f(5), score: 63.8, received: 5, given: 3,
		},
		{
			// The bug this package fixed: ratings given (on one's requests,
			// in one's contract reviews) made a client average.
			name:  "ratings given are no client average",
			tally: reputation.Tally{Store: store{Requested: 3}, Contracts: contracts{Commissioned: 2, Given: 2}},
			role:  vocab.EconomyRoleClient, given: 5,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, ok := tc.tally.Compute()
			if !ok {
				t.Fatal("no reputation")
			}
			if r.Role != tc.role || r.Score != tc.score || r.Received != tc.received || r.Given != tc.given {
				t.Errorf("role %s score %v received %d given %d, want %s %v %d %d",
					r.Role, r.Score, r.Received, r.Given, tc.role, tc.score, tc.received, tc.given)
			}
			for _, a := range []struct {
				name      string
				got, want *float64
			}{{"avgRating", r.Avg, tc.avg}, {"avgProviderRating", r.AvgProvider, tc.provider}, {"avgClientRating", r.AvgClient, tc.client}} {
				if show(a.got) != show(a.want) {
					t.Errorf("%s = %s, want %s", a.name, show(a.got), show(a.want))
				}
			}
		})
	}
}

// No role and no review received: no reputation row. A contract offered,
// declined or withdrawn never reaches the tally.
func TestComputeNothing(t *testing.T) {
	t.Parallel()
	if r, ok := (reputation.Tally{}).Compute(); ok {
		t.Fatalf("an account that took part in nothing has %+v", r)
	}
}

func f(v float64) *float64 { return &v }

func show(v *float64) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprint(*v)
}
