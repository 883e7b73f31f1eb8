package federation

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/store"
)

// MaxSync is how many agents (or capabilities) one sync call may carry.
const MaxSync = 50

// MarketplaceLink sets or reports the caller's store participation.
func (h *Hub) MarketplaceLink(ctx context.Context, req *switchboardv1.MarketplaceLinkRequest) (*switchboardv1.MarketplaceLinkResponse, error) {
	if req.GetAction() == "" {
		return nil, apperr.Invalid("action is required: enable, disable or status")
	}
	inst, err := h.caller(ctx, "marketplace-link", false)
	if err != nil {
		return nil, err
	}
	if req.GetAction() != "status" {
		on := req.GetAction() == "enable"
		if inst, err = h.DB.FederationInstance.UpdateOneID(inst.ID).SetStoreParticipation(on).Save(ctx); err != nil {
			return nil, apperr.Wrap(err)
		}
	}
	return &switchboardv1.MarketplaceLinkResponse{StoreParticipation: inst.StoreParticipation}, nil
}

// storeCaller is the caller of a store sync route: an active instance (401
// otherwise) that takes part in the store (403 otherwise).
func (h *Hub) storeCaller(ctx context.Context, route string) (*ent.FederationInstance, error) {
	inst, err := h.caller(ctx, route, false)
	if err != nil {
		return nil, err
	}
	if !inst.StoreParticipation {
		return nil, apperr.Forbidden("store participation is off for this instance: call POST /api/v2/federation/marketplace-link {\"action\": \"enable\"} first")
	}
	return inst, nil
}

// SyncAgents applies each agent on its own: one invalid or conflicting
// agent does not stop the others.
func (h *Hub) SyncAgents(ctx context.Context, req *switchboardv1.SyncAgentsRequest) (*switchboardv1.SyncAgentsResponse, error) {
	inst, err := h.storeCaller(ctx, "agents")
	if err != nil {
		return nil, err
	}
	if n := len(req.GetAgents()); n > MaxSync {
		return nil, apperr.Invalid("at most %d agents per call, got %d", MaxSync, n)
	}
	out := &switchboardv1.SyncAgentsResponse{Results: make([]*switchboardv1.SyncResult, 0, len(req.GetAgents()))}
	seen := map[string]bool{}
	for _, a := range req.GetAgents() {
		res := &switchboardv1.SyncResult{Id: a.GetId()}
		if seen[a.GetId()] {
			res.Status, res.Error = "invalid", ptr("id appears twice in this call")
		} else {
			seen[a.GetId()] = true
			h.syncAgent(ctx, inst, a, res)
		}
		out.Results = append(out.Results, res)
	}
	return out, nil
}

// synced is a synced agent's listing fields as the hub stores them.
type synced struct {
	name, slug, pricing, currency, version, availability string
	description, developer, category                     *string
	price                                                money.Cents
	timeout                                              int
	taskTypes, widgets                                   []string
	a2a, mcp                                             bool
}

