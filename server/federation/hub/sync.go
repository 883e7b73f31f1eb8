package hub

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/store"
)

// MarketplaceLink sets or reports the caller's store participation.
func (h *Platform) MarketplaceLink(ctx context.Context, req *switchboardv1.MarketplaceLinkRequest) (*switchboardv1.MarketplaceLinkResponse, error) {
	if req.GetAction() == "" {
		return nil, apperr.Invalid("action is required: enable, disable or status")
	}
	inst, err := h.hub.caller(ctx, "marketplace-link", false)
	if err != nil {
		return nil, err
	}
	if req.GetAction() != "status" {
		on := req.GetAction() == "enable"
		if inst, err = h.hub.DB.FederationInstance.UpdateOneID(inst.ID).SetStoreParticipation(on).Save(ctx); err != nil {
			return nil, err
		}
	}
	return &switchboardv1.MarketplaceLinkResponse{StoreParticipation: inst.StoreParticipation}, nil
}

// storeCaller is the caller of a store sync route: an active instance (401
// otherwise) that takes part in the store (403 otherwise).
func (h *Platform) storeCaller(ctx context.Context, route string) (*ent.FederationInstance, error) {
	inst, err := h.hub.caller(ctx, route, false)
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
func (h *Platform) SyncAgents(ctx context.Context, req *switchboardv1.SyncAgentsRequest) (*switchboardv1.SyncAgentsResponse, error) {
	inst, err := h.storeCaller(ctx, "agents")
	if err != nil {
		return nil, err
	}
	return &switchboardv1.SyncAgentsResponse{Results: syncEach(ctx, req.GetAgents(),
		func(a *switchboardv1.FederationAgent) (*switchboardv1.SyncResult, error) {
			return h.syncAgent(ctx, inst, a)
		})}, nil
}

// syncEach applies each item of a sync call on its own, answering one result
// per item: an id seen earlier in the call is invalid, and an item that could
// not be stored is invalid without saying more.
func syncEach[T interface{ GetId() string }](ctx context.Context, items []T,
	apply func(T) (*switchboardv1.SyncResult, error)) []*switchboardv1.SyncResult {
	out := make([]*switchboardv1.SyncResult, 0, len(items))
	seen := map[string]bool{}
	for _, it := range items {
		res := &switchboardv1.SyncResult{Id: it.GetId(), Status: syncInvalid}
		switch {
		case seen[it.GetId()]:
			res.Error = federation.Ptr("id appears twice in this call")
		default:
			seen[it.GetId()] = true
			got, err := apply(it)
			if err != nil {
				slog.ErrorContext(ctx, "federation sync: storing an item failed", "id", it.GetId(), "err", err)
				res.Error = federation.Ptr("could not be stored")
			} else {
				res = got
			}
		}
		out = append(out, res)
	}
	return out
}

// The sync result statuses (the sync_result vocabulary).
const (
	syncCreated   = string(vocab.SyncResultCreated)
	syncUpdated   = string(vocab.SyncResultUpdated)
	syncUnchanged = string(vocab.SyncResultUnchanged)
	syncConflict  = string(vocab.SyncResultConflict)
	syncInvalid   = string(vocab.SyncResultInvalid)
)

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
	eq := equalPtr
	return row.Name == s.name && row.Slug == s.slug && row.PricingModel == s.pricing && row.Currency == s.currency &&
		row.Version == s.version && string(row.Availability) == s.availability && eq(row.Description, s.description) &&
		eq(row.DeveloperName, s.developer) && eq(row.Category, s.category) && row.PricePerTask == s.price &&
		slices.Equal(row.TaskTypes, s.taskTypes) && slices.Equal(row.DeclaredWidgetTypes, s.widgets) &&
		row.SupportsA2a == s.a2a && row.SupportsMcp == s.mcp && row.ExecutionTimeout == s.timeout
}

