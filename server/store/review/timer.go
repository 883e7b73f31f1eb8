package review

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/internal/alarm"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/timers"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// poll is how often the timer looks for reviews opened by other replicas (or
// by transactions that committed after it last looked).
const poll = 5 * time.Minute

// sweepBatch is how many overdue reviews one query picks up.
const sweepBatch = 100

// Sweep auto-confirms every review whose window has ended and answers how
// many it confirmed (POST /api/marketplace/lifecycle
// {action: sweep}). Each confirmation is its own transaction; one confirmed
// meanwhile (by its requester, another sweep or the timer) is skipped.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	n, _, err := s.sweep(ctx)
	return n, err
}

// sweep confirms what is due and answers when the next open review is due
// (zero when none is open).
func (s *Service) sweep(ctx context.Context) (int, time.Time, error) {
	confirmed := 0
	for {
		cutoff := s.now().Add(-Window)
		due, err := s.DB.Client.Execution.Query().Where(
			execution.ReviewStatusEQ(execution.ReviewStatusPendingReview),
			execution.ReviewWidgetShownAtLTE(cutoff)).
			Order(ent.Asc(execution.FieldReviewWidgetShownAt), ent.Asc(execution.FieldID)).
			Limit(sweepBatch).All(ctx)
		if err != nil {
			return confirmed, time.Time{}, err
		}
		var failed error
		progress := false
		for _, ex := range due {
			c := confirmation{fee: s.checkFee(ctx, ex)}
			err := s.DB.InTx(ctx, func(tx *db.Tx) error {
				_, err := s.confirmTx(ctx, tx, ex, c)
				return err
			})
			var ae *apperr.Error
			switch {
			case err == nil:
				confirmed++
				progress = true
			case errors.As(err, &ae) && ae.Kind == apperr.KindIllegalMove:
				progress = true // reviewed meanwhile
			default:
				// One that cannot be settled (its payment provider refuses)
				// must not hold back the others; it is tried again next time.
				s.Log.ErrorContext(ctx, "store review: auto-confirm", "execution", ex.ID, "err", err)
				failed = err
			}
		}
		if len(due) < sweepBatch || !progress {
			if failed != nil && confirmed == 0 {
				return 0, time.Time{}, failed
			}
			break
		}
	}
	next, err := s.DB.Client.Execution.Query().Where(execution.ReviewStatusEQ(execution.ReviewStatusPendingReview),
		execution.ReviewWidgetShownAtNotNil()).
		Order(ent.Asc(execution.FieldReviewWidgetShownAt)).First(ctx)
	if ent.IsNotFound(err) {
		return confirmed, time.Time{}, nil
	} else if err != nil {
		return confirmed, time.Time{}, err
	}
	return confirmed, Due(*next.ReviewWidgetShownAt), nil
}

// TimerName is the review timer's name in the registry.
const TimerName = "store_review_windows"

// Timer auto-confirms open reviews when their window ends. It keeps nothing
// itself: the windows are rows, so a timer started after a restart (or on
// another replica) confirms what was left open.
type Timer struct{ loop *alarm.Loop }

// StartTimer starts the service's timer in set; Close stops it.
func (s *Service) StartTimer(set *timers.Set) *Timer {
	t := &Timer{loop: set.Start(timers.Timer{Name: TimerName, Poll: poll, Pass: func(ctx context.Context) (time.Time, error) {
		n, next, err := s.sweep(ctx)
		if n > 0 {
			alarm.Fired(ctx)
			s.Log.InfoContext(ctx, "review timer: auto-confirmed", "count", n)
		}
		return next, err
	}})}
	s.Timer = t
	return t
}

// Wake makes the timer look again now.
func (t *Timer) Wake() { t.loop.Wake() }

// Close stops the timer and waits for a pass in progress.
func (t *Timer) Close() { t.loop.Close() }
