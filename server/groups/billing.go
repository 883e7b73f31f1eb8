package groups

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/teamsubscription"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/alarm"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/timers"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// Billing on the managed platform (issue 28 point 9): only a hub's teams
// made without originInstanceUrl are billed; everything else is
// self-hosted and never gated.

// Charger charges one period of a subscription in the caller's unit of
// work (server/store/payments.Ledger, the store's ledger).
type Charger interface {
	ChargeSubscription(ctx context.Context, tx *db.Tx, subscriptionID, period, payerID string, amount money.Cents, currency string) error
}

// CodePaymentRequired is the seat gate's refusal code (402).
const CodePaymentRequired = "PAYMENT_REQUIRED"

// billed says whether t is a platform team, whose seats are gated.
func (s *Core) billed(t *ent.Team) bool { return s.Platform && !t.IsSelfHosted }

// seatGate refuses adding one member to t beyond what its subscription
// covers: 402 PAYMENT_REQUIRED quoting the cheapest plan that covers the
// seats (the owner counts as one). Self-hosted teams pass.
func (s *Core) seatGate(ctx context.Context, tx *db.Tx, t *ent.Team) error {
	if !s.billed(t) {
		return nil
	}
	n, err := teamSize(ctx, tx.Client(), t.ID)
	if err != nil {
		return err
	}
	allowed := 1
	sub, err := tx.TeamSubscription.Query().Where(teamsubscription.TeamID(t.ID)).Only(ctx)
	switch {
	case err == nil:
		allowed = SeatsAllowed(string(sub.Plan), string(sub.Status), sub.ExtraSeats)
	case !ent.IsNotFound(err):
		return err
	}
	if n+1 <= allowed {
		return nil
	}
	plan, _, cents := Quote(n + 1)
	return seatsRefused(n+1, fmt.Sprintf("team %q has %d of its %d seats taken: a member more needs the %s plan (%s a month); its owner subscribes at POST /api/teams/%s/subscription",
		t.Name, n, allowed, plan, price(cents), t.ID))
}

// seatsRefused is the 402 of seats no plan in force covers, quoting the
// cheapest plan that covers them.
func seatsRefused(seats int, msg string) error {
	plan, extra, cents := Quote(seats)
	return &apperr.Error{Kind: apperr.KindPaymentRequired, Message: msg,
		Detail: &switchboardv1.ErrorInfo{Code: CodePaymentRequired,
			PlanPrice: &switchboardv1.PlanPrice{AmountCents: int32(cents), Currency: PlanCurrency, Plan: plan, ExtraSeats: int32(extra)}}}
}

// price is an amount in cents as people read it.
func price(c money.Cents) string { return fmt.Sprintf("%d.%02d %s", c/100, c%100, PlanCurrency) }

func toSubscription(sub *ent.TeamSubscription) *switchboardv1.TeamSubscription {
	if sub == nil {
		return nil
	}
	return &switchboardv1.TeamSubscription{Plan: string(sub.Plan), Status: string(sub.Status),
		Seats: int32(PlanSeats(string(sub.Plan), sub.ExtraSeats)), ExtraSeats: int32(sub.ExtraSeats),
		AmountCents: int32(sub.AmountCents), Currency: sub.Currency, CurrentPeriodEnd: ts(sub.CurrentPeriodEnd),
		PastDueSince: optTS(sub.PastDueSince)}
}

// subscriptionOf is t's subscription, nil for a self-hosted team or one
// that never subscribed.
func (s *Core) subscriptionOf(ctx context.Context, c *ent.Client, t *ent.Team) (*ent.TeamSubscription, error) {
	if !s.billed(t) {
		return nil, nil
	}
	sub, err := c.TeamSubscription.Query().Where(teamsubscription.TeamID(t.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return sub, err
}

// period names one charge of a subscription: its id and the period's end.
func period(subID string, end time.Time) string {
	return subID + ":" + end.UTC().Format("2006-01-02")
}

// SubscribeTeam puts a platform team on a plan, charging the first month.
func (x *Teams) SubscribeTeam(ctx context.Context, req *switchboardv1.SubscribeTeamRequest) (*switchboardv1.SubscribeTeamResponse, error) {
	s := x.core
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	plan, extra := req.GetPlan(), int(req.GetExtraSeats())
	if plan == "" {
		return nil, apperr.Invalid("plan is required: starter or pro")
	}
	if extra > 0 && plan != string(vocab.TeamPlanPro) {
		return nil, apperr.Invalid("extraSeats: only the pro plan takes extra seats")
	}
	return db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.SubscribeTeamResponse, error) {
		t, role, err := teamFor(ctx, tx.Client(), req.GetId(), p.UserID, TeamDelete)
		if err != nil {
			return nil, err
		}
		if !s.billed(t) {
			return nil, apperr.Invalid("team %q is self-hosted: it is billed at its own instance, never here", t.Name)
		}
		n, err := teamSize(ctx, tx.Client(), t.ID)
		if err != nil {
			return nil, err
		}
		if PlanSeats(plan, extra) < n {
			return nil, seatsRefused(n, fmt.Sprintf("the %s plan covers %d seats and the team has %d members", plan, PlanSeats(plan, extra), n))
		}
		now, cents := s.now(), PlanCents(plan, extra)
		end := now.AddDate(0, 1, 0)
		sub, err := tx.TeamSubscription.Query().Where(teamsubscription.TeamID(t.ID)).Only(ctx)
		switch {
		case ent.IsNotFound(err):
			sub, err = tx.TeamSubscription.Create().SetTeamID(t.ID).SetPayerID(p.UserID).SetPlan(teamsubscription.Plan(plan)).
				SetStatus(teamsubscription.StatusActive).SetExtraSeats(extra).SetAmountCents(cents).SetCurrency(PlanCurrency).
				SetCurrentPeriodEnd(end).SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
		case err == nil:
			// A change of plan starts a new month at the new price.
			sub, err = sub.Update().SetPayerID(p.UserID).SetPlan(teamsubscription.Plan(plan)).
				SetStatus(teamsubscription.StatusActive).SetExtraSeats(extra).SetAmountCents(cents).
				SetCurrentPeriodEnd(end).ClearPastDueSince().SetUpdatedAt(now).Save(ctx)
		}
		if err != nil {
			return nil, err
		}
		if err := s.Billing.ChargeSubscription(ctx, tx, sub.ID, period(sub.ID, end), p.UserID, cents, PlanCurrency); err != nil {
			return nil, apperr.From(err)
		}
		return &switchboardv1.SubscribeTeamResponse{Team: toTeam(t, role, n), Subscription: toSubscription(sub)}, nil
	})
}

