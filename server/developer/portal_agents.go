package developer

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/connecttoken"
	"github.com/switchboard-hq/switchboard/ent/shipgaterun"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
	"github.com/switchboard-hq/switchboard/server/store"
)

// portalAgent renders row for the portal: the owner's view of the listing,
// its owner's username, why the caller sees it, and its newest run.
func portalAgent(ctx context.Context, c *ent.Client, row *ent.StoreAgent, ownerName string, why access) (*switchboardv1.PortalAgent, error) {
	out := &switchboardv1.PortalAgent{Agent: store.OwnerView(row), OwnerUsername: ownerName, Access: string(why)}
	run, err := c.ShipGateRun.Query().Where(shipgaterun.AgentID(row.ID)).
		Order(ent.Desc(shipgaterun.FieldCreatedAt), ent.Desc(shipgaterun.FieldID)).First(ctx)
	switch {
	case ent.IsNotFound(err):
	case err != nil:
		return nil, err
	default:
		out.LastRun = toShipGateRun(run)
	}
	return out, nil
}

// render is portalAgent with the owner's username read.
func render(ctx context.Context, c *ent.Client, row *ent.StoreAgent, why access) (*switchboardv1.PortalAgent, error) {
	owner, err := c.User.Get(ctx, row.UserID)
	if err != nil {
		return nil, err
	}
	return portalAgent(ctx, c, row, owner.Username, why)
}

// ListPortalAgents lists the agents the caller manages, newest first (at
// most maxListed): its own and its teams' owners'.
func (p *Portal) ListPortalAgents(ctx context.Context, _ *switchboardv1.ListPortalAgentsRequest) (*switchboardv1.ListPortalAgentsResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	c := p.dev.DB.Client
	ids, err := owners(ctx, c, pr.UserID)
	if err != nil {
		return nil, err
	}
	rows, err := c.StoreAgent.Query().Where(storeagent.UserIDIn(ids...)).
		Order(ent.Desc(storeagent.FieldCreatedAt), ent.Desc(storeagent.FieldID)).Limit(maxListed).All(ctx)
	if err != nil {
		return nil, err
	}
	byID, err := users(ctx, c, ids)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListPortalAgentsResponse{Agents: make([]*switchboardv1.PortalAgent, 0, len(rows))}
	for _, r := range rows {
		why := vocab.PortalAccessMember
		if r.UserID == pr.UserID {
			why = vocab.PortalAccessOwner
		}
		owner := ""
		if u := byID[r.UserID]; u != nil {
			owner = u.Username
		}
		a, err := portalAgent(ctx, c, r, owner, why)
		if err != nil {
			return nil, err
		}
		out.Agents = append(out.Agents, a)
	}
	return out, nil
}

