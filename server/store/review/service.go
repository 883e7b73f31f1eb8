package review

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// Payments moves an execution's payment hold (the engine's provider).
type Payments interface {
	// Capture takes a held payment; Release gives it back. Each answers the
	// execution with its new payment_hold_status.
	Capture(ctx context.Context, tx *db.Tx, ex *ent.Execution) (*ent.Execution, error)
	Release(ctx context.Context, tx *db.Tx, ex *ent.Execution) (*ent.Execution, error)
}

// Requeue queues a new execution of a denied one's task at the back of its
// agent's queue (the engine).
type Requeue func(ctx context.Context, tx *db.Tx, denied *ent.Execution) (*ent.Execution, error)

// Service implements StoreReviewService and the engine's Finished hook.
type Service struct {
	DB       *db.DB
	Now      func() time.Time
	Log      *slog.Logger
	Payments Payments
	Requeue  Requeue
	// Kick lets a free agent pick up its queue after a denial committed.
	Kick func(ctx context.Context, agentID string) error
	// Timer auto-confirms open reviews when their window ends; Finished
	// tells it about new ones. Nil: only the sweep confirms them.
	Timer *Timer
	// FeeCheck asks, outside the settlement's transaction, whether a held
	// payment's fee holds (a joined spoke asks its hub); its answer is
	// recorded with the capture. Nil, or a nil answer: nothing is asked.
	FeeCheck func(ctx context.Context, ex *ent.Execution) *payments.HubCheck
	// Global reviews, through the hub, one of the caller's global executions
	// (an execution id this instance does not have) on an instance that may
	// join one; nil for none. It answers not found for an id that is not the
	// caller's.
	Global func(ctx context.Context, userID string, req *switchboardv1.StoreLifecycleRequest) (*switchboardv1.StoreLifecycleResponse, error)
}

func (s *Service) now() time.Time { return s.Now().UTC() }

// StoreLifecycle dispatches on the action.
func (s *Service) StoreLifecycle(ctx context.Context, req *switchboardv1.StoreLifecycleRequest) (*switchboardv1.StoreLifecycleResponse, error) {
	switch req.GetAction() {
	case "confirm", "deny":
		p, err := auth.RequirePrincipal(ctx)
		if err != nil {
			return nil, err
		}
		out, err := s.Decide(ctx, p.UserID, req)
		// An execution this instance does not have may be one the caller ran
		// from the hub's store (docs/decisions.md "Federation: the global
		// store (issue 14)"); the local refusal answers otherwise.
		if err != nil && s.Global != nil && apperr.From(err).Kind == apperr.KindNotFound {
			return s.Global(ctx, p.UserID, req)
		}
		return out, err
	case "sweep":
		if req.GetExecutionId() != "" || req.Rating != nil || req.Feedback != nil || req.GetReason() != "" ||
			req.Category != nil || req.Quality != nil {
			return nil, apperr.Invalid("sweep takes no other field")
		}
		n, err := s.Sweep(ctx)
		if err != nil {
			return nil, err
		}
		return &switchboardv1.StoreLifecycleResponse{Action: "sweep", Confirmed: ptr(int32(n))}, nil
	case "":
		return nil, apperr.Invalid("action is required: confirm, deny or sweep")
	}
	return nil, apperr.Invalid("action must be confirm, deny or sweep, not %q", req.GetAction())
}

// Decide confirms or denies userID's execution in review, as the
// lifecycle's confirm and deny do for the caller: the hub reviews a global
// execution with it for the spoke's account. Only this instance's
// executions; another account's is not found.
func (s *Service) Decide(ctx context.Context, userID string, req *switchboardv1.StoreLifecycleRequest) (*switchboardv1.StoreLifecycleResponse, error) {
	switch req.GetAction() {
	case "confirm":
		return s.confirm(ctx, userID, req)
	case "deny":
		return s.deny(ctx, userID, req)
	}
	return nil, apperr.Invalid("action must be confirm or deny, not %q", req.GetAction())
}

// confirmation is what a confirm writes besides the status.
type confirmation struct {
	rating   *int32
	feedback *string
	quality  *switchboardv1.ExecutionQuality
	// fee is the hub's fee check for a held payment, when one was asked.
	fee *payments.HubCheck
}

