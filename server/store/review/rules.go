// Package review owns what follows a store execution (store_review.proto): the
// delivery of a completed marketplace result to its requester (a shared
// document, a queue item, the review widget), the 48-hour review window with
// confirm, deny (and requeue) and auto-confirm on a durable timer, the payment
// hold's capture or release, the requester's rating and quality scores, User
// reputation, and the agents' quality signals about store agents (POST
// /api/agent-quality).
package review

import (
	"math"
	"time"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/store"
)

// Window is the review window, counted from reviewWidgetShownAt (docs/decisions.md
// "Store limits").
const Window = store.ReviewWindowHours * time.Hour

// Due is when an open review auto-confirms.
func Due(shownAt time.Time) time.Time { return shownAt.Add(Window) }

// DenialCategories are the values a deny's optional category takes.
var DenialCategories = vocab.Values("denial_category")

// Signal weights (store_review.proto: agent quality).
var (
	minWeight = -0.5
	maxWeight = 1.0
)

// QualityScore maps the mean weight of an agent's signals from [-0.5, 1.0]
// onto 0 to 100, rounded to one decimal.
func QualityScore(sum float64, n int) float64 {
	if n == 0 {
		return 0
	}
	mean := sum / float64(n)
	return round1((mean - minWeight) / (maxWeight - minWeight) * 100)
}

// Reputation is an account's standing, from the reviews it took part in.
type Reputation struct {
	// client (requested reviewed executions), provider (its agents' executions
	// were reviewed) or both.
	Role string
	// 0 to 100: 20 × avgRating × the share of its reviewed executions as a
	// provider that were confirmed (1 with none); 0 without ratings.
	Score float64
	// Averages of 1 to 5 stars, nil without ratings: provider = ratings its
	// agents received; client = ratings it gave as a requester (the store has
	// no rating of requesters); overall = both sets of rows together.
	Avg, AvgProvider, AvgClient *float64
	Received, Given             int
}

// Tally is what Reputation is computed from.
type Tally struct {
	// Ratings received on executions of one's agents, and given on one's own
	// requests.
	ProviderSum, ClientSum     int
	ProviderRated, ClientRated int
	// Reviewed executions of one's agents, and of one's requests
	// (confirmed or denied).
	ProviderConfirmed, ProviderDenied int
	ClientReviewed                    int
}

// Compute applies the formula; ok is false when the account took part in no
// review (no reputation row).
func (t Tally) Compute() (r Reputation, ok bool) {
	provided := t.ProviderConfirmed + t.ProviderDenied
	switch {
	case provided > 0 && t.ClientReviewed > 0:
		r.Role = "both"
	case provided > 0:
		r.Role = "provider"
	case t.ClientReviewed > 0:
		r.Role = "client"
	default:
		return r, false
	}
	r.Received, r.Given = provided, t.ClientReviewed
	avg := func(sum, n int) *float64 {
		if n == 0 {
			return nil
		}
		v := round2(float64(sum) / float64(n))
		return &v
	}
	r.AvgProvider = avg(t.ProviderSum, t.ProviderRated)
	r.AvgClient = avg(t.ClientSum, t.ClientRated)
	r.Avg = avg(t.ProviderSum+t.ClientSum, t.ProviderRated+t.ClientRated)
	if r.Avg != nil {
		share := 1.0
		if provided > 0 {
			share = float64(t.ProviderConfirmed) / float64(provided)
		}
		r.Score = round1(20 * float64(t.ProviderSum+t.ClientSum) / float64(t.ProviderRated+t.ClientRated) * share)
	}
	return r, true
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }
func round2(v float64) float64 { return math.Round(v*100) / 100 }
