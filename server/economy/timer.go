package economy

import (
	"context"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/internal/alarm"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/timers"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
)

// The economy's durable timer: its state is the contracts' rows, so a
// restart loses nothing. A delivered contract its client leaves alone for
// 14 days closes itself (on the client's instance, which holds the money
// and tells the provider's); a closed contract's review window ending shows
// the reviews and sends this side's to the other instance. An auction's
// closesAt passing awards it (jobs_auction.go).

const timerBatch = 100

// Due runs what is due at now and answers when to look next (zero: nothing
// waits).
func (s *Core) Due(ctx context.Context) (time.Time, error) {
	now := s.now()
	stale, err := s.DB.Contract.Query().Where(contract.StatusEQ(contract.StatusDelivered), contract.ClientUserIDNotNil(),
		contract.DeliveredAtLTE(now.Add(-rules.AutoClose))).Limit(timerBatch).All(ctx)
	if err != nil {
		return time.Time{}, err
	}
	for _, c := range stale {
		if err := s.DB.InTx(ctx, func(tx *db.Tx) error {
			_, err := s.Apply(ctx, tx, c, Move{Kind: rules.Expire, By: rules.Timer, Actor: "Switchboard"})
			return ignoreState(err)
		}); err != nil {
			s.Logger.ErrorContext(ctx, "economy: closing a delivered contract after 14 days", "contractId", c.ID, "error", err)
		}
	}
	ended, err := s.DB.Contract.Query().Where(contract.StatusEQ(contract.StatusClosed), contract.ReviewWindowDone(false),
		contract.ReviewWindowEndsAtLTE(now)).Limit(timerBatch).All(ctx)
	if err != nil {
		return time.Time{}, err
	}
	for _, c := range ended {
		if err := s.DB.InTx(ctx, func(tx *db.Tx) error { return s.windowEnded(ctx, tx, c) }); err != nil {
			s.Logger.ErrorContext(ctx, "economy: ending a review window", "contractId", c.ID, "error", err)
		}
	}
	if len(stale)+len(ended) > 0 {
		alarm.Fired(ctx)
	}
	if err := NewJobs(s).ended(ctx, now); err != nil {
		return time.Time{}, err
	}
	return s.nextDue(ctx)
}

func (s *Core) windowEnded(ctx context.Context, tx *db.Tx, c *ent.Contract) error {
	if err := tx.Serialize(ctx, "contract "+c.ID); err != nil {
		return err
	}
	c, err := tx.Contract.Get(ctx, c.ID)
	if err != nil || c.ReviewWindowDone {
		return err
	}
	if Remote(c) && !c.ReviewSent {
		if c, err = s.sendReview(ctx, tx, c); err != nil {
			return err
		}
	}
	if err := s.reveal(ctx, tx, c); err != nil {
		return err
	}
	return c.Update().SetReviewWindowDone(true).Exec(ctx)
}

func (s *Core) nextDue(ctx context.Context) (time.Time, error) {
	var next time.Time
	d, err := s.DB.Contract.Query().Where(contract.StatusEQ(contract.StatusDelivered), contract.ClientUserIDNotNil(),
		contract.DeliveredAtNotNil()).Order(ent.Asc(contract.FieldDeliveredAt)).First(ctx)
	switch {
	case err == nil:
		next = d.DeliveredAt.Add(rules.AutoClose)
	case !ent.IsNotFound(err):
		return time.Time{}, err
	}
	w, err := s.DB.Contract.Query().Where(contract.StatusEQ(contract.StatusClosed), contract.ReviewWindowDone(false),
		contract.ReviewWindowEndsAtNotNil()).Order(ent.Asc(contract.FieldReviewWindowEndsAt)).First(ctx)
	switch {
	case err == nil:
		if next.IsZero() || w.ReviewWindowEndsAt.Before(next) {
			next = *w.ReviewWindowEndsAt
		}
	case !ent.IsNotFound(err):
		return time.Time{}, err
	}
	auction, err := NewJobs(s).nextAuction(ctx)
	if err != nil {
		return time.Time{}, err
	}
	if !auction.IsZero() && (next.IsZero() || auction.Before(next)) {
		next = auction
	}
	return next, nil
}

// timerPoll is the longest the timer sleeps without looking.
const timerPoll = time.Hour

// TimerName is the economy timer's name in the registry.
const TimerName = "economy"

// StartTimer starts the economy's timer in set: Due, once across replicas.
func (s *Core) StartTimer(set *timers.Set) *alarm.Loop {
	t := set.Start(timers.Timer{Name: TimerName, Poll: timerPoll, Pass: s.Due})
	s.timer.Store(t)
	return t
}