func parseConfirm(req *switchboardv1.StoreLifecycleRequest) (confirmation, error) {
	c := confirmation{rating: req.Rating, quality: req.Quality}
	if req.GetReason() != "" || req.Category != nil {
		return c, apperr.Invalid("reason and category belong to deny")
	}
	if c.rating != nil && (*c.rating < 1 || *c.rating > 5) {
		return c, apperr.Invalid("rating must be 1 to 5 stars")
	}
	if req.Feedback != nil {
		f := strings.TrimSpace(req.GetFeedback())
		if err := text("feedback", f); err != nil {
			return c, err
		}
		if f != "" {
			c.feedback = &f
		}
	}
	if q := c.quality; q != nil {
		for name, v := range map[string]*int32{"relevance": q.Relevance, "coherence": q.Coherence, "completeness": q.Completeness} {
			if v != nil && (*v < 1 || *v > 5) {
				return c, apperr.Invalid("quality.%s must be 1 to 5", name)
			}
		}
	}
	return c, nil
}

// text refuses NUL; the length of feedback and reasons is the contract's
// (store_review.proto).
func text(name, v string) error {
	if strings.ContainsRune(v, 0) {
		return apperr.Invalid("%s must not contain NUL characters", name)
	}
	return nil
}

func (s *Service) confirm(ctx context.Context, userID string, req *switchboardv1.StoreLifecycleRequest) (*switchboardv1.StoreLifecycleResponse, error) {
	if req.GetExecutionId() == "" {
		return nil, apperr.Invalid("executionId is required")
	}
	c, err := parseConfirm(req)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.StoreLifecycleResponse{Action: "confirm"}
	// The fee check calls out, so it comes before the transaction; a held
	// payment stays held until the capture in it.
	if ex, err := s.DB.Client.Execution.Query().Where(execution.ID(req.GetExecutionId()), execution.UserID(userID)).
		Only(ctx); err == nil {
		c.fee = s.checkFee(ctx, ex)
	}
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		ex, err := s.inReview(ctx, tx, userID, req.GetExecutionId())
		if err != nil {
			return err
		}
		if ex, err = s.confirmTx(ctx, tx, ex, c); err != nil {
			return err
		}
		out.Execution, out.Quality = store.ExecutionProto(ex), quality(ex)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// inReview loads the caller's execution and checks it waits for review.
// Another account's execution is not found.
func (s *Service) inReview(ctx context.Context, tx *db.Tx, userID, id string) (*ent.Execution, error) {
	ex, err := tx.Execution.Query().Where(execution.ID(id), execution.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("execution %q not found", id)
	} else if err != nil {
		return nil, err
	}
	if ex.ReviewStatus == nil || *ex.ReviewStatus != execution.ReviewStatusPendingReview {
		state := "was never in review"
		if ex.ReviewStatus != nil {
			state = "is " + string(*ex.ReviewStatus)
		}
		return nil, apperr.IllegalMove("execution %q is not waiting for review: it %s", id, state)
	}
	return ex, nil
}

// confirmTx confirms an execution in review (by its requester, or
// automatically when c is empty): the hold is captured, a rating recalculates
// the listing's average, and both parties' reputations are recalculated.
func (s *Service) confirmTx(ctx context.Context, tx *db.Tx, ex *ent.Execution, c confirmation) (*ent.Execution, error) {
	now := s.now()
	u := tx.Execution.Update().Where(execution.ID(ex.ID), execution.ReviewStatusEQ(execution.ReviewStatusPendingReview)).
		SetReviewStatus(execution.ReviewStatusConfirmed).SetReviewedAt(now).SetUpdatedAt(now)
	if c.rating != nil {
		u.SetRating(int(*c.rating))
	}
	if c.feedback != nil {
		u.SetFeedback(*c.feedback)
	}
	if q := c.quality; q != nil {
		if q.Relevance != nil {
			u.SetRelevance(int(*q.Relevance))
		}
		if q.Coherence != nil {
			u.SetCoherence(int(*q.Coherence))
		}
		if q.Completeness != nil {
			u.SetCompleteness(int(*q.Completeness))
		}
	}
	if n, err := u.Save(ctx); err != nil {
		return nil, err
	} else if n == 0 {
		return nil, apperr.IllegalMove("execution %q was reviewed meanwhile", ex.ID)
	}
	ex, err := tx.Execution.Get(ctx, ex.ID)
	if err != nil {
		return nil, err
	}
	if ex.PaymentHoldStatus == execution.PaymentHoldStatusHeld {
		if ex, err = s.capture(ctx, tx, ex); err != nil {
			return nil, err
		}
		if f := c.fee; f != nil {
			ex, err = tx.Execution.UpdateOneID(ex.ID).SetHubFeeValidated(f.Validated).
				SetNillableHubEnforcedFeePercent(f.EnforcedFeePercent).Save(ctx)
			if err != nil {
				return nil, err
			}
		}
	}
	if c.rating != nil && ex.AgentID != nil { // an unlinked execution's listing is gone
		if err := store.Rerate(ctx, s.DB, tx, *ex.AgentID); err != nil {
			return nil, err
		}
	}
	if err := markReviewed(ctx, tx, ex, now); err != nil {
		return nil, err
	}
	return ex, s.reputations(ctx, tx, ex)
}

func (s *Service) deny(ctx context.Context, userID string, req *switchboardv1.StoreLifecycleRequest) (*switchboardv1.StoreLifecycleResponse, error) {
	if req.GetExecutionId() == "" {
		return nil, apperr.Invalid("executionId is required")
	}
	if req.Rating != nil || req.Feedback != nil || req.Quality != nil {
		return nil, apperr.Invalid("rating, feedback and quality belong to confirm")
	}
	reason := strings.TrimSpace(req.GetReason())
	if reason == "" {
		return nil, apperr.Invalid("reason is required to deny")
	}
	if err := text("reason", reason); err != nil {
		return nil, err
	}
	if req.Category != nil {
		if err := apperr.OneOf("category", req.GetCategory(), DenialCategories); err != nil {
			return nil, err
		}
	}
	out := &switchboardv1.StoreLifecycleResponse{Action: "deny"}
	err := s.DB.InTx(ctx, func(tx *db.Tx) error {
		ex, err := s.inReview(ctx, tx, userID, req.GetExecutionId())
		if err != nil {
			return err
		}
		now := s.now()
		n, err := tx.Execution.Update().Where(execution.ID(ex.ID), execution.ReviewStatusEQ(execution.ReviewStatusPendingReview)).
			SetReviewStatus(execution.ReviewStatusDenied).SetReviewedAt(now).SetUpdatedAt(now).
			SetDenialReason(reason).SetNillableDenialCategory(req.Category).Save(ctx)
		if err != nil {
			return err
		} else if n == 0 {
			return apperr.IllegalMove("execution %q was reviewed meanwhile", ex.ID)
		}
		if ex, err = tx.Execution.Get(ctx, ex.ID); err != nil {
			return err
		}
		if err := markReviewed(ctx, tx, ex, now); err != nil {
			return err
		}
		if ex.PaymentHoldStatus == execution.PaymentHoldStatusHeld {
			if ex, err = s.release(ctx, tx, ex); err != nil {
				return err
			}
		}
		if s.Requeue != nil {
			again, err := s.Requeue(ctx, tx, ex)
			if err != nil {
				return err
			}
			if again != nil { // nil: unlinked, its listing removed, so nothing reruns
				out.Requeued = store.ExecutionProto(again)
			}
		}
		out.Execution = store.ExecutionProto(ex)
		return s.reputations(ctx, tx, ex)
	})
	if err != nil {
		return nil, err
	}
	if s.Kick != nil && out.Requeued != nil {
		// Committed: a failed kick is logged; the engine's sweep promotes
		// free queues anyway.
		if err := s.Kick(context.WithoutCancel(ctx), out.Requeued.GetAgentId()); err != nil {
			s.Log.ErrorContext(ctx, "store review: kick the queue after a denial", "err", err)
		}
	}
	return out, nil
}

// checkFee asks FeeCheck about ex's held payment; nil when nothing is
// asked.
func (s *Service) checkFee(ctx context.Context, ex *ent.Execution) *payments.HubCheck {
	if s.FeeCheck == nil || ex.PaymentHoldStatus != execution.PaymentHoldStatusHeld {
		return nil
	}
	return s.FeeCheck(ctx, ex)
}

func (s *Service) capture(ctx context.Context, tx *db.Tx, ex *ent.Execution) (*ent.Execution, error) {
	if s.Payments == nil {
		return moveHold(ctx, tx, ex, execution.PaymentHoldStatusCaptured, s.now())
	}
	return s.Payments.Capture(ctx, tx, ex)
}

func (s *Service) release(ctx context.Context, tx *db.Tx, ex *ent.Execution) (*ent.Execution, error) {
	if s.Payments == nil {
		return moveHold(ctx, tx, ex, execution.PaymentHoldStatusReleased, s.now())
	}
	return s.Payments.Release(ctx, tx, ex)
}

// moveHold moves only the column, for a server without a payment provider.
func moveHold(ctx context.Context, tx *db.Tx, ex *ent.Execution, to execution.PaymentHoldStatus, now time.Time) (*ent.Execution, error) {
	ex, err := tx.Execution.UpdateOne(ex).SetPaymentHoldStatus(to).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return nil, err
	}
	return ex, nil
}

func quality(ex *ent.Execution) *switchboardv1.ExecutionQuality {
	i32 := func(v *int) *int32 {
		if v == nil {
			return nil
		}
		return ptr(int32(*v))
	}
	return &switchboardv1.ExecutionQuality{Relevance: i32(ex.Relevance), Coherence: i32(ex.Coherence), Completeness: i32(ex.Completeness)}
}

func ptr[T any](v T) *T { return &v }
