package groups

import (
	"time"

	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// The managed platform's team plans (document 2 "Billing boundary"; RULINGS
// "Teams, projects, invites, profiles": billing): pure, no storage.
const (
	starterCents     money.Cents = 2900
	starterSeats                 = 5
	proCents         money.Cents = 7900
	proSeats                     = 10
	proExtraSeatCost money.Cents = 900
	// PlanCurrency is the plans' currency.
	PlanCurrency = "USD"
	// PastDueGrace is how long a failed renewal waits before the plan is
	// canceled.
	PastDueGrace = 7 * 24 * time.Hour
)

// PlanSeats is how many members (the owner included) a plan covers.
func PlanSeats(plan string, extra int) int {
	if plan == string(vocab.TeamPlanPro) {
		return proSeats + extra
	}
	return starterSeats
}

// PlanCents is a plan's monthly price.
func PlanCents(plan string, extra int) money.Cents {
	if plan == string(vocab.TeamPlanPro) {
		return proCents + money.Cents(extra)*proExtraSeatCost
	}
	return starterCents
}

// Quote is the cheapest plan that covers seats: Starter up to five, else
// Pro with the extra seats beyond ten.
func Quote(seats int) (plan string, extra int, cents money.Cents) {
	if seats <= starterSeats {
		return string(vocab.TeamPlanStarter), 0, starterCents
	}
	extra = max(0, seats-proSeats)
	return string(vocab.TeamPlanPro), extra, PlanCents(string(vocab.TeamPlanPro), extra)
}

// SeatsAllowed is how many members a platform team may have under its
// subscription's status: a plan that is active or past due (its grace)
// covers its seats; none, or a canceled one, covers the owner alone.
func SeatsAllowed(plan, status string, extra int) int {
	if status == string(vocab.SubscriptionStatusActive) || status == string(vocab.SubscriptionStatusPastDue) {
		return PlanSeats(plan, extra)
	}
	return 1
}

// Renewal is what one renewal attempt leaves: the status, the next due
// time and since when the plan has been past due.
type Renewal struct {
	Status       string
	PeriodEnd    time.Time
	PastDueSince *time.Time
}

// Renew is the renewal state machine for a subscription due at now: a
// charge that went through starts the next month (from the end of the
// paid one) and clears past due; a failed one makes it past due from now,
// to be tried again in a day, and canceled once PastDueGrace has passed
// since the first failure.
func Renew(r Renewal, charged bool, now time.Time) Renewal {
	if charged {
		return Renewal{Status: string(vocab.SubscriptionStatusActive), PeriodEnd: r.PeriodEnd.AddDate(0, 1, 0)}
	}
	since := now
	if r.PastDueSince != nil {
		since = *r.PastDueSince
	}
	if !now.Before(since.Add(PastDueGrace)) {
		return Renewal{Status: string(vocab.SubscriptionStatusCanceled), PeriodEnd: r.PeriodEnd, PastDueSince: &since}
	}
	next := now.Add(24 * time.Hour)
	if end := since.Add(PastDueGrace); next.After(end) {
		next = end
	}
	return Renewal{Status: string(vocab.SubscriptionStatusPastDue), PeriodEnd: next, PastDueSince: &since}
}
