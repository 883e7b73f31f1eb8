package spoke

import (
	"context"
	"fmt"
	"slices"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
)

// LinkMarketplace asks the hub to enable or disable this instance's store
// participation (or to report it) and records the hub's answer.
func (s *Admin) LinkMarketplace(ctx context.Context, req *switchboardv1.LinkMarketplaceRequest) (*switchboardv1.LinkMarketplaceResponse, error) {
	if err := s.spoke.admin(ctx); err != nil {
		return nil, err
	}
	if req.GetAction() == "" {
		return nil, apperr.Invalid("action is required: enable, disable or status")
	}
	m, err := s.spoke.joined(ctx)
	if err != nil {
		return nil, err
	}
	if m, err = s.link(ctx, m, req.GetAction()); err != nil {
		return nil, err
	}
	return &switchboardv1.LinkMarketplaceResponse{Status: s.spoke.toStatus(m)}, nil
}

// link calls the hub's marketplace-link and keeps its answer.
func (s *Admin) link(ctx context.Context, m *ent.FederationMembership, action string) (*ent.FederationMembership, error) {
	token, err := s.spoke.token(m)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	res, err := s.spoke.hub(m.HubURL).MarketplaceLink(withBearer(ctx, token), &switchboardv1.MarketplaceLinkRequest{Action: action})
	if err != nil {
		return nil, hubError(m.HubURL, err)
	}
	m, err = s.spoke.DB.FederationMembership.UpdateOneID(m.ID).SetStoreParticipation(res.GetStoreParticipation()).
		Save(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	return m, nil
}

// SyncMarketplace pushes this instance's own active listings (not those it
// holds for others) to the hub, MaxSync per call, without their endpoints
// or credentials.
func (s *Admin) SyncMarketplace(ctx context.Context, _ *switchboardv1.SyncMarketplaceRequest) (*switchboardv1.SyncMarketplaceResponse, error) {
	if err := s.spoke.admin(ctx); err != nil {
		return nil, err
	}
	m, err := s.spoke.joined(ctx)
	if err != nil {
		return nil, err
	}
	if !m.StoreParticipation {
		return nil, apperr.IllegalMove("store participation is off: enable it first (POST /api/federation/marketplace-link {\"action\": \"enable\"})")
	}
	token, err := s.spoke.token(m)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	rows, err := s.spoke.DB.StoreAgent.Query().
		Where(storeagent.StatusEQ(storeagent.StatusActive), storeagent.SourceInstanceIDIsNil()).
		Order(ent.Asc(storeagent.FieldCreatedAt), ent.Asc(storeagent.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.SyncMarketplaceResponse{Results: []*switchboardv1.SyncResult{}}
	var syncable []*ent.StoreAgent
	for _, r := range rows {
		if !slices.Contains(syncPricing, r.PricingModel) {
			out.Results = append(out.Results, &switchboardv1.SyncResult{Id: r.ID, Status: "invalid",
				Error: federation.Ptr("pricing model " + r.PricingModel + " cannot be offered through a hub")})
			continue
		}
		syncable = append(syncable, r)
	}
	for start := 0; start < len(syncable); start += MaxSync {
		batch := syncable[start:min(start+MaxSync, len(syncable))]
		agents := make([]*switchboardv1.FederationAgent, len(batch))
		for i, r := range batch {
			agents[i] = toFederationAgent(r)
		}
		res, err := s.spoke.hub(m.HubURL).SyncAgents(withBearer(ctx, token), &switchboardv1.SyncAgentsRequest{Agents: agents})
		if err != nil {
			return nil, hubError(m.HubURL, err)
		}
		out.Results = append(out.Results, res.GetResults()...)
	}
	if out.CapabilityResults, err = s.syncCapabilities(ctx, m, token); err != nil {
		return nil, err
	}
	// The hub has taken the listings: the time and the activity are kept
	// even if the admin's client has gone.
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	now := s.spoke.now()
	m, err = db.InTxValue(context.WithoutCancel(ctx), s.spoke.DB, func(tx *db.Tx) (*ent.FederationMembership, error) {
		m, err := tx.FederationMembership.UpdateOneID(m.ID).SetLastSyncAt(now).Save(ctx)
		if err != nil {
			return nil, err
		}
		return m, activity.Write(ctx, tx, activity.Entry{UserID: p.UserID, Action: "sync_completed", Actor: p.Actor(), At: now,
			Summary:  fmt.Sprintf("Synced %d listings and %d packs with %s", len(out.Results), len(out.CapabilityResults), m.HubURL),
			Metadata: map[string]any{"hubUrl": m.HubURL, "listings": len(out.Results), "packs": len(out.CapabilityResults)}})
	})
	if err != nil {
		return nil, err
	}
	out.Status = s.spoke.toStatus(m)
	return out, nil
}

// What a hub takes of a listing's category and pricing model.
var (
	syncCategories = vocab.Values("sync_category")
	syncPricing    = vocab.Values("sync_pricing_model")
)

// toFederationAgent is what a listing shows its hub: public fields only.
func toFederationAgent(r *ent.StoreAgent) *switchboardv1.FederationAgent {
	a := &switchboardv1.FederationAgent{
		Id: r.ID, Name: r.Name, Slug: r.Slug, Description: r.Description, DeveloperName: r.DeveloperName,
		PricingModel: r.PricingModel, PricePerTask: r.PricePerTask.Float(), Currency: r.Currency,
		TaskTypes: r.TaskTypes, Version: r.Version, Availability: string(r.Availability),
		DeclaredWidgetTypes: r.DeclaredWidgetTypes, SupportsA2A: r.SupportsA2a, SupportsMcp: r.SupportsMcp,
		ExecutionTimeout: int32(r.ExecutionTimeout),
	}
	if r.Category != nil && slices.Contains(syncCategories, *r.Category) {
		a.Category = r.Category
	}
	return a
}

// syncCapabilities pushes this instance's own active capability packs to
// the hub, MaxSync per call. A paid pack or one behind an access password
// is not offered: the hub's capabilities carry neither a price nor a
// password (docs/decisions.md "Federation platform routes (issue 14)").
func (s *Admin) syncCapabilities(ctx context.Context, m *ent.FederationMembership, token string) ([]*switchboardv1.SyncResult, error) {
	rows, err := s.spoke.DB.CapabilityPack.Query().
		Where(capabilitypack.StatusEQ(capabilitypack.StatusActive), capabilitypack.SourceInstanceIDIsNil()).
		Order(ent.Asc(capabilitypack.FieldCreatedAt), ent.Asc(capabilitypack.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := []*switchboardv1.SyncResult{}
	var syncable []*switchboardv1.FederationCapability
	for _, r := range rows {
		switch {
		case r.AccessPasswordSealed != nil && len(*r.AccessPasswordSealed) > 0: // NULL reads as empty
			out = append(out, &switchboardv1.SyncResult{Id: r.ID, Status: "invalid",
				Error: federation.Ptr("a capability behind an access password cannot be offered through a hub")})
		case r.PricingModel != "free" || r.Price != 0:
			out = append(out, &switchboardv1.SyncResult{Id: r.ID, Status: "invalid",
				Error: federation.Ptr("a paid capability cannot be offered through a hub")})
		default:
			syncable = append(syncable, toFederationCapability(r))
		}
	}
	for start := 0; start < len(syncable); start += MaxSync {
		batch := syncable[start:min(start+MaxSync, len(syncable))]
		res, err := s.spoke.hub(m.HubURL).SyncCapabilities(withBearer(ctx, token), &switchboardv1.SyncCapabilitiesRequest{Capabilities: batch})
		if err != nil {
			return nil, hubError(m.HubURL, err)
		}
		out = append(out, res.GetResults()...)
	}
	return out, nil
}

// toFederationCapability is what a pack shows its hub: its prompt and its
// dynamic module fields, never its installs or password.
func toFederationCapability(r *ent.CapabilityPack) *switchboardv1.FederationCapability {
	return &switchboardv1.FederationCapability{Id: r.ID, Name: r.Name, Slug: federation.Deref(r.Slug), Description: r.Description,
		Prompt: r.Prompt, Category: r.Category, PromptGroup: r.PromptGroup, SignalPatterns: r.SignalPatterns,
		TokenEstimate: int32(r.TokenEstimate), AlwaysLoad: r.AlwaysLoad}
}