func parseSynced(a *switchboardv1.FederationAgent) (synced, error) {
	s := synced{
		name: strings.TrimSpace(a.GetName()), pricing: a.GetPricingModel(), currency: strings.ToUpper(a.GetCurrency()),
		version: a.GetVersion(), availability: a.GetAvailability(), description: a.Description,
		developer: a.DeveloperName, category: a.Category, taskTypes: a.GetTaskTypes(),
		widgets: a.GetDeclaredWidgetTypes(), a2a: a.GetSupportsA2A(), mcp: a.GetSupportsMcp(),
		timeout: int(a.GetExecutionTimeout()),
	}
	if s.timeout == 0 {
		s.timeout = store.DefaultExecutionTimeout
	}
	if a.GetId() == "" {
		return s, apperr.Invalid("id is required")
	}
	if s.name == "" {
		return s, apperr.Invalid("name is required")
	}
	var err error
	if s.slug, err = store.SyncedSlug(s.name, a.GetSlug()); err != nil {
		return s, apperr.Invalid("%s", err)
	}
	if s.pricing == "" {
		s.pricing = "free"
	}
	if s.currency == "" {
		s.currency = "USD"
	}
	if len(s.currency) != 3 {
		return s, apperr.Invalid("currency must be an ISO 4217 code")
	}
	if s.version == "" {
		s.version = "1.0.0"
	}
	if err := store.CheckVersion(s.version); err != nil {
		return s, apperr.Invalid("%s", err)
	}
	if s.availability == "" {
		s.availability = "available"
	}
	if s.price, err = money.FromFloat(a.GetPricePerTask()); err != nil || s.price < 0 {
		return s, apperr.Invalid("pricePerTask must be a non-negative amount in cents")
	}
	if s.pricing == "free" && s.price != 0 {
		return s, apperr.Invalid("a free agent has no pricePerTask")
	}
	if s.taskTypes == nil {
		s.taskTypes = []string{}
	}
	if s.widgets == nil {
		s.widgets = []string{}
	}
	return s, nil
}

// same reports whether row already holds s.
func (s synced) same(row *ent.StoreAgent) bool {
	eq := func(a, b *string) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }
	return row.Name == s.name && row.Slug == s.slug && row.PricingModel == s.pricing && row.Currency == s.currency &&
		row.Version == s.version && string(row.Availability) == s.availability && eq(row.Description, s.description) &&
		eq(row.DeveloperName, s.developer) && eq(row.Category, s.category) && row.PricePerTask == s.price &&
		slices.Equal(row.TaskTypes, s.taskTypes) && slices.Equal(row.DeclaredWidgetTypes, s.widgets) &&
		row.SupportsA2a == s.a2a && row.SupportsMcp == s.mcp && row.ExecutionTimeout == s.timeout
}

func (h *Hub) syncAgent(ctx context.Context, inst *ent.FederationInstance, a *switchboardv1.FederationAgent, res *switchboardv1.SyncResult) {
	s, err := parseSynced(a)
	if err != nil {
		res.Status, res.Error = "invalid", ptr(apperr.From(err).Message)
		return
	}
	err = h.DB.InTx(ctx, func(tx *db.Tx) error {
		row, err := tx.StoreAgent.Query().
			Where(storeagent.SourceInstanceID(inst.ID), storeagent.RemoteID(a.GetId())).Only(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return err
		}
		taken, err := tx.StoreAgent.Query().Where(storeagent.Slug(s.slug)).Only(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return err
		}
		if taken != nil && (row == nil || taken.ID != row.ID) {
			res.Status, res.Error = "conflict", ptr(fmt.Sprintf("slug %q is taken on this hub", s.slug))
			return nil
		}
		if row != nil && s.same(row) {
			res.Status, res.MarketplaceId = "unchanged", &row.ID
			return nil
		}
		if row == nil {
			row, err = tx.StoreAgent.Create().SetUserID(inst.RegisteredBy).SetSourceInstanceID(inst.ID).
				SetRemoteID(a.GetId()).SetSourceInstanceURL(inst.BaseURL).SetName(s.name).SetSlug(s.slug).
				SetNillableDescription(s.description).SetNillableDeveloperName(s.developer).SetNillableCategory(s.category).
				SetPricingModel(s.pricing).SetPricePerTask(s.price).SetCurrency(s.currency).SetVersion(s.version).
				SetAvailability(storeagent.Availability(s.availability)).SetTaskTypes(s.taskTypes).
				SetDeclaredWidgetTypes(s.widgets).SetSupportsA2a(s.a2a).SetSupportsMcp(s.mcp).
				SetExecutionTimeout(s.timeout).SetStatus(storeagent.Status(h.Policy.InitialStatus())).Save(ctx)
			if err != nil {
				return err
			}
			res.Status, res.MarketplaceId = "created", &row.ID
			return nil
		}
		status := h.Policy.StatusAfterChange(string(row.Status), row.PricingModel != s.pricing)
		err = tx.StoreAgent.UpdateOneID(row.ID).SetName(s.name).SetSlug(s.slug).
			SetNillableDescription(s.description).SetNillableDeveloperName(s.developer).SetNillableCategory(s.category).
			SetPricingModel(s.pricing).SetPricePerTask(s.price).SetCurrency(s.currency).SetVersion(s.version).
			SetAvailability(storeagent.Availability(s.availability)).SetTaskTypes(s.taskTypes).
			SetDeclaredWidgetTypes(s.widgets).SetSupportsA2a(s.a2a).SetSupportsMcp(s.mcp).
			SetExecutionTimeout(s.timeout).SetStatus(storeagent.Status(status)).Exec(ctx)
		if err != nil {
			return err
		}
		res.Status, res.MarketplaceId = "updated", &row.ID
		return nil
	})
	if ent.IsConstraintError(err) { // a concurrent sync took the slug
		res.Status, res.Error, res.MarketplaceId = "conflict", ptr(fmt.Sprintf("slug %q is taken on this hub", s.slug)), nil
		return
	}
	if err != nil {
		res.Status, res.Error, res.MarketplaceId = "invalid", ptr("could not be stored"), nil
	}
}

