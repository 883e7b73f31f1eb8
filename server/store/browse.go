package store

import (
	"context"
	stdsql "database/sql"
	"errors"
	"math"
	"strings"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/storeinstall"
	"github.com/switchboard-hq/switchboard/ent/storesubscription"
	"github.com/switchboard-hq/switchboard/ent/storeunlock"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
)

// Browse values (store.proto: filters category,
// pricing, search, sort, scope).
var (
	Sorts  = vocab.Values("store_sort")
	Scopes = vocab.Values("store_scope")
	// Pricings filter by pricing model; paid is every model but free.
	Pricings = vocab.Values("pricing_filter")
)

// Notes of a browse narrower than its scope (docs/decisions.md "Federation:
// the global store (issue 14)").
const (
	notJoined    = "this instance has not joined a hub: the global store is empty here"
	hubUnreached = "the hub could not be reached: showing this instance's store only"
	globalFilter = "category and pricing filter the hub's listings page by page, and the hub orders them newest first"
)

// Origins of a listing in a browse.
const (
	OriginLocal  = string(vocab.StoreOriginLocal)
	OriginGlobal = string(vocab.StoreOriginGlobal)
)

// ErrNotJoined is what Global answers on an instance that has not joined a
// hub.
var ErrNotJoined = errors.New("store: this instance has not joined a hub")

// Global is the hub's store as a joined instance reaches it (its spoke
// side of federation).
type Global interface {
	// BrowseGlobal pages the hub's store, search matched by the hub; each
	// listing is marked global. ErrNotJoined when there is no hub.
	BrowseGlobal(ctx context.Context, search string, limit, offset int) ([]*switchboardv1.StoreAgent, int, error)
	// Joined says whether this instance has joined a hub (read locally).
	Joined(ctx context.Context) (bool, error)
}

// hubJoined is ListStoreAgentsResponse.hubJoined: whether the global and all
// scopes read a hub's store here (never on a hub, whose store is global).
func (s *Service) hubJoined(ctx context.Context) (bool, error) {
	if s.Hub || s.Global == nil {
		return false, nil
	}
	return s.Global.Joined(ctx)
}

// recentExecutions is how many of the caller's executions a detail shows.
const recentExecutions = 20

// ListStoreAgents browses the store.
func (s *Service) ListStoreAgents(ctx context.Context, req *switchboardv1.ListStoreAgentsRequest) (*switchboardv1.ListStoreAgentsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	scope := req.GetScope()
	if scope == "" {
		scope = "local" // a standalone (self-hosted) instance's default
		if s.Hub {
			scope = "all"
		}
	}
	if err := apperr.OneOf("scope", scope, Scopes); err != nil {
		return nil, err
	}
	sort := req.GetSort()
	if sort == "" {
		sort = "newest"
	}
	if err := apperr.OneOf("sort", sort, Sorts); err != nil {
		return nil, err
	}
	where := []predicate.StoreAgent{storeagent.StatusEQ(storeagent.StatusActive)}
	if req.GetMine() {
		where = []predicate.StoreAgent{storeagent.UserID(p.UserID)}
	}
	if c := req.GetCategory(); c != "" {
		if err := apperr.OneOf("category", c, Categories); err != nil {
			return nil, err
		}
		where = append(where, storeagent.Category(c))
	}
	switch pr := req.GetPricing(); {
	case pr == "":
	case pr == "paid":
		where = append(where, storeagent.PricingModelNEQ("free"))
	default:
		if err := apperr.OneOf("pricing", pr, Pricings); err != nil {
			return nil, err
		}
		where = append(where, storeagent.PricingModel(pr))
	}
	if q := strings.TrimSpace(req.GetSearch()); q != "" {
		if err := noNUL("search", q); err != nil {
			return nil, err
		}
		// The task types are the skills a search matches too (docs/decisions.md "MCP").
		folded := db.FoldASCII(q)
		where = append(where, storeagent.Or(
			predicate.StoreAgent(db.ContainsFolded(s.DB.Dialect, folded,
				storeagent.FieldName, storeagent.FieldSlug, storeagent.FieldDescription, storeagent.FieldDeveloperName)),
			predicate.StoreAgent(db.JSONContainsFolded(s.DB.Dialect, folded, storeagent.FieldTaskTypes))))
	}
	joined, err := s.hubJoined(ctx)
	if err != nil {
		return nil, err
	}
	// A hub's store is the global store: every scope reads it. Elsewhere
	// local is this instance's, global the hub's, all both, local first.
	if s.Hub || scope == "local" || req.GetMine() {
		rows, total, err := s.localPage(ctx, p.UserID, where, sort, pg.Offset, pg.Limit)
		if err != nil {
			return nil, err
		}
		return &switchboardv1.ListStoreAgentsResponse{Agents: rows, Pagination: pg.Of(total, len(rows)), Scope: scope, HubJoined: joined}, nil
	}
	out := &switchboardv1.ListStoreAgentsResponse{Agents: []*switchboardv1.StoreAgent{}, Scope: scope, HubJoined: joined}
	localTotal, offset, limit := 0, pg.Offset, pg.Limit
	if scope == "all" {
		rows, total, err := s.localPage(ctx, p.UserID, where, sort, offset, limit)
		if err != nil {
			return nil, err
		}
		out.Agents, localTotal = rows, total
		offset, limit = max(0, offset-total), limit-len(rows)
	}
	global, globalTotal, err := s.globalPage(ctx, strings.TrimSpace(req.GetSearch()), offset, limit)
	switch {
	case errors.Is(err, ErrNotJoined):
		out.Note = proto.String(notJoined)
	case err != nil && scope == "all":
		out.Note = proto.String(hubUnreached)
	case err != nil:
		return nil, err
	}
	if req.GetCategory() != "" || req.GetPricing() != "" {
		global = filterGlobal(global, req.GetCategory(), req.GetPricing())
		if out.Note == nil && err == nil {
			out.Note = proto.String(globalFilter)
		}
	}
	out.Agents = append(out.Agents, global...)
	out.Pagination = pg.Of(localTotal+globalTotal, len(out.Agents))
	return out, nil
}