// syncAgent creates or updates one synced agent; err is a storage failure,
// every refusal is in the result.
func (h *Platform) syncAgent(ctx context.Context, inst *ent.FederationInstance, a *switchboardv1.FederationAgent) (*switchboardv1.SyncResult, error) {
	res := &switchboardv1.SyncResult{Id: a.GetId()}
	s, err := parseSynced(a)
	if err != nil {
		res.Status, res.Error = syncInvalid, federation.Ptr(apperr.From(err).Message)
		return res, nil
	}
	var row *ent.StoreAgent
	return h.writeSynced(ctx, res, s.slug, syncWrite{
		find: func(tx *db.Tx) (string, bool, error) {
			var err error
			if row, err = tx.StoreAgent.Query().
				Where(storeagent.SourceInstanceID(inst.ID), storeagent.RemoteID(a.GetId())).Only(ctx); err != nil {
				return "", false, err
			}
			return row.ID, s.same(row), nil
		},
		slugOwner: func(tx *db.Tx) (string, error) {
			return tx.StoreAgent.Query().Where(storeagent.Slug(s.slug)).OnlyID(ctx)
		},
		create: func(tx *db.Tx, id string) error {
			return tx.StoreAgent.Create().SetID(id).SetUserID(inst.RegisteredBy).SetSourceInstanceID(inst.ID).
				SetRemoteID(a.GetId()).SetSourceInstanceURL(inst.BaseURL).SetName(s.name).SetSlug(s.slug).
				SetNillableDescription(s.description).SetNillableDeveloperName(s.developer).SetNillableCategory(s.category).
				SetPricingModel(s.pricing).SetPricePerTask(s.price).SetCurrency(s.currency).SetVersion(s.version).
				SetAvailability(storeagent.Availability(s.availability)).SetTaskTypes(s.taskTypes).
				SetDeclaredWidgetTypes(s.widgets).SetSupportsA2a(s.a2a).SetSupportsMcp(s.mcp).
				SetExecutionTimeout(s.timeout).SetStatus(storeagent.Status(h.hub.Policy.InitialStatus())).Exec(ctx)
		},
		update: func(tx *db.Tx) error {
			status := h.hub.Policy.StatusAfterChange(string(row.Status), row.PricingModel != s.pricing)
			return tx.StoreAgent.UpdateOneID(row.ID).SetName(s.name).SetSlug(s.slug).
				SetNillableDescription(s.description).SetNillableDeveloperName(s.developer).SetNillableCategory(s.category).
				SetPricingModel(s.pricing).SetPricePerTask(s.price).SetCurrency(s.currency).SetVersion(s.version).
				SetAvailability(storeagent.Availability(s.availability)).SetTaskTypes(s.taskTypes).
				SetDeclaredWidgetTypes(s.widgets).SetSupportsA2a(s.a2a).SetSupportsMcp(s.mcp).
				SetExecutionTimeout(s.timeout).SetStatus(storeagent.Status(status)).Exec(ctx)
		},
	})
}

// syncWrite is one synced item's write, in the steps writeSynced runs in one
// transaction.
type syncWrite struct {
	// find answers the caller's row of the item (not found when none) and
	// whether it already holds the item.
	find func(tx *db.Tx) (id string, same bool, err error)
	// slugOwner answers the row holding the item's slug (not found when
	// none).
	slugOwner func(tx *db.Tx) (string, error)
	// create stores the item as a new row of id.
	create func(tx *db.Tx, id string) error
	// update rewrites the row find found.
	update func(tx *db.Tx) error
}

