package rules

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// ErrJobShut is an application to a job that takes none (400).
var ErrJobShut = errors.New("the job takes no applications")

// Takes says whether a job takes an application at now, or why not: it must
// be open (not closed, not awarded) and, for an auction, before closesAt.
func Takes(status string, awarded bool, closesAt *time.Time, now time.Time) error {
	switch {
	case awarded:
		return fmt.Errorf("%w: it was awarded", ErrJobShut)
	case status != string(vocab.JobStatusOpen):
		return fmt.Errorf("%w: it is %s", ErrJobShut, status)
	case closesAt != nil && !now.Before(*closesAt):
		return fmt.Errorf("%w: its auction closed at %s", ErrJobShut, closesAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// Bid is one application as an auction weighs it: route_task's score of
// its applicant for the job (0 to 1) and its price.
type Bid struct {
	ID         string
	RouteScore float64
	Price      money.Cents
}

// Weighed is a bid with its price fit and find_providers' score.
type Weighed struct {
	Bid
	PriceFit, Score float64
}

// Auction ranks bids best first by find_providers' score, route_task's
// score with price fit against maxPrice (RULINGS "The task economy":
// Jobs; reconciliation 18: the application's price). Equal scores go to
// the lower price, then to the earlier bid (the order given), so the same
// bids always give the same award.
func Auction(bids []Bid, maxPrice money.Cents) []Weighed {
	out := make([]Weighed, 0, len(bids))
	for _, b := range bids {
		fit := PriceFit(b.Price, maxPrice)
		out = append(out, Weighed{Bid: b, PriceFit: fit, Score: Score(b.RouteScore, fit)})
	}
	slices.SortStableFunc(out, func(a, b Weighed) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Price, b.Price))
	})
	return out
}