// localPage pages this instance's listings, each marked by its origin: local,
// or global on a hub for a listing synced from a spoke.
func (s *Service) localPage(ctx context.Context, userID string, where []predicate.StoreAgent, sort string, offset, limit int) ([]*switchboardv1.StoreAgent, int, error) {
	total, err := s.DB.StoreAgent.Query().Where(where...).Aggregate(ent.Count()).Int(ctx)
	if err != nil {
		return nil, 0, err
	}
	var rows []*ent.StoreAgent
	if offset < total && limit > 0 {
		rows, err = s.DB.StoreAgent.Query().Where(where...).Order(order(s.DB.Dialect, sort)).
			Offset(offset).Limit(limit).All(ctx)
		if err != nil {
			return nil, 0, err
		}
	}
	views, err := viewsOf(ctx, s.DB.Client, userID, rows)
	if err != nil {
		return nil, 0, err
	}
	out := make([]*switchboardv1.StoreAgent, 0, len(rows))
	for _, r := range rows {
		a := toAgent(r, views[r.ID])
		a.Origin = proto.String(OriginLocal)
		if r.SourceInstanceID != nil {
			a.Origin = proto.String(OriginGlobal)
		}
		out = append(out, a)
	}
	return out, total, nil
}

// globalPage pages the hub's store. A page with no room left still asks the
// hub for one listing, to learn its total.
func (s *Service) globalPage(ctx context.Context, search string, offset, limit int) ([]*switchboardv1.StoreAgent, int, error) {
	if s.Global == nil {
		return nil, 0, ErrNotJoined
	}
	rows, total, err := s.Global.BrowseGlobal(ctx, search, max(limit, 1), offset)
	if err != nil {
		return nil, 0, err
	}
	if len(rows) > limit {
		rows = rows[:limit]
	}
	return rows, total, nil
}

// filterGlobal keeps the hub's listings of category and pricing (as the
// local filters read them).
func filterGlobal(rows []*switchboardv1.StoreAgent, category, pricing string) []*switchboardv1.StoreAgent {
	out := rows[:0]
	for _, a := range rows {
		if category != "" && a.GetCategory() != category {
			continue
		}
		switch {
		case pricing == "":
		case pricing == "paid" && a.GetPricingModel() == "free":
			continue
		case pricing != "paid" && a.GetPricingModel() != pricing:
			continue
		}
		out = append(out, a)
	}
	return out
}

