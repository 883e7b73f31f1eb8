package learnings

import (
	"context"
	"slices"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/behaviorsignal"
	"github.com/switchboard-hq/switchboard/ent/workflowreview"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/learnings/rules"
)

// admin is the instance admin's principal; another is 403 (the route is
// known to exist: document 2 lists it under the admin's).
func admin(ctx context.Context) (*auth.Principal, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if p.Role != string(vocab.UserRoleAdmin) {
		return nil, apperr.Forbidden("workflows are the instance admin's")
	}
	return p, nil
}

// ListWorkflows lists the recurring sequences with their reviewed marks.
func (s *Service) ListWorkflows(ctx context.Context, _ *switchboardv1.ListWorkflowsRequest) (*switchboardv1.ListWorkflowsResponse, error) {
	if _, err := admin(ctx); err != nil {
		return nil, err
	}
	found, err := s.workflows(ctx)
	if err != nil {
		return nil, err
	}
	marks, err := s.DB.WorkflowReview.Query().All(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[string]*ent.WorkflowReview{}
	for _, m := range marks {
		byID[m.ID] = m
	}
	out := &switchboardv1.ListWorkflowsResponse{Workflows: make([]*switchboardv1.Workflow, 0, len(found))}
	for _, w := range found {
		out.Workflows = append(out.Workflows, workflowProto(w, byID[w.ID]))
	}
	return out, nil
}

// ReviewWorkflow marks one of the listed sequences reviewed (or not); an
// id that is not among them is 404.
func (s *Service) ReviewWorkflow(ctx context.Context, req *switchboardv1.ReviewWorkflowRequest) (*switchboardv1.ReviewWorkflowResponse, error) {
	p, err := admin(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetId() == "" {
		return nil, apperr.Invalid("id is required")
	}
	found, err := s.workflows(ctx)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(found, func(w rules.Workflow) bool { return w.ID == req.GetId() })
	if i < 0 {
		return nil, apperr.NotFound("workflow %q not found", req.GetId())
	}
	var mark *ent.WorkflowReview
	if req.Reviewed == nil || req.GetReviewed() {
		err = s.DB.WorkflowReview.Create().SetID(req.GetId()).SetReviewedAt(s.now()).SetReviewedBy(p.UserID).
			OnConflictColumns(workflowreview.FieldID).UpdateNewValues().Exec(ctx)
		if err == nil {
			mark, err = s.DB.WorkflowReview.Get(ctx, req.GetId())
		}
	} else {
		_, err = s.DB.WorkflowReview.Delete().Where(workflowreview.ID(req.GetId())).Exec(ctx)
	}
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ReviewWorkflowResponse{Workflow: workflowProto(found[i], mark)}, nil
}

// workflows reads every retained signal's action, per user in time order.
func (s *Service) workflows(ctx context.Context) ([]rules.Workflow, error) {
	rows, err := s.DB.BehaviorSignal.Query().
		Order(ent.Asc(behaviorsignal.FieldUserID), ent.Asc(behaviorsignal.FieldCreatedAt), ent.Asc(behaviorsignal.FieldID)).
		Select(behaviorsignal.FieldUserID, behaviorsignal.FieldAction).All(ctx)
	if err != nil {
		return nil, err
	}
	byUser := map[string][]string{}
	for _, r := range rows {
		byUser[r.UserID] = append(byUser[r.UserID], r.Action)
	}
	return rules.Workflows(byUser), nil
}

func workflowProto(w rules.Workflow, mark *ent.WorkflowReview) *switchboardv1.Workflow {
	out := &switchboardv1.Workflow{Id: w.ID, Actions: w.Actions, Users: int32(w.Users), Count: int32(w.Count)}
	if mark != nil {
		out.Reviewed, out.ReviewedAt = true, timestamppb.New(mark.ReviewedAt)
	}
	return out
}
