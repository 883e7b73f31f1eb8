package store

import (
	"context"
	"fmt"
	"strings"

	"entgo.io/ent/dialect/sql"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// RateStoreExecution rates one of the caller's completed executions of the
// agent and recalculates the agent's average. Rating again replaces the
// rating. An owner cannot rate their own agent.
func (s *Service) RateStoreExecution(ctx context.Context, req *switchboardv1.RateStoreExecutionRequest) (*switchboardv1.RateStoreExecutionResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetExecutionId() == "" {
		return nil, apperr.Invalid("executionId is required")
	}
	if r := req.GetRating(); r < 1 || r > 5 {
		return nil, apperr.Invalid("rating must be 1 to 5 stars")
	}
	var feedback *string
	if req.Feedback != nil {
		f := strings.TrimSpace(req.GetFeedback())
		if err := noNUL("feedback", f); err != nil {
			return nil, err
		}
		feedback = &f
	}
	out := &switchboardv1.RateStoreExecutionResponse{}
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		if req.GetId() != "" {
			// The average is recomputed from the rows; taking the listing's
			// lock first makes that read see every committed rating.
			if err := s.DB.Serialize(ctx, tx, lockKey(req.GetId())); err != nil {
				return err
			}
		}
		row, _, err := visible(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return err
		}
		ex, err := tx.Execution.Query().Where(execution.ID(req.GetExecutionId()), execution.AgentID(row.ID),
			execution.UserID(p.UserID)).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFound("execution %q of %q not found among yours", req.GetExecutionId(), row.Slug)
		} else if err != nil {
			return err
		}
		if row.UserID == p.UserID || ex.IsOwnAgent {
			return apperr.IllegalMove("you cannot rate your own agent")
		}
		if ex.Status != execution.StatusCompleted {
			return apperr.IllegalMove("only a completed execution can be rated; this one is %s", ex.Status)
		}
		u := tx.Execution.UpdateOneID(ex.ID).SetRating(int(req.GetRating())).SetUpdatedAt(s.now())
		switch {
		case feedback == nil:
		case *feedback == "":
			u.ClearFeedback()
		default:
			u.SetFeedback(*feedback)
		}
		if ex, err = u.Save(ctx); err != nil {
			return err
		}
		if row, err = rerate(ctx, tx, row); err != nil {
			return err
		}
		out.Execution = toExecution(ex)
		out.Agent, err = s.render(ctx, tx.Client(), p.UserID, row)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// rerate recalculates a listing's rating average and count from its rated
// executions.
func rerate(ctx context.Context, tx *db.Tx, row *ent.StoreAgent) (*ent.StoreAgent, error) {
	var agg []struct {
		Avg   sql.NullFloat64 `json:"avg"`
		Count int             `json:"count"`
	}
	err := tx.Execution.Query().Where(execution.AgentID(row.ID), execution.RatingNotNil()).
		Aggregate(ent.As(ent.Mean(execution.FieldRating), "avg"), ent.Count()).Scan(ctx, &agg)
	if err != nil {
		return nil, err
	}
	if len(agg) != 1 {
		return nil, apperr.Internal(fmt.Errorf("store: rating aggregate gave %d rows", len(agg)))
	}
	row, err = tx.StoreAgent.UpdateOneID(row.ID).SetUpdatedAt(row.UpdatedAt).
		SetRatingAvg(agg[0].Avg.Float64).SetRatingCount(agg[0].Count).Save(ctx)
	if err != nil {
		return nil, err
	}
	return row, nil
}
