package activity

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// Service implements ActivityService: the caller's own feed.
type Service struct {
	DB *ent.Client
}

// ListActivity pages the caller's feed, newest first, by category.
func (s *Service) ListActivity(ctx context.Context, req *switchboardv1.ListActivityRequest) (*switchboardv1.ListActivityResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	cats, err := ParseCategories(req.GetCategory(), req.GetCategories())
	if err != nil {
		return nil, apperr.Invalid("%s", err.Error())
	}
	entries, next, err := List(ctx, s.DB, Query{UserID: p.UserID, Categories: cats, Limit: req.GetLimit(), Cursor: req.GetCursor()})
	if err != nil {
		return nil, err
	}
	res := &switchboardv1.ListActivityResponse{Success: true, Data: entries}
	if next != "" {
		res.NextCursor = &next
	}
	return res, nil
}
