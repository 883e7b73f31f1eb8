package hub

import (
	"context"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/team"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/promptgroups"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/page"
	"github.com/switchboard-hq/switchboard/server/profiles"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// The discovery page (document 2, "Limits": default 50, max 200).
const (
	DiscoverDefaultLimit = 50
	DiscoverMaxLimit     = 200
)

// DiscoverTypes are discover's `type` values; all is the default.
var DiscoverTypes = vocab.Values("discover_type")

// ValidatePayment answers the fee check of a spoke's paid transaction
// (RULINGS "Federation: instances and the platform", validate-payment).
func (h *Platform) ValidatePayment(ctx context.Context, req *switchboardv1.ValidatePaymentRequest) (*switchboardv1.ValidatePaymentResponse, error) {
	// The gate has checked the platform token (server/credentials.go).
	switch {
	case req.GetTransactionType() == "":
		return nil, apperr.Invalid("transactionType is required")
	case req.GrossAmount == nil:
		return nil, apperr.Invalid("grossAmount is required")
	case req.ProposedFeePercent == nil:
		return nil, apperr.Invalid("proposedFeePercent is required")
	}
	if _, err := h.hub.caller(ctx, "validate-payment", false); err != nil {
		return nil, err
	}
	v, err := payments.ValidatePayment(req.GetTransactionType(), req.GetGrossAmount(), req.GetProposedFeePercent())
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ValidatePaymentResponse{Valid: v.Valid, TransactionType: v.TransactionType,
		GrossAmount: v.GrossAmount.Float(), ProposedFeePercent: v.ProposedFeePercent, FloorPercent: v.FloorPercent,
		EnforcedFeePercent: v.EnforcedFeePercent, PlatformFee: v.PlatformFee.Float(),
		DeveloperPayout: v.DeveloperPayout.Float(), Reason: v.Reason}, nil
}

// ListPromptGroups answers the static prompt groups and the dynamic
// modules: the approved (active) synced capabilities with a promptGroup,
// oldest first.
func (h *Platform) ListPromptGroups(ctx context.Context, _ *switchboardv1.ListPromptGroupsRequest) (*switchboardv1.ListPromptGroupsResponse, error) {
	if _, err := h.hub.caller(ctx, "prompt-groups", false); err != nil {
		return nil, err
	}
	rows, err := h.hub.DB.CapabilityPack.Query().Where(capabilitypack.StatusEQ(capabilitypack.StatusActive),
		capabilitypack.SourceInstanceIDNotNil(), capabilitypack.PromptGroupNotNil()).
		Order(ent.Asc(capabilitypack.FieldCreatedAt), ent.Asc(capabilitypack.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	modules := make([]promptgroups.Module, len(rows))
	for i, r := range rows {
		modules[i] = promptgroups.Module{Name: r.Name, PromptGroup: *r.PromptGroup, SignalPatterns: r.SignalPatterns,
			TokenEstimate: r.TokenEstimate, AlwaysLoad: r.AlwaysLoad, Prompt: r.Prompt}
	}
	return promptGroupsAnswer(promptgroups.BuildAnswer(modules)), nil
}

func promptGroupsAnswer(a promptgroups.Answer) *switchboardv1.ListPromptGroupsResponse {
	out := &switchboardv1.ListPromptGroupsResponse{Version: a.Version, TotalGroups: int32(a.TotalGroups),
		Groups: make([]*switchboardv1.PromptGroupInfo, len(a.Groups)),
		Scoring: &switchboardv1.PromptGroupScoring{Description: a.Scoring.Description,
			CaseInsensitive: a.Scoring.CaseInsensitive, LastTurns: int32(a.Scoring.LastTurns),
			CharsPerToken: int32(a.Scoring.CharsPerToken), TokenEstimate: a.Scoring.TokenEstimate},
		CapabilityModuleSpec: &switchboardv1.PromptModuleSpec{
			Fields: make([]*switchboardv1.PromptModuleField, len(a.CapabilityModuleSpec.Fields))},
		DynamicModules: make([]*switchboardv1.PromptModuleInfo, len(a.DynamicModules))}
	for i, g := range a.Groups {
		out.Groups[i] = &switchboardv1.PromptGroupInfo{Index: int32(g.Index), Name: g.Name,
			AlwaysLoaded: g.AlwaysLoaded, SignalPatterns: g.SignalPatterns, Description: g.Description}
	}
	for i, f := range a.CapabilityModuleSpec.Fields {
		out.CapabilityModuleSpec.Fields[i] = &switchboardv1.PromptModuleField{Name: f.Name, Type: f.Type,
			Required: f.Required, Description: f.Description}
	}
	for i, m := range a.DynamicModules {
		out.DynamicModules[i] = &switchboardv1.PromptModuleInfo{Name: m.Name, PromptGroup: m.PromptGroup,
			SignalPatterns: m.SignalPatterns, TokenEstimate: int32(m.TokenEstimate), AlwaysLoad: m.AlwaysLoad}
	}
	return out
}

// DiscoverNetwork lists the hub's public profiles, teams and active
// listings. limit and offset page each list on its own; totals count each
// before paging. A platform token adds where each entry lives, its counts and
// the network's numbers; any other presented token is 401.
func (h *Platform) DiscoverNetwork(ctx context.Context, req *switchboardv1.DiscoverNetworkRequest) (*switchboardv1.DiscoverNetworkResponse, error) {
	if err := h.hub.serving(); err != nil {
		return nil, err
	}
	rich := false
	if auth.CredentialsFrom(ctx).Bearer != "" {
		if _, err := h.hub.caller(ctx, "discover", false); err != nil {
			return nil, err
		}
		rich = true
	}
	kind := req.GetType()
	if kind == "" {
		kind = string(vocab.DiscoverTypeAll)
	}
	if err := apperr.OneOf("type", kind, DiscoverTypes); err != nil {
		return nil, err
	}
	limit, offset := int(req.GetLimit()), int(req.GetOffset())
	switch {
	case limit < 0 || limit > DiscoverMaxLimit:
		return nil, apperr.Invalid("limit must be from 1 to %d (0 or absent for %d)", DiscoverMaxLimit, DiscoverDefaultLimit)
	case limit == 0:
		limit = DiscoverDefaultLimit
	}
	if offset < 0 {
		return nil, apperr.Invalid("offset must not be negative")
	}
	q := strings.TrimSpace(req.GetQ())
	folded := db.FoldASCII(q)
	out := &switchboardv1.DiscoverNetworkResponse{Type: kind, Profiles: []*switchboardv1.DiscoverProfile{},
		Teams: []*switchboardv1.DiscoverTeam{}, Agents: []*switchboardv1.DiscoverAgent{},
		Totals: &switchboardv1.DiscoverTotals{}, Limit: int32(limit), Offset: int32(offset), Authenticated: rich}
	if rich {
		if h.hub.PublicURL != "" {
			out.InstanceUrl = proto.String(h.hub.PublicURL)
		}
		stats, err := h.network(ctx)
		if err != nil {
			return nil, err
		}
		out.Network = stats
	}
	if kind == string(vocab.DiscoverTypeAll) || kind == string(vocab.DiscoverTypeProfiles) {
		if err := h.discoverProfiles(ctx, out, folded, limit, offset, rich); err != nil {
			return nil, err
		}
	}
	if kind == string(vocab.DiscoverTypeAll) || kind == string(vocab.DiscoverTypeTeams) {
		if err := h.discoverTeams(ctx, out, folded, limit, offset, rich); err != nil {
			return nil, err
		}
	}
	if kind == string(vocab.DiscoverTypeAll) || kind == string(vocab.DiscoverTypeAgents) {
		if err := h.discoverAgents(ctx, out, folded, limit, offset, rich); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// discoverProfiles pages the public profiles: the accounts whose
// profileVisibility is public (the default; a platform token is an
// instance, not a signed-in user or a connected peer, so it sees no network
// profile). A profile shows its id, username, name and avatar; never its
// email or role.
func (h *Platform) discoverProfiles(ctx context.Context, out *switchboardv1.DiscoverNetworkResponse, folded string, limit, offset int, rich bool) error {
	where := user.And(predicate.User(db.ContainsFolded(h.hub.DB.Dialect, folded, user.FieldUsername, user.FieldName)),
		profiles.UsersSeen(profiles.Anonymous),
		user.Not(user.EmailHasSuffix("@"+instanceAccountDomain))) // the spokes' accounts are not people
	total, err := h.hub.DB.User.Query().Where(where).Count(ctx)
	if err != nil {
		return err
	}
	out.Totals.Profiles = int32(total)
	if offset >= total {
		return nil
	}
	rows, err := h.hub.DB.User.Query().Where(where).Order(ent.Asc(user.FieldUsername), ent.Asc(user.FieldID)).
		Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return err
	}
	counts := map[string]int{}
	if rich && len(rows) > 0 {
		owners := make([]string, len(rows))
		for i, r := range rows {
			owners[i] = r.ID
		}
		var byOwner []struct {
			UserID string `json:"user_id"`
			Count  int    `json:"count"`
		}
		err := h.hub.DB.StoreAgent.Query().Where(storeagent.StatusEQ(storeagent.StatusActive), storeagent.UserIDIn(owners...)).
			GroupBy(storeagent.FieldUserID).Aggregate(ent.Count()).Scan(ctx, &byOwner)
		if err != nil {
			return err
		}
		for _, c := range byOwner {
			counts[c.UserID] = c.Count
		}
	}
	for _, r := range rows {
		p := &switchboardv1.DiscoverProfile{Id: r.ID, Username: r.Username, Name: r.Name, Avatar: r.Avatar}
		if rich {
			p.Counts = &switchboardv1.DiscoverCounts{Agents: int32(counts[r.ID])}
			if h.hub.PublicURL != "" {
				p.InstanceUrl = proto.String(h.hub.PublicURL)
			}
		}
		out.Profiles = append(out.Profiles, p)
	}
	return nil
}

// discoverTeams pages the public teams by handle: id, name, handle, avatar
// and description; a platform token adds where each lives.
func (h *Platform) discoverTeams(ctx context.Context, out *switchboardv1.DiscoverNetworkResponse, folded string, limit, offset int, rich bool) error {
	where := team.And(predicate.Team(db.ContainsFolded(h.hub.DB.Dialect, folded, team.FieldHandle, team.FieldName)),
		profiles.TeamsSeen(profiles.Anonymous))
	total, err := h.hub.DB.Team.Query().Where(where).Count(ctx)
	if err != nil {
		return err
	}
	out.Totals.Teams = int32(total)
	if offset >= total {
		return nil
	}
	rows, err := h.hub.DB.Team.Query().Where(where).Order(ent.Asc(team.FieldHandle), ent.Asc(team.FieldID)).
		Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return err
	}
	for _, r := range rows {
		t := &switchboardv1.DiscoverTeam{Id: r.ID, Name: r.Name, Handle: r.Handle, AvatarUrl: r.AvatarURL, Description: r.Description}
		if rich && h.hub.PublicURL != "" {
			t.InstanceUrl = proto.String(h.hub.PublicURL)
		}
		out.Teams = append(out.Teams, t)
	}
	return nil
}

// discoverAgents pages the active listings, newest first: the hub's own and
// those synced from its spokes, with what browse shows of them.
func (h *Platform) discoverAgents(ctx context.Context, out *switchboardv1.DiscoverNetworkResponse, folded string, limit, offset int, rich bool) error {
	agents, total, err := h.storeListings(ctx, folded, limit, offset, rich)
	if err != nil {
		return err
	}
	out.Totals.Agents, out.Agents = int32(total), agents
	return nil
}

// storeListings pages the hub's active store, newest first: its own listings
// and those synced from spokes that take part in the store (an instance whose
// participation is off, or that left, is hidden without its listings being
// touched). Only the public half of each listing is answered; rich adds where
// each lives and its counts.
func (h *Platform) storeListings(ctx context.Context, folded string, limit, offset int, rich bool) ([]*switchboardv1.DiscoverAgent, int, error) {
	hidden, err := h.hub.DB.FederationInstance.Query().Where(federationinstance.Or(
		federationinstance.StoreParticipation(false), federationinstance.LeftAtNotNil())).IDs(ctx)
	if err != nil {
		return nil, 0, err
	}
	where := []predicate.StoreAgent{storeagent.StatusEQ(storeagent.StatusActive)}
	if len(hidden) > 0 {
		where = append(where, storeagent.Or(storeagent.SourceInstanceIDIsNil(), storeagent.SourceInstanceIDNotIn(hidden...)))
	}
	if folded != "" {
		where = append(where, storeagent.Or(
			predicate.StoreAgent(db.ContainsFolded(h.hub.DB.Dialect, folded,
				storeagent.FieldName, storeagent.FieldSlug, storeagent.FieldDescription, storeagent.FieldDeveloperName)),
			predicate.StoreAgent(db.JSONContainsFolded(h.hub.DB.Dialect, folded, storeagent.FieldTaskTypes))))
	}
	total, err := h.hub.DB.StoreAgent.Query().Where(where...).Count(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := []*switchboardv1.DiscoverAgent{}
	if offset >= total {
		return out, total, nil
	}
	rows, err := h.hub.DB.StoreAgent.Query().Where(where...).
		Order(ent.Desc(storeagent.FieldCreatedAt), ent.Desc(storeagent.FieldID)).Offset(offset).Limit(limit).All(ctx)
	if err != nil {
		return nil, 0, err
	}
	for _, r := range rows {
		a := &switchboardv1.DiscoverAgent{Id: r.ID, Name: r.Name, Slug: r.Slug, Description: r.Description,
			DeveloperName: r.DeveloperName, Category: r.Category, PricingModel: r.PricingModel,
			PricePerTask: r.PricePerTask.Float(), Currency: r.Currency, TaskTypes: r.TaskTypes,
			SupportsA2A: r.SupportsA2a, SupportsMcp: r.SupportsMcp, Version: r.Version,
			Availability: string(r.Availability), RatingAvg: r.RatingAvg, RatingCount: int32(r.RatingCount),
			Origin: "local", CreatedAt: timestamppb.New(r.CreatedAt)}
		if a.TaskTypes == nil {
			a.TaskTypes = []string{}
		}
		instance := h.hub.PublicURL
		if r.SourceInstanceID != nil {
			a.Origin = "synced"
			instance = federation.Deref(r.SourceInstanceURL)
		}
		if rich {
			a.Counts = &switchboardv1.DiscoverCounts{Installs: int32(r.InstallCount),
				Subscribers: int32(r.SubscriberCount), Executions: int32(r.ExecutionCount)}
			if instance != "" {
				a.InstanceUrl = proto.String(instance)
			}
		}
		out = append(out, a)
	}
	return out, total, nil
}

// BrowseFederation is the hub's active store for anyone: no credential is
// read, so the answer is the same with or without one.
func (h *Platform) BrowseFederation(ctx context.Context, req *switchboardv1.BrowseFederationRequest) (*switchboardv1.BrowseFederationResponse, error) {
	if err := h.hub.serving(); err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	agents, total, err := h.storeListings(ctx, db.FoldASCII(strings.TrimSpace(req.GetQ())), pg.Limit, pg.Offset, false)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.BrowseFederationResponse{Agents: agents, Pagination: pg.Of(total, len(agents))}, nil
}
