package learnings

import (
	"context"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/learning"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// SourceManual is a learning the operator wrote; SourceAnalysis one the
// analysis derived.
const (
	SourceManual   = "manual"
	SourceAnalysis = "analysis"
)

// ListLearnings lists the caller's learnings, highest confidence first.
func (s *Service) ListLearnings(ctx context.Context, req *switchboardv1.ListLearningsRequest) (*switchboardv1.ListLearningsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	q := s.DB.Learning.Query().Where(learning.UserID(p.UserID))
	if !req.GetIncludeDismissed() {
		q.Where(learning.Dismissed(false))
	}
	rows, err := q.Order(ent.Desc(learning.FieldConfidence), ent.Desc(learning.FieldCreatedAt), ent.Asc(learning.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListLearningsResponse{Learnings: lists.Map(rows, learningProto)}, nil
}

// Active are the contents of an account's learnings that are not
// dismissed, highest confidence first: what the A2A playbook and the
// assistant's prompt carry.
func Active(ctx context.Context, c *ent.Client, userID string) ([]string, error) {
	rows, err := c.Learning.Query().Where(learning.UserID(userID), learning.Dismissed(false)).
		Order(ent.Desc(learning.FieldConfidence), ent.Desc(learning.FieldCreatedAt), ent.Asc(learning.FieldID)).
		Select(learning.FieldContent).All(ctx)
	if err != nil {
		return nil, err
	}
	return lists.Map(rows, func(r *ent.Learning) string { return r.Content }), nil
}

// CreateLearning stores a learning the operator writes.
func (s *Service) CreateLearning(ctx context.Context, req *switchboardv1.CreateLearningRequest) (*switchboardv1.CreateLearningResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	content := strings.TrimSpace(req.GetContent())
	if content == "" {
		return nil, apperr.Invalid("content is required")
	}
	source := strings.TrimSpace(req.GetSource())
	if source == "" {
		source = SourceManual
	}
	confidence := 1.0
	if req.Confidence != nil {
		confidence = req.GetConfidence()
	}
	now := s.now()
	row, err := s.DB.Learning.Create().SetUserID(p.UserID).SetCategory(learning.Category(req.GetCategory())).
		SetContent(content).SetConfidence(confidence).SetSource(source).SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateLearningResponse{Learning: learningProto(row)}, nil
}

// UpdateLearning changes the supplied fields.
func (s *Service) UpdateLearning(ctx context.Context, req *switchboardv1.UpdateLearningRequest) (*switchboardv1.UpdateLearningResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if req.Content == nil && req.Dismissed == nil && req.SeenAt == nil {
		return nil, apperr.Invalid("no supported field supplied: send content, dismissed or seenAt")
	}
	var content string
	if req.Content != nil {
		if content = strings.TrimSpace(req.GetContent()); content == "" {
			return nil, apperr.Invalid("content must not be blank")
		}
	}
	if req.SeenAt != nil {
		if err := req.GetSeenAt().CheckValid(); err != nil {
			return nil, apperr.Invalid("seenAt: %v", err)
		}
	}
	row, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.Learning, error) {
		if _, err := own(ctx, tx.Client(), p.UserID, req.GetId()); err != nil {
			return nil, err
		}
		upd := tx.Learning.UpdateOneID(req.GetId()).Where(learning.UserID(p.UserID)).SetUpdatedAt(s.now())
		if req.Content != nil {
			upd.SetContent(content)
		}
		if req.Dismissed != nil {
			upd.SetDismissed(req.GetDismissed())
		}
		if req.SeenAt != nil {
			upd.SetSeenAt(req.GetSeenAt().AsTime().UTC())
		}
		return upd.Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateLearningResponse{Learning: learningProto(row)}, nil
}

// DeleteLearning removes a learning. A derived one may come back at the
// next analysis; dismissing is how to keep it away.
func (s *Service) DeleteLearning(ctx context.Context, req *switchboardv1.DeleteLearningRequest) (*switchboardv1.DeleteLearningResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	row, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.Learning, error) {
		row, err := own(ctx, tx.Client(), p.UserID, req.GetId())
		if err != nil {
			return nil, err
		}
		return row, tx.Learning.DeleteOneID(row.ID).Exec(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeleteLearningResponse{Learning: learningProto(row)}, nil
}

// own reads one of the account's learnings; another account's is 404.
func own(ctx context.Context, c *ent.Client, userID, id string) (*ent.Learning, error) {
	if strings.TrimSpace(id) == "" {
		return nil, apperr.Invalid("id is required")
	}
	row, err := c.Learning.Query().Where(learning.ID(id), learning.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFound("learning %q not found", id)
	}
	return row, err
}

func learningProto(r *ent.Learning) *switchboardv1.Learning {
	out := &switchboardv1.Learning{Id: r.ID, Category: string(r.Category), Content: r.Content, Confidence: r.Confidence,
		Source: r.Source, Evidence: int32(r.Evidence), Dismissed: r.Dismissed,
		CreatedAt: timestamppb.New(r.CreatedAt), UpdatedAt: timestamppb.New(r.UpdatedAt)}
	if r.SeenAt != nil {
		out.SeenAt = timestamppb.New(*r.SeenAt)
	}
	return out
}
