// Package disputes is the instance admin's side of the task economy
// (EconomyAdminService): the disputed contracts whose money this instance
// holds, and the decision that closes them (release, refund, split).
package disputes

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contract"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/economy"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
	"github.com/switchboard-hq/switchboard/server/page"
)

var (
	_ switchboardv1connect.EconomyAdminServiceHandler = (*Service)(nil)
	_ switchboardv1.EconomyAdminServiceServer         = (*Service)(nil)
)

// Service implements EconomyAdminService.
type Service struct{ core *economy.Core }

// New makes the service over the economy's core.
func New(c *economy.Core) *Service { return &Service{core: c} }

func admin(ctx context.Context) (*auth.Principal, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if p.Role != string(vocab.UserRoleAdmin) {
		return nil, apperr.Forbidden("disputes are the instance admin's")
	}
	return p, nil
}

// ListDisputes lists the disputes, newest first: open ones by default.
func (x *Service) ListDisputes(ctx context.Context, req *switchboardv1.ListDisputesRequest) (*switchboardv1.ListDisputesResponse, error) {
	if _, err := admin(ctx); err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	q := x.core.DB.Contract.Query().Where(contract.ClientUserIDNotNil(), contract.DisputeReasonNotNil())
	switch st := req.GetStatus(); st {
	case "", rules.Disputed:
		q.Where(contract.StatusEQ(contract.StatusDisputed))
	case rules.Closed:
		q.Where(contract.StatusEQ(contract.StatusClosed))
	default:
		return nil, apperr.Invalid("status: disputes are disputed (open) or closed (settled), not %q", st)
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := q.Order(ent.Desc(contract.FieldUpdatedAt), ent.Desc(contract.FieldID)).Limit(pg.Limit).Offset(pg.Offset).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListDisputesResponse{Disputes: make([]*switchboardv1.Contract, 0, len(rows)), Pagination: pg.Of(total, len(rows))}
	for _, c := range rows {
		out.Disputes = append(out.Disputes, x.core.Render(ctx, x.core.DB.Client, c, ""))
	}
	return out, nil
}

// ResolveDispute settles a dispute with the admin's outcome.
func (x *Service) ResolveDispute(ctx context.Context, req *switchboardv1.ResolveDisputeRequest) (*switchboardv1.ResolveDisputeResponse, error) {
	p, err := admin(ctx)
	if err != nil {
		return nil, err
	}
	outcome := req.GetOutcome()
	if outcome == "" {
		return nil, apperr.Invalid("outcome is required: release, refund or split")
	}
	percent := int(req.GetProviderPercent())
	if _, err := rules.Settle(0, outcome, max(percent, 1)); err != nil {
		return nil, apperr.Invalid("%s", err.Error())
	}
	if outcome == string(vocab.DisputeOutcomeSplit) && req.ProviderPercent == nil {
		return nil, apperr.Invalid("providerPercent is required for a split: the provider's share, 1 to 99")
	}
	if outcome != string(vocab.DisputeOutcomeSplit) {
		percent = 0
	}
	c, err := db.InTxValue(ctx, x.core.DB, func(tx *db.Tx) (*ent.Contract, error) {
		c, err := tx.Contract.Query().Where(contract.ID(req.GetId()), contract.ClientUserIDNotNil(), contract.DisputeReasonNotNil()).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("dispute %s not found", req.GetId())
		} else if err != nil {
			return nil, err
		}
		return x.core.Apply(ctx, tx, c, economy.Move{Kind: rules.Resolve, By: rules.Admin, Actor: p.Actor(),
			Outcome: outcome, Percent: percent})
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ResolveDisputeResponse{Contract: x.core.Render(ctx, x.core.DB.Client, c, "")}, nil
}
