package engine

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
	"github.com/switchboard-hq/switchboard/server/store"
)

// ListStoreExecutions answers the caller's own executions as requester,
// newest first (docs/decisions.md "Store tab (issue 12, item 5)"): an
// execution another account requested is never listed, even of the
// caller's own listing, so an unknown or foreign agentId is an empty page.
func (s *Service) ListStoreExecutions(ctx context.Context, req *switchboardv1.ListStoreExecutionsRequest) (*switchboardv1.ListStoreExecutionsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	f := page.Filters[predicate.Execution]{Where: []predicate.Execution{execution.UserID(p.UserID)}}
	page.OneOf(&f, "reviewStatus", req.GetReviewStatus(), vocab.Values("review_status"), execution.ReviewStatusEQ)
	if f.Err != nil {
		return nil, f.Err
	}
	if id := req.GetAgentId(); id != "" {
		f.Where = append(f.Where, execution.AgentID(id))
	}
	q := s.Engine.DB.Client.Execution.Query().Where(f.Where...)
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := q.WithStoreAgent().
		Order(ent.Desc(execution.FieldCreatedAt), ent.Desc(execution.FieldID)).
		Limit(pg.Limit).Offset(pg.Offset).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListStoreExecutionsResponse{
		Executions: make([]*switchboardv1.ListedStoreExecution, 0, len(rows)), Pagination: pg.Of(total, len(rows)),
	}
	for _, r := range rows {
		name := ""
		if a := r.Edges.StoreAgent; a != nil {
			name = a.Name
		} else if r.AgentName != nil { // unlinked: the removed listing's name
			name = *r.AgentName
		}
		out.Executions = append(out.Executions, &switchboardv1.ListedStoreExecution{Execution: store.ExecutionProto(r), AgentName: name})
	}
	return out, nil
}
