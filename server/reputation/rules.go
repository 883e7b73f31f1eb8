// Package reputation owns a user's standing (the UserReputation row,
// document 2 "Other records"; RULINGS "The task economy"): one reputation
// from the store's reviewed executions and the task economy's contract
// reviews, recalculated after every review the user takes part in. The
// formula (rules.go) is pure; Recalculate (recalculate.go) reads both
// sources and writes the row in the caller's unit of work. It imports no
// store or economy package: both call it.
package reputation

import (
	"math"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Reputation is an account's standing, from the reviews it took part in.
type Reputation struct {
	// Client (it requested reviewed executions or hired a provider),
	// provider (its agents' executions were reviewed, or it took on a
	// contract) or both.
	Role vocab.EconomyRole
	// 0 to 100: 20 × the mean of every rating received × the share of what
	// it provided that was confirmed or paid (1 with none); 0 without ratings.
	Score float64
	// Averages of 1 to 5 stars, nil without ratings, all of ratings
	// received (a contract review counts its overall score): provider = on
	// its agents' executions and as a contract's provider; client = as a
	// contract's client (the store has no rating of requesters); overall =
	// both together.
	Avg, AvgProvider, AvgClient *float64
	// Reviews received (its agents' reviewed executions, rated or not, and
	// contract reviews of it) and given (its own reviewed requests and the
	// contract reviews it wrote).
	Received, Given int
}

// Ratings is a sum of 1-to-5-star ratings and how many there are.
type Ratings struct{ Sum, N int }

// Add counts one rating.
func (r *Ratings) Add(stars int) { r.Sum += stars; r.N++ }

func (r Ratings) plus(o Ratings) Ratings { return Ratings{Sum: r.Sum + o.Sum, N: r.N + o.N} }

// mean is the average to two decimals, nil without a rating.
func (r Ratings) mean() *float64 {
	if r.N == 0 {
		return nil
	}
	v := round2(float64(r.Sum) / float64(r.N))
	return &v
}

// Tally is what a Reputation is computed from.
type Tally struct {
	Store     StoreTally
	Contracts ContractTally
}

// StoreTally is what the store's reviewed executions (confirmed or denied,
// never one's own agent's) say of an account.
type StoreTally struct {
	// Ratings received on executions of one's agents. The ratings one gave
	// on one's own requests are not received, and count in no average.
	Received Ratings
	// One's agents' reviewed executions, by outcome.
	Confirmed, Denied int
	// One's own reviewed requests.
	Requested int
}

// ContractTally is what the task economy's contracts say of an account.
type ContractTally struct {
	// Overall scores of the reviews received, by the side reviewed: as
	// provider (the client wrote it) and as client (the provider wrote it).
	AsProvider, AsClient Ratings
	// Reviews one wrote.
	Given int
	// Contracts one had past the offer (active, delivered, disputed or
	// closed), as provider and as client.
	Provided, Commissioned int
	// Closed contracts one provided: paid (closed, released or split) or
	// not (a dispute refunded to the client). A paid one counts in the
	// score as a confirmed execution does, an unpaid one as a denied one.
	Paid, Unpaid int
}

// Compute applies the formula; ok is false when the account has had no
// role and received no review (no reputation row).
func (t Tally) Compute() (r Reputation, ok bool) {
	s, c := t.Store, t.Contracts
	provider := s.Confirmed+s.Denied > 0 || c.Provided > 0 || c.AsProvider.N > 0
	client := s.Requested > 0 || c.Commissioned > 0 || c.AsClient.N > 0
	switch {
	case provider && client:
		r.Role = vocab.EconomyRoleBoth
	case provider:
		r.Role = vocab.EconomyRoleProvider
	case client:
		r.Role = vocab.EconomyRoleClient
	default:
		return r, false
	}
	asProvider := s.Received.plus(c.AsProvider)
	all := asProvider.plus(c.AsClient)
	r.AvgProvider, r.AvgClient, r.Avg = asProvider.mean(), c.AsClient.mean(), all.mean()
	r.Received = s.Confirmed + s.Denied + c.AsProvider.N + c.AsClient.N
	r.Given = s.Requested + c.Given
	if all.N > 0 {
		confirmed := s.Confirmed + c.Paid
		share := 1.0
		if decided := confirmed + s.Denied + c.Unpaid; decided > 0 {
			share = float64(confirmed) / float64(decided)
		}
		r.Score = round1(20 * float64(all.Sum) / float64(all.N) * share)
	}
	return r, true
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }
func round2(v float64) float64 { return math.Round(v*100) / 100 }
