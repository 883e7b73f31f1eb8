// Package admin is the instance admin's view of the store
// (StoreAdminService; RULINGS "Onboarding, sprite, admin views, the
// developer portal": admin views): the agent activity of the last 7, 30 or
// 90 days (per agent, by origin, per day by outcome, the execution log) and
// the agents the instance owns, saved with their kit through the store's
// own listing writes (store.SaveInstanceAgent). The counting is pure
// (tally.go); an admin's session only, anyone else 403.
package admin

import (
	"cmp"
	"context"
	"slices"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
	"github.com/switchboard-hq/switchboard/server/store"
)

var (
	_ switchboardv1connect.StoreAdminServiceHandler = (*Service)(nil)
	_ switchboardv1.StoreAdminServiceServer         = (*Service)(nil)
)

// DefaultDays is the period when a request names none.
const DefaultDays = 30

// Service implements StoreAdminService.
type Service struct {
	DB    *db.DB
	Now   func() time.Time
	Store *store.Service
}

func admin(ctx context.Context) (*auth.Principal, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if p.Role != string(vocab.UserRoleAdmin) {
		return nil, apperr.Forbidden("the store's activity and the instance's own agents are the instance admin's")
	}
	return p, nil
}

// runFields are the columns the tally and the log read.
var runFields = []string{
	execution.FieldID, execution.FieldAgentID, execution.FieldUserID, execution.FieldStatus, execution.FieldRunOrigin,
	execution.FieldTaskOrigin, execution.FieldCreatedAt, execution.FieldFinishedAt, execution.FieldResponseTimeMs,
	execution.FieldGross, execution.FieldPaymentHoldStatus,
}

// GetAgentActivity answers the period's runs of the store's agents.
// Executions of a removed listing (unlinked from it) are left out: the
// view is per agent.
func (s *Service) GetAgentActivity(ctx context.Context, req *switchboardv1.GetAgentActivityRequest) (*switchboardv1.GetAgentActivityResponse, error) {
	if _, err := admin(ctx); err != nil {
		return nil, err
	}
	days := DefaultDays
	if req.Days != nil {
		days = int(req.GetDays()) // 7, 30 or 90: the contract's check
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	now := s.Now().UTC()
	inPeriod := s.DB.Execution.Query().Where(execution.CreatedAtGTE(Since(now, days)), execution.AgentIDNotNil())
	rows, err := inPeriod.Clone().Select(runFields...).All(ctx)
	if err != nil {
		return nil, err
	}
	runs := make([]Run, 0, len(rows))
	for _, ex := range rows {
		runs = append(runs, runOf(ex))
	}
	sum := Tally(runs, now, days)
	names, err := s.names(ctx, sum.Agents)
	if err != nil {
		return nil, err
	}
	log, err := inPeriod.Order(ent.Desc(execution.FieldCreatedAt), ent.Desc(execution.FieldID)).
		Limit(pg.Limit).Offset(pg.Offset).Select(runFields...).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.GetAgentActivityResponse{
		Days: int32(days), Agents: make([]*switchboardv1.AgentActivity, 0, len(sum.Agents)),
		Origins: origins(sum.Origins), Daily: make([]*switchboardv1.AgentActivityDay, 0, len(sum.Days)),
		Executions: make([]*switchboardv1.AgentActivityExecution, 0, len(log)), Pagination: pg.Of(sum.Runs, len(log)),
	}
	for _, a := range sum.Agents {
		out.Agents = append(out.Agents, &switchboardv1.AgentActivity{
			AgentId: a.AgentID, Name: names[a.AgentID], Executions: int32(a.Executions), Completed: int32(a.Completed),
			Failed: int32(a.Failed), Timeout: int32(a.Timeout), AvgDurationMs: int32(a.AvgDurationMs),
			RevenueCents: int32(a.RevenueCents),
		})
	}
	// Equal counts read by name, as the dashboard lists them.
	slices.SortStableFunc(out.Agents, func(x, y *switchboardv1.AgentActivity) int {
		return cmp.Or(cmp.Compare(y.Executions, x.Executions), cmp.Compare(x.Name, y.Name), cmp.Compare(x.AgentId, y.AgentId))
	})
	for _, d := range sum.Days {
		out.Daily = append(out.Daily, &switchboardv1.AgentActivityDay{Date: d.Date, Completed: int32(d.Completed),
			Failed: int32(d.Failed), Timeout: int32(d.Timeout), Pending: int32(d.Pending)})
	}
	for _, ex := range log {
		out.Executions = append(out.Executions, logEntry(ex, names))
	}
	return out, nil
}

// runOf reads an execution for the tally.
func runOf(ex *ent.Execution) Run {
	return Run{AgentID: store.AgentOf(ex), Status: string(ex.Status), RunOrigin: string(ex.RunOrigin),
		TaskOrigin: string(ex.TaskOrigin), At: ex.CreatedAt, DurationMs: ex.ResponseTimeMs, RevenueCents: int64(revenue(ex))}
}

// revenue is an execution's captured payment in cents; 0 when it was not
// paid or its hold was released.
func revenue(ex *ent.Execution) int {
	if ex.Gross == nil || ex.PaymentHoldStatus != execution.PaymentHoldStatusCaptured {
		return 0
	}
	return int(*ex.Gross)
}

// names are the agents' names by id.
func (s *Service) names(ctx context.Context, agents []AgentTally) (map[string]string, error) {
	ids := make([]string, 0, len(agents))
	for _, a := range agents {
		ids = append(ids, a.AgentID)
	}
	rows, err := s.DB.StoreAgent.Query().Where(storeagent.IDIn(ids...)).
		Select(storeagent.FieldID, storeagent.FieldName).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rows))
	for _, a := range rows {
		out[a.ID] = a.Name
	}
	return out, nil
}

func origins(m map[string]int) *switchboardv1.ExecutionOrigins {
	return &switchboardv1.ExecutionOrigins{
		Local: int32(m[string(vocab.RunOriginLocal)]), Federated: int32(m[string(vocab.RunOriginFederated)]),
		A2A: int32(m[string(vocab.RunOriginA2A)]), Mcp: int32(m[string(vocab.RunOriginMCP)]),
		Assistant: int32(m[string(vocab.RunOriginAssistant)]),
	}
}

func logEntry(ex *ent.Execution, names map[string]string) *switchboardv1.AgentActivityExecution {
	id := store.AgentOf(ex)
	out := &switchboardv1.AgentActivityExecution{
		Id: ex.ID, AgentId: id, AgentName: names[id], Status: string(ex.Status),
		Origin: Origin(string(ex.RunOrigin), string(ex.TaskOrigin)), UserId: ex.UserID,
		CreatedAt: timestamppb.New(ex.CreatedAt.UTC()),
	}
	if ex.FinishedAt != nil {
		out.FinishedAt = timestamppb.New(ex.FinishedAt.UTC())
	}
	if ex.ResponseTimeMs != nil {
		v := int32(*ex.ResponseTimeMs)
		out.DurationMs = &v
	}
	if r := revenue(ex); r > 0 {
		v := int32(r)
		out.RevenueCents = &v
	}
	return out
}

// SaveMyAgent creates or updates an agent the instance owns.
func (s *Service) SaveMyAgent(ctx context.Context, req *switchboardv1.SaveMyAgentRequest) (*switchboardv1.SaveMyAgentResponse, error) {
	p, err := admin(ctx)
	if err != nil {
		return nil, err
	}
	return s.Store.SaveInstanceAgent(ctx, p.UserID, req)
}