// GetPortalAgent answers one agent the caller manages.
func (p *Portal) GetPortalAgent(ctx context.Context, req *switchboardv1.GetPortalAgentRequest) (*switchboardv1.GetPortalAgentResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	c := p.dev.DB.Client
	row, why, err := managed(ctx, c, pr.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	a, err := render(ctx, c, row, why)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetPortalAgentResponse{Agent: a}, nil
}

// UpdatePortalAgent changes an agent the caller manages, by id, with the
// fields PATCH /api/developer/agents/register takes; its slug stays. A
// breaking change sends a self-registered agent back through the ship-gate
// and another listing to the store's review policy, as on the store's own
// update path.
func (p *Portal) UpdatePortalAgent(ctx context.Context, req *switchboardv1.UpdatePortalAgentRequest) (*switchboardv1.UpdatePortalAgentResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	c := p.dev.DB.Client
	cur, why, err := managed(ctx, c, pr.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	a := req.GetAgent()
	switch {
	case a == nil:
		return nil, apperr.Invalid("the agent's fields are required")
	case a.Slug != nil && a.GetSlug() != cur.Slug:
		return nil, apperr.Invalid("slug cannot change: the agent's slug is %q", cur.Slug)
	case a.GetSkipHealthCheck():
		return nil, apperr.Invalid("skipHealthCheck applies to registration only")
	case cur.SourceInstanceID != nil:
		return nil, apperr.IllegalMove("agent %q is synced from its instance; change it there", cur.Slug)
	}
	if err := checkSelfInput(a, false); err != nil {
		return nil, err
	}
	statusAfter := func(row *ent.StoreAgent, breaking bool) string {
		if row.SelfConfigTokenHash != nil {
			return store.ShipGateAfterChange(string(row.Status), breaking)
		}
		return p.dev.Store.Policy.StatusAfterChange(string(row.Status), breaking)
	}
	row, change, err := p.dev.change(ctx, cur, a, statusAfter)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.UpdatePortalAgentResponse{
		WidgetRecommendations: recommendWidgets(row.DeclaredWidgetTypes, derefString(row.Category), row.PricingModel),
	}
	if out.Agent, err = render(ctx, c, row, why); err != nil {
		return nil, err
	}
	if change != nil {
		out.Change, out.ReviewRequired = change, change.Breaking
	}
	return out, nil
}

// DeletePortalAgent removes an agent of the caller's (a team member may not):
// refused with 409 while work is in flight; its installs, subscriptions,
// unlocks, signals and ship-gate runs go, its finished executions and their
// ledger lines stay, unlinked (kept for the requesters and the developer's
// billing), and the connect token that registered it forgets it.
func (p *Portal) DeletePortalAgent(ctx context.Context, req *switchboardv1.DeletePortalAgentRequest) (*switchboardv1.DeletePortalAgentResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.DeletePortalAgentResponse{}
	err = p.dev.DB.InTx(ctx, func(tx *db.Tx) error {
		c := tx.Client()
		row, why, err := managed(ctx, c, pr.UserID, req.GetId())
		if err != nil {
			return err
		}
		if why != vocab.PortalAccessOwner {
			return apperr.Forbidden("only the agent's owner may delete it; team members change and test it")
		}
		if row.SourceInstanceID != nil {
			return apperr.IllegalMove("agent %q is synced from its instance; remove it there", row.Slug)
		}
		if out.Agent, err = render(ctx, c, row, why); err != nil {
			return err
		}
		unlinked, err := store.RemoveSynced(ctx, p.dev.DB, tx, row)
		if err != nil {
			return err
		}
		out.ExecutionsUnlinked = int32(unlinked)
		return tx.ConnectToken.Update().Where(connecttoken.AgentID(row.ID)).ClearAgentID().Exec(ctx)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListPortalAgentTestRuns pages an agent's ship-gate runs, newest first.
func (p *Portal) ListPortalAgentTestRuns(ctx context.Context, req *switchboardv1.ListPortalAgentTestRunsRequest) (*switchboardv1.ListPortalAgentTestRunsResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	c := p.dev.DB.Client
	row, _, err := managed(ctx, c, pr.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	q := c.ShipGateRun.Query().Where(shipgaterun.AgentID(row.ID))
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	runs, err := q.Order(ent.Desc(shipgaterun.FieldCreatedAt), ent.Desc(shipgaterun.FieldID)).Limit(pg.Limit).Offset(pg.Offset).All(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListPortalAgentTestRunsResponse{Runs: lists.Map(runs, toShipGateRun), Pagination: pg.Of(total, len(runs))}, nil
}

// RunPortalAgentTest runs the conformance probe on an agent the caller
// manages and persists the run, as the developer-key test-run does.
func (p *Portal) RunPortalAgentTest(ctx context.Context, req *switchboardv1.RunPortalAgentTestRequest) (*switchboardv1.RunPortalAgentTestResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	row, _, err := managed(ctx, p.dev.DB.Client, pr.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	verdict, run, err := p.dev.testRun(ctx, row)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RunPortalAgentTestResponse{EndpointProbe: toProbe(verdict), ShipGateRun: toShipGateRun(run)}, nil
}