// GetStoreAgent answers a listing with its stats, changelog and the caller's
// latest executions of it.
func (s *Service) GetStoreAgent(ctx context.Context, req *switchboardv1.GetStoreAgentRequest) (*switchboardv1.GetStoreAgentResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	row, v, err := visible(ctx, s.DB.Client, p.UserID, req.GetId())
	if err != nil {
		return nil, err
	}
	// An instance agent's kit is its admins' (RULINGS "Onboarding, sprite,
	// admin views", My agents): the detail carries it for them alone.
	v.admin = p.Role == string(vocab.UserRoleAdmin)
	stats, err := statsOf(ctx, s.DB.Client, row.ID)
	if err != nil {
		return nil, err
	}
	execs, err := s.DB.Execution.Query().Where(execution.AgentID(row.ID), execution.UserID(p.UserID)).
		Order(ent.Desc(execution.FieldCreatedAt), ent.Desc(execution.FieldID)).Limit(recentExecutions).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.GetStoreAgentResponse{
		Agent: toAgent(row, v), Stats: stats, Changelog: toChangelog(row.Changelog),
		Executions: make([]*switchboardv1.StoreExecution, 0, len(execs)),
	}
	for _, e := range execs {
		out.Executions = append(out.Executions, toExecution(e))
	}
	return out, nil
}

// statsOf counts a listing's executions by status in one query.
func statsOf(ctx context.Context, c *ent.Client, agentID string) (*switchboardv1.StoreAgentStats, error) {
	var rows []struct {
		Status string             `json:"status"`
		Count  int                `json:"count"`
		Avg    stdsql.NullFloat64 `json:"avg"`
		Timed  int                `json:"timed"`
	}
	err := c.Execution.Query().Where(execution.AgentID(agentID)).GroupBy(execution.FieldStatus).
		Aggregate(ent.Count(), ent.As(ent.Mean(execution.FieldResponseTimeMs), "avg"),
			func(s *sql.Selector) string { return sql.As(sql.Count(s.C(execution.FieldResponseTimeMs)), "timed") }).
		Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.StoreAgentStats{}
	for _, r := range rows {
		out.ExecutionCount += int32(r.Count)
		switch execution.Status(r.Status) {
		case execution.StatusCompleted:
			out.CompletedCount = int32(r.Count)
			if r.Timed > 0 && r.Avg.Valid {
				out.AvgResponseTimeMs = proto.Int32(int32(math.Round(r.Avg.Float64)))
			}
		case execution.StatusFailed:
			out.FailedCount = int32(r.Count)
		case execution.StatusTimeout:
			out.TimeoutCount = int32(r.Count)
		case execution.StatusQueued:
			out.QueuedCount = int32(r.Count)
		}
	}
	return out, nil
}

// viewsOf answers the caller's relations to each listing of a page in three
// queries.
func viewsOf(ctx context.Context, c *ent.Client, userID string, rows []*ent.StoreAgent) (map[string]viewer, error) {
	out := make(map[string]viewer, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
		out[r.ID] = viewer{userID: userID}
	}
	installs, err := c.StoreInstall.Query().Where(storeinstall.UserID(userID), storeinstall.AgentIDIn(ids...)).
		Select(storeinstall.FieldAgentID).Strings(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range installs {
		v := out[id]
		v.installed = true
		out[id] = v
	}
	subs, err := c.StoreSubscription.Query().Where(storesubscription.UserID(userID), storesubscription.AgentIDIn(ids...)).
		Select(storesubscription.FieldAgentID).Strings(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range subs {
		v := out[id]
		v.subscribed = true
		out[id] = v
	}
	unlocked, err := c.StoreUnlock.Query().Where(storeunlock.UserID(userID), storeunlock.AgentIDIn(ids...)).
		Select(storeunlock.FieldAgentID).Strings(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range unlocked {
		v := out[id]
		v.unlocked = true
		out[id] = v
	}
	return out, nil
}

// order sorts a page; ties go newest first, then by id, so pages never
// overlap. Names sort in code-point order on both databases.
func order(dia, sort string) storeagent.OrderOption {
	return func(s *sql.Selector) {
		desc := func(c string) string { return sql.Desc(s.C(c)) }
		switch sort {
		case "name":
			col := s.C(storeagent.FieldName)
			if dia == dialect.Postgres {
				col += ` COLLATE "C"`
			}
			s.OrderExpr(sql.Expr(col))
		case "rating":
			s.OrderBy(desc(storeagent.FieldRatingAvg), desc(storeagent.FieldRatingCount))
		case "popular":
			s.OrderBy(desc(storeagent.FieldInstallCount), desc(storeagent.FieldExecutionCount))
		case "price_asc":
			s.OrderBy(s.C(storeagent.FieldPricePerTask))
		case "price_desc":
			s.OrderBy(desc(storeagent.FieldPricePerTask))
		}
		s.OrderBy(desc(storeagent.FieldCreatedAt), desc(storeagent.FieldID))
	}
}
