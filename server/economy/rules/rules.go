// Package rules holds the task economy's pure rules (issue 29; RULINGS "The
// task economy"): the contract's state table (which side may make which
// move in which state, and where it leads), the money in cents (the fee,
// the capture, a dispute's split) and the blind review's visibility. No
// storage, no transport: it imports only internal/money and internal/vocab.
package rules

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// The contract's states.
const (
	Offered   = string(vocab.ContractStatusOffered)
	Active    = string(vocab.ContractStatusActive)
	Delivered = string(vocab.ContractStatusDelivered)
	Disputed  = string(vocab.ContractStatusDisputed)
	Closed    = string(vocab.ContractStatusClosed)
	Declined  = string(vocab.ContractStatusDeclined)
	Withdrawn = string(vocab.ContractStatusWithdrawn)
)

// The moves.
const (
	Accept       = string(vocab.ContractMoveAccept)
	Decline      = string(vocab.ContractMoveDecline)
	Withdraw     = string(vocab.ContractMoveWithdraw)
	Deliver      = string(vocab.ContractMoveDeliver)
	Close        = string(vocab.ContractMoveClose)
	Dispute      = string(vocab.ContractMoveDispute)
	Resolve      = string(vocab.ContractMoveResolve)
	Expire       = string(vocab.ContractMoveExpire)
	Update       = string(vocab.ContractMoveUpdate)
	Question     = string(vocab.ContractMoveQuestion)
	Answer       = string(vocab.ContractMoveAnswer)
	Scope        = string(vocab.ContractMoveScope)
	ScopeAccept  = string(vocab.ContractMoveScopeAccept)
	ScopeDecline = string(vocab.ContractMoveScopeDecline)
	SuggestClose = string(vocab.ContractMoveSuggestClose)
	Review       = string(vocab.ContractMoveReview)
)

// Who moves: the two sides, and the two that are neither.
const (
	Client   = string(vocab.ContractRoleClient)
	Provider = string(vocab.ContractRoleProvider)
	// Admin is the instance admin deciding a dispute.
	Admin = "admin"
	// Timer is the durable timer closing a delivered contract left alone.
	Timer = "timer"
)

// ReviewWindow is how long after closing the two sides may review each
// other, and AutoClose how long a delivered contract waits for its client.
const (
	ReviewWindow = 14 * 24 * time.Hour
	AutoClose    = 14 * 24 * time.Hour
)

// rule is one move's row: who may make it, in which states, and the state
// it leads to ("" keeps the state: an exchange within the contract).
type rule struct {
	by   []string
	from []string
	to   string
}

var table = map[string]rule{
	Accept:       {by: []string{Provider}, from: []string{Offered}, to: Active},
	Decline:      {by: []string{Provider}, from: []string{Offered}, to: Declined},
	Withdraw:     {by: []string{Client}, from: []string{Offered}, to: Withdrawn},
	Deliver:      {by: []string{Provider}, from: []string{Active, Delivered}, to: Delivered},
	Close:        {by: []string{Client}, from: []string{Delivered}, to: Closed},
	Dispute:      {by: []string{Client, Provider}, from: []string{Active, Delivered}, to: Disputed},
	Resolve:      {by: []string{Admin}, from: []string{Disputed}, to: Closed},
	Expire:       {by: []string{Timer}, from: []string{Delivered}, to: Closed},
	Update:       {by: []string{Client, Provider}, from: []string{Active, Delivered, Disputed}},
	Question:     {by: []string{Client, Provider}, from: []string{Active, Delivered, Disputed}},
	Answer:       {by: []string{Client, Provider}, from: []string{Active, Delivered, Disputed}},
	Scope:        {by: []string{Client}, from: []string{Active}},
	ScopeAccept:  {by: []string{Provider}, from: []string{Active}},
	ScopeDecline: {by: []string{Provider}, from: []string{Active}},
	SuggestClose: {by: []string{Provider}, from: []string{Active, Delivered}},
	Review:       {by: []string{Client, Provider}, from: []string{Closed}},
}

// ErrSide is a move the caller's side may not make (403); ErrState a move
// the contract's state does not allow (409).
var (
	ErrSide  = errors.New("not this side's move")
	ErrState = errors.New("not a move of this state")
)