// renewBatch bounds one pass of the renewal timer.
const renewBatch = 100

// RenewDue renews every subscription due at now, each in its own unit of
// work: charged, it runs another month; refused, it goes past due and is
// canceled PastDueGrace after the first failure. It answers how many it
// renewed and when the next one is due (zero when none is).
func (s *Core) RenewDue(ctx context.Context) (int, time.Time, error) {
	now := s.now()
	due, err := s.DB.TeamSubscription.Query().Where(
		teamsubscription.StatusIn(teamsubscription.StatusActive, teamsubscription.StatusPastDue),
		teamsubscription.CurrentPeriodEndLTE(now)).Order(ent.Asc(teamsubscription.FieldCurrentPeriodEnd)).
		Limit(renewBatch).All(ctx)
	if err != nil {
		return 0, time.Time{}, err
	}
	renewed := 0
	for _, sub := range due {
		if err := s.renew(ctx, sub, now); err != nil {
			s.Logger.ErrorContext(ctx, "groups: renewing a team's plan", "subscription", sub.ID, "error", err)
			continue
		}
		renewed++
	}
	next, err := s.DB.TeamSubscription.Query().Where(
		teamsubscription.StatusIn(teamsubscription.StatusActive, teamsubscription.StatusPastDue)).
		Order(ent.Asc(teamsubscription.FieldCurrentPeriodEnd)).First(ctx)
	if ent.IsNotFound(err) {
		return renewed, time.Time{}, nil
	} else if err != nil {
		return renewed, time.Time{}, err
	}
	return renewed, next.CurrentPeriodEnd, nil
}

// renew charges one due subscription, or records its failure, as of now.
func (s *Core) renew(ctx context.Context, sub *ent.TeamSubscription, now time.Time) error {
	return s.DB.InTx(ctx, func(tx *db.Tx) error {
		// Conditional on what was read, so two passes renew it once.
		at := sub.CurrentPeriodEnd
		if err := tx.Serialize(ctx, "team subscription "+sub.ID); err != nil {
			return err
		}
		fresh, err := tx.TeamSubscription.Get(ctx, sub.ID)
		if err != nil {
			return err
		}
		if !fresh.CurrentPeriodEnd.Equal(at) || fresh.Status != sub.Status {
			return nil // renewed meanwhile
		}
		cur := Renewal{Status: string(sub.Status), PeriodEnd: at, PastDueSince: sub.PastDueSince}
		next := Renew(cur, true, now)
		if err := s.Billing.ChargeSubscription(ctx, tx, sub.ID, period(sub.ID, next.PeriodEnd), sub.PayerID, sub.AmountCents, sub.Currency); err != nil {
			s.Logger.WarnContext(ctx, "groups: a team plan's renewal was declined", "subscription", sub.ID, "error", err)
			next = Renew(cur, false, now)
		}
		up := fresh.Update().SetStatus(teamsubscription.Status(next.Status)).SetCurrentPeriodEnd(next.PeriodEnd).SetUpdatedAt(now)
		if next.PastDueSince != nil {
			up.SetPastDueSince(*next.PastDueSince)
		} else {
			up.ClearPastDueSince()
		}
		return up.Exec(ctx)
	})
}

// renewalPoll is the longest the renewal timer sleeps without looking.
const renewalPoll = time.Hour

// StartRenewals starts the renewal timer (on the managed platform only):
// team plans renewed when they are due, once across replicas.
func (s *Core) StartRenewals(set *timers.Set) *alarm.Loop {
	return set.Start(timers.Timer{Name: RenewalTimer, Poll: renewalPoll, Pass: func(ctx context.Context) (time.Time, error) {
		n, next, err := s.RenewDue(ctx)
		if n > 0 {
			alarm.Fired(ctx)
		}
		return next, err
	}})
}

// RenewalTimer is the renewal timer's name in the registry.
const RenewalTimer = "team_renewals"