// ListSyncedAgents answers the caller's synced listings with their
// execution counts and captured revenue.
func (h *Hub) ListSyncedAgents(ctx context.Context, _ *switchboardv1.ListSyncedAgentsRequest) (*switchboardv1.ListSyncedAgentsResponse, error) {
	inst, err := h.caller(ctx, "agents", false)
	if err != nil {
		return nil, err
	}
	rows, err := h.DB.StoreAgent.Query().Where(storeagent.SourceInstanceID(inst.ID)).
		Order(ent.Asc(storeagent.FieldCreatedAt), ent.Asc(storeagent.FieldID)).All(ctx)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	var sums []struct {
		AgentID  string         `json:"agent_id"`
		Currency sql.NullString `json:"currency"`
		Gross    sql.NullInt64  `json:"gross"`
		Payout   sql.NullInt64  `json:"payout"`
		Fee      sql.NullInt64  `json:"fee"`
	}
	err = h.DB.Execution.Query().
		Where(execution.HasStoreAgentWith(storeagent.SourceInstanceID(inst.ID)), execution.GrossNotNil(),
			execution.PaymentHoldStatusEQ(execution.PaymentHoldStatusCaptured)).
		GroupBy(execution.FieldAgentID, execution.FieldCurrency).
		Aggregate(ent.As(ent.Sum(execution.FieldGross), "gross"), ent.As(ent.Sum(execution.FieldDeveloperPayout), "payout"),
			ent.As(ent.Sum(execution.FieldPlatformFee), "fee")).
		Scan(ctx, &sums)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	revenue := map[string][]*switchboardv1.SyncedAgentRevenue{}
	for _, r := range sums {
		revenue[r.AgentID] = append(revenue[r.AgentID], &switchboardv1.SyncedAgentRevenue{Currency: r.Currency.String,
			Gross: money.Cents(r.Gross.Int64).Float(), DeveloperPayout: money.Cents(r.Payout.Int64).Float(),
			PlatformFee: money.Cents(r.Fee.Int64).Float()})
	}
	out := &switchboardv1.ListSyncedAgentsResponse{Agents: make([]*switchboardv1.SyncedAgent, len(rows))}
	for i, r := range rows {
		out.Agents[i] = &switchboardv1.SyncedAgent{RemoteId: deref(r.RemoteID), MarketplaceId: r.ID, Name: r.Name,
			Slug: r.Slug, Status: string(r.Status), ExecutionCount: int32(r.ExecutionCount), Revenue: revenue[r.ID]}
	}
	return out, nil
}

func ptr(s string) *string { return &s }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