// Check answers the state move leads to when side makes it on a contract
// in status, or why it may not: ErrSide first (a side that may never make
// it), then ErrState naming the states that allow it.
func Check(status, move, side string) (string, error) {
	r, ok := table[move]
	if !ok {
		return "", fmt.Errorf("%w: %q is not a contract move", ErrState, move)
	}
	if !slices.Contains(r.by, side) {
		return "", fmt.Errorf("%w: only the %s may %s", ErrSide, strings.Join(r.by, " or the "), words(move))
	}
	if !slices.Contains(r.from, status) {
		return "", fmt.Errorf("%w: a contract may %s only when %s, and this one is %s", ErrState, words(move),
			strings.Join(r.from, " or "), status)
	}
	if r.to == "" {
		return status, nil
	}
	return r.to, nil
}

// Forward says whether moving from one state to another goes forward, so a
// late or replayed move from the other instance changes nothing.
func Forward(from, to string) bool { return rank[to] > rank[from] }

var rank = map[string]int{Offered: 0, Active: 1, Delivered: 2, Disputed: 3, Closed: 4, Declined: 4, Withdrawn: 4}

// Final says whether a contract has ended: nothing but reviews moves it.
func Final(status string) bool { return status == Closed || status == Declined || status == Withdrawn }

// Open says whether the contract still holds the client's money.
func Open(status string) bool { return !Final(status) }

func words(move string) string {
	switch move {
	case ScopeAccept:
		return "accept more scope"
	case ScopeDecline:
		return "decline more scope"
	case SuggestClose:
		return "suggest closing"
	case Question:
		return "ask a question"
	case Update:
		return "share an update"
	case Scope:
		return "propose more scope"
	}
	return move
}

// FeePercent is the recruiting fee's floor (document 2 "Minimum fees"),
// which RULINGS makes the fee: exactly ceil(10 percent) of the price.
const FeePercent = 10

// Fee is ceil(10 percent) of an amount in cents.
func Fee(c money.Cents) money.Cents {
	if c <= 0 {
		return 0
	}
	return (c*FeePercent + 99) / 100
}

// Payout is how a contract's held price is settled: what the provider is
// credited, the fee, and what goes back to the client. They always add up
// to the price.
type Payout struct {
	Provider, Fee, Refund money.Cents
}

// Capture is a close (or a dispute released to the provider): the price
// less the fee to the provider.
func Capture(price money.Cents) Payout {
	fee := Fee(price)
	return Payout{Provider: price - fee, Fee: fee}
}

// Refund is a dispute refunded to the client.
func Refund(price money.Cents) Payout { return Payout{Refund: price} }

// Split is a dispute split at percent for the provider: the provider's share
// floor(price × percent / 100) less the fee on it, the rest of the price
// back to the client.
func Split(price money.Cents, percent int) Payout {
	share := price * money.Cents(percent) / 100
	fee := Fee(share)
	return Payout{Provider: share - fee, Fee: fee, Refund: price - share}
}

// Settle is the payout of a dispute's outcome; percent is read for a split.
func Settle(price money.Cents, outcome string, percent int) (Payout, error) {
	switch outcome {
	case string(vocab.DisputeOutcomeRelease):
		return Capture(price), nil
	case string(vocab.DisputeOutcomeRefund):
		return Refund(price), nil
	case string(vocab.DisputeOutcomeSplit):
		if percent < 1 || percent > 99 {
			return Payout{}, fmt.Errorf("providerPercent: a split needs the provider's share, 1 to 99")
		}
		return Split(price, percent), nil
	}
	return Payout{}, fmt.Errorf("outcome: %q is not release, refund or split", outcome)
}

// ReviewsShown says whether one side may read the other's review: when both
// have reviewed, or the window has ended.
func ReviewsShown(both bool, windowEnds, now time.Time) bool {
	return both || !now.Before(windowEnds)
}

// ReviewOpen says whether a review may still be submitted.
func ReviewOpen(windowEnds, now time.Time) bool { return now.Before(windowEnds) }

// PriceFit is how well a price suits a maximum: 1 − price / max, 0 above
// the maximum; NeutralPriceFit when no maximum was given.
func PriceFit(price, maxPrice money.Cents) float64 {
	if maxPrice <= 0 {
		return NeutralPriceFit
	}
	if price > maxPrice || price < 0 {
		return 0
	}
	return 1 - float64(price)/float64(maxPrice)
}

// NeutralPriceFit is the price fit of every candidate when the caller named
// no maximum: it ranks no one above another.
const NeutralPriceFit = 0.5

// PriceWeight is price fit's share of find_providers' score; route_task's
// seven factors share the rest in their own proportions.
const PriceWeight = 0.2

// Score is find_providers' ranking: route_task's score (0 to 1) with price fit.
func Score(routeScore, priceFit float64) float64 {
	return (1-PriceWeight)*routeScore + PriceWeight*priceFit
}
