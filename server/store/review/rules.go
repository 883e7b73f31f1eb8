// Package review owns what follows a store execution (store_review.proto): the
// delivery of a completed marketplace result to its requester (a shared
// document, a queue item, the review widget), the 48-hour review window with
// confirm, deny (and requeue) and auto-confirm on a durable timer, the payment
// hold's capture or release, the requester's rating and quality scores, the
// recalculation of both parties' reputations (server/reputation computes
// them), and the agents' quality signals about store agents (POST
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

func round1(v float64) float64 { return math.Round(v*10) / 10 }
