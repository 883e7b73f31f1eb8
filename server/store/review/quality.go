package review

import (
	"context"
	"encoding/json"

	"entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/sqlgraph"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/agentqualitysignal"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/schema"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/store"
)

// maxMetadata bounds a signal's metadata, in bytes.
const maxMetadata = 4096

// signalNames lists the signals in the documented order, for messages.
var signalNames = vocab.Values("quality_signal")

// RecordAgentQuality stores one signal about an active listing the caller
// does not own and recalculates the listing's quality score from all of them.
// The signal is about one of the caller's completed executions of the
// listing (executionId), and an execution takes one signal: the unique
// index on agent_quality_signals.execution_id decides between concurrent
// posts (docs/decisions.md "Security (issue 35)").
func (s *Service) RecordAgentQuality(ctx context.Context, req *switchboardv1.RecordAgentQualityRequest) (*switchboardv1.RecordAgentQualityResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetAgentId() == "" {
		return nil, apperr.Invalid("agentId is required")
	}
	if req.GetExecutionId() == "" {
		return nil, apperr.Invalid("executionId is required: a signal is about one of your completed executions of the agent")
	}
	if req.GetSignal() == "" {
		return nil, apperr.Invalid("signal is required")
	}
	if err := apperr.OneOf("signal", req.GetSignal(), signalNames); err != nil {
		return nil, err
	}
	if req.Metadata != nil {
		if len(req.GetMetadata()) > maxMetadata {
			return nil, apperr.Invalid("metadata is longer than %d bytes", maxMetadata)
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(req.GetMetadata()), &obj); err != nil || obj == nil {
			return nil, apperr.Invalid("metadata must be a JSON object encoded as a string")
		}
	}
	weight := schema.QualitySignals[req.GetSignal()]
	out := &switchboardv1.RecordAgentQualityResponse{}
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := s.DB.Serialize(ctx, tx, store.LockKey(req.GetAgentId())); err != nil {
			return err
		}
		row, err := tx.StoreAgent.Get(ctx, req.GetAgentId())
		if ent.IsNotFound(err) || (err == nil && row.UserID != p.UserID && row.Status != storeagent.StatusActive) {
			return apperr.NotFound("store agent %q not found", req.GetAgentId())
		} else if err != nil {
			return err
		}
		if row.UserID == p.UserID {
			return apperr.IllegalMove("you cannot report quality signals about your own agent")
		}
		ex, err := tx.Execution.Query().Where(execution.ID(req.GetExecutionId()), execution.UserID(p.UserID)).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFound("execution %q not found", req.GetExecutionId())
		} else if err != nil {
			return err
		}
		if err := signalable(ex, row.ID); err != nil {
			return err
		}
		now := s.now()
		sig, err := tx.AgentQualitySignal.Create().SetUserID(p.UserID).SetAgentID(row.ID).SetExecutionID(ex.ID).
			SetSignal(agentqualitysignal.Signal(req.GetSignal())).SetWeight(weight).
			SetNillableMetadata(req.Metadata).SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
		if sqlgraph.IsUniqueConstraintError(err) {
			return apperr.Conflict("execution %q already has a quality signal: an execution takes one", ex.ID)
		} else if err != nil {
			return err
		}
		var agg []struct {
			Sum   sql.NullFloat64 `json:"sum"`
			Count int             `json:"count"`
		}
		if err := tx.AgentQualitySignal.Query().Where(agentqualitysignal.AgentID(row.ID)).
			Aggregate(ent.As(ent.Sum(agentqualitysignal.FieldWeight), "sum"), ent.Count()).Scan(ctx, &agg); err != nil || len(agg) != 1 {
			return err
		}
		score := QualityScore(agg[0].Sum.Float64, agg[0].Count)
		// Like ratings, the aggregate does not touch updatedAt.
		if err := tx.StoreAgent.UpdateOneID(row.ID).SetUpdatedAt(row.UpdatedAt).SetQualityScore(score).
			SetQualitySignalCount(agg[0].Count).Exec(ctx); err != nil {
			return err
		}
		out.Signal = &switchboardv1.AgentQualitySignal{Id: sig.ID, AgentId: sig.AgentID, Signal: string(sig.Signal),
			Weight: sig.Weight, Metadata: sig.Metadata, CreatedAt: timestamppb.New(sig.CreatedAt)}
		out.Quality = &switchboardv1.AgentQuality{AgentId: row.ID, Score: score, SignalCount: int32(agg[0].Count)}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// signalable refuses a signal about ex, the caller's own execution, when it
// is not a completed execution of the listing agentID.
func signalable(ex *ent.Execution, agentID string) error {
	if ex.AgentID == nil || *ex.AgentID != agentID {
		return apperr.Invalid("execution %q is not an execution of store agent %q", ex.ID, agentID)
	}
	if ex.Status != execution.StatusCompleted {
		return apperr.IllegalMove("execution %q did not complete (its status is %s): only a completed execution takes a quality signal", ex.ID, ex.Status)
	}
	return nil
}