// writeSynced runs w for one item with slug and fills in res: conflict when
// another row holds the slug (also when a concurrent sync takes it first),
// else unchanged, created or updated with the row's id.
func (h *Platform) writeSynced(ctx context.Context, res *switchboardv1.SyncResult, slug string, w syncWrite) (*switchboardv1.SyncResult, error) {
	conflict := func() {
		res.Status, res.Error, res.MarketplaceId = syncConflict, federation.Ptr(fmt.Sprintf("slug %q is taken on this hub", slug)), nil
	}
	err := h.hub.DB.InTx(ctx, func(tx *db.Tx) error {
		mine, same, err := w.find(tx)
		if err != nil && !ent.IsNotFound(err) {
			return err
		}
		owner, err := w.slugOwner(tx)
		if err != nil && !ent.IsNotFound(err) {
			return err
		}
		switch {
		case owner != "" && owner != mine:
			conflict()
		case mine != "" && same:
			res.Status, res.MarketplaceId = syncUnchanged, &mine
		case mine == "":
			id := ids.New()
			if err := w.create(tx, id); err != nil {
				return err
			}
			res.Status, res.MarketplaceId = syncCreated, &id
		default:
			if err := w.update(tx); err != nil {
				return err
			}
			res.Status, res.MarketplaceId = syncUpdated, &mine
		}
		return nil
	})
	if ent.IsConstraintError(err) {
		conflict()
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// ListSyncedAgents answers the caller's synced listings with their
// execution counts and captured revenue.
func (h *Platform) ListSyncedAgents(ctx context.Context, _ *switchboardv1.ListSyncedAgentsRequest) (*switchboardv1.ListSyncedAgentsResponse, error) {
	inst, err := h.hub.caller(ctx, "agents", false)
	if err != nil {
		return nil, err
	}
	agents, err := h.syncedAgents(ctx, h.hub.DB.Client, inst.ID)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListSyncedAgentsResponse{Agents: agents}, nil
}

// syncedAgents answers instance's synced listings (those with remoteIDs
// when given, else all of them), oldest first, with their execution counts
// and captured revenue per currency.
func (h *Platform) syncedAgents(ctx context.Context, c *ent.Client, instance string, remoteIDs ...string) ([]*switchboardv1.SyncedAgent, error) {
	where := []predicate.StoreAgent{storeagent.SourceInstanceID(instance), storeagent.RemoteIDNotNil()}
	if len(remoteIDs) > 0 {
		where = append(where, storeagent.RemoteIDIn(remoteIDs...))
	}
	rows, err := c.StoreAgent.Query().Where(where...).
		Order(ent.Asc(storeagent.FieldCreatedAt), ent.Asc(storeagent.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return []*switchboardv1.SyncedAgent{}, nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	var sums []struct {
		AgentID  string         `json:"agent_id"`
		Currency sql.NullString `json:"currency"`
		Gross    sql.NullInt64  `json:"gross"`
		Payout   sql.NullInt64  `json:"payout"`
		Fee      sql.NullInt64  `json:"fee"`
	}
	err = c.Execution.Query().
		Where(execution.AgentIDIn(ids...), execution.GrossNotNil(),
			execution.PaymentHoldStatusEQ(execution.PaymentHoldStatusCaptured)).
		GroupBy(execution.FieldAgentID, execution.FieldCurrency).
		Aggregate(ent.As(ent.Sum(execution.FieldGross), "gross"), ent.As(ent.Sum(execution.FieldDeveloperPayout), "payout"),
			ent.As(ent.Sum(execution.FieldPlatformFee), "fee")).
		Scan(ctx, &sums)
	if err != nil {
		return nil, err
	}
	revenue := map[string][]*switchboardv1.SyncedAgentRevenue{}
	for _, r := range sums {
		revenue[r.AgentID] = append(revenue[r.AgentID], &switchboardv1.SyncedAgentRevenue{Currency: r.Currency.String,
			Gross: money.Cents(r.Gross.Int64).Float(), DeveloperPayout: money.Cents(r.Payout.Int64).Float(),
			PlatformFee: money.Cents(r.Fee.Int64).Float()})
	}
	out := make([]*switchboardv1.SyncedAgent, len(rows))
	for i, r := range rows {
		out[i] = &switchboardv1.SyncedAgent{RemoteId: federation.Deref(r.RemoteID), MarketplaceId: r.ID, Name: r.Name,
			Slug: r.Slug, Status: string(r.Status), ExecutionCount: int32(r.ExecutionCount), Revenue: revenue[r.ID]}
	}
	return out, nil
}
