package store

import (
	"context"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// Instance agents (RULINGS "Onboarding, sprite, admin views", My agents):
// listings the instance owns, made and kept by its admins through POST
// /api/admin/my-agents. The listing is an ordinary one (browse, install,
// execute, changelog) made by the admin who first saved it; what sets it
// apart is instance_owned, an endpoint it may lack, and its kit (system
// prompt, tools, sample prompts, context instructions), which only admins
// read.

// kit is a validated StoreAgentKit; contextInstructions rides the listing's
// own field.
type kit struct {
	systemPrompt  *string
	tools, sample []string
}

// parseKit checks a kit's lists: trimmed, none empty, none twice (the
// contract bounds their counts and lengths).
func parseKit(k *switchboardv1.StoreAgentKit) (kit, error) {
	out := kit{}
	if p := strings.TrimSpace(k.GetSystemPrompt()); p != "" {
		out.systemPrompt = &p
	}
	var err error
	if out.tools, err = kitList("kit.tools", k.GetTools()); err != nil {
		return kit{}, err
	}
	if out.sample, err = kitList("kit.samplePrompts", k.GetSamplePrompts()); err != nil {
		return kit{}, err
	}
	return out, nil
}

func kitList(wire string, in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for i, v := range in {
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, apperr.Invalid("%s[%d] is empty", wire, i)
		}
		if slices.Contains(out, v) {
			return nil, apperr.Invalid("%s names %q twice", wire, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// kitChanges names the kit's parts that differ from row's (JSON names, as
// the changelog lists fields).
func (k kit) changes(row *ent.StoreAgent) []string {
	var out []string
	same := (k.systemPrompt == nil) == (row.KitSystemPrompt == nil) &&
		(k.systemPrompt == nil || *k.systemPrompt == *row.KitSystemPrompt)
	if !same {
		out = append(out, "kit.systemPrompt")
	}
	if !slices.Equal(k.tools, nonNil(row.KitTools)) {
		out = append(out, "kit.tools")
	}
	if !slices.Equal(k.sample, nonNil(row.KitSamplePrompts)) {
		out = append(out, "kit.samplePrompts")
	}
	return out
}

func (k kit) write(m *ent.StoreAgentMutation) {
	m.SetInstanceOwned(true)
	if k.systemPrompt != nil {
		m.SetKitSystemPrompt(*k.systemPrompt)
	} else {
		m.ClearKitSystemPrompt()
	}
	m.SetKitTools(k.tools)
	m.SetKitSamplePrompts(k.sample)
}

// toKit renders an instance agent's kit.
func toKit(a *ent.StoreAgent) *switchboardv1.StoreAgentKit {
	return &switchboardv1.StoreAgentKit{
		SystemPrompt: a.KitSystemPrompt, Tools: nonNil(slices.Clone(a.KitTools)),
		SamplePrompts: nonNil(slices.Clone(a.KitSamplePrompts)), ContextInstructions: a.ContextInstructions,
	}
}

// listingInput is the listing part of a save, as StoreService takes it.
func listingInput(req *switchboardv1.SaveMyAgentRequest) *switchboardv1.StoreAgentInput {
	in := &switchboardv1.StoreAgentInput{
		Name: req.Name, Slug: req.Slug, Description: req.Description, Category: req.Category,
		PricingModel: req.PricingModel, EndpointUrl: req.EndpointUrl,
	}
	if req.PricePerTaskCents != nil {
		v := float64(req.GetPricePerTaskCents()) / 100
		in.PricePerTask = &v
	}
	if req.Kit != nil {
		ci := req.GetKit().GetContextInstructions()
		in.ContextInstructions = &ci
	}
	return in
}

// SaveInstanceAgent creates or updates an instance agent for adminID, an
// admin of the instance (the caller checks): by id, else by slug; a slug no
// listing has (or none, with a name) creates one, active at once and owned
// by adminID. Another account's listing named by id is 404, and by slug 409:
// its slug is taken. A kit given is the whole kit.
func (s *Service) SaveInstanceAgent(ctx context.Context, adminID string, req *switchboardv1.SaveMyAgentRequest) (*switchboardv1.SaveMyAgentResponse, error) {
	k, err := parseKit(req.GetKit())
	if err != nil {
		return nil, err
	}
	row, err := s.instanceAgent(ctx, req)
	if err != nil {
		return nil, err
	}
	if row == nil {
		return s.createInstanceAgent(ctx, adminID, req, k)
	}
	in := listingInput(req)
	p := &patch{texts: map[string]string{}}
	if req.Kit == nil {
		in.ContextInstructions = nil
	}
	if suppliesListing(in) {
		if p, err = parseInput(in, false); err != nil {
			return nil, err
		}
	}
	x := &beyond{changed: func(*ent.StoreAgent) []string { return nil }, write: func(*ent.StoreAgentMutation) {}}
	if req.Kit != nil {
		x = &beyond{changed: k.changes, write: k.write}
	}
	// The instance's admin keeps the agent: a change needs no review.
	row, change, err := s.updateListing(ctx, row.UserID, row.ID, p, func(r *ent.StoreAgent, _ bool) string { return string(r.Status) }, x)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.SaveMyAgentResponse{Agent: instanceView(row)}
	if change != nil {
		out.Change = toChange(*change)
	}
	return out, nil
}

// instanceAgent finds the instance agent a save names: nil for a create.
func (s *Service) instanceAgent(ctx context.Context, req *switchboardv1.SaveMyAgentRequest) (*ent.StoreAgent, error) {
	q := s.DB.StoreAgent.Query()
	switch {
	case req.Id != nil:
		row, err := q.Where(storeagent.ID(req.GetId()), storeagent.InstanceOwned(true)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("no agent of this instance has id %q", req.GetId())
		}
		return row, err
	case req.Slug != nil:
		row, err := q.Where(storeagent.Slug(strings.TrimSpace(req.GetSlug()))).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		if !row.InstanceOwned {
			return nil, apperr.Conflict("slug %q is taken by a listing the instance does not own; choose another", row.Slug)
		}
		return row, nil
	}
	return nil, nil
}

func (s *Service) createInstanceAgent(ctx context.Context, adminID string, req *switchboardv1.SaveMyAgentRequest, k kit) (*switchboardv1.SaveMyAgentResponse, error) {
	if req.Name == nil || strings.TrimSpace(req.GetName()) == "" {
		return nil, apperr.Invalid("name is required to create an agent (an update names its id or slug)")
	}
	p, err := parseInput(listingInput(req), false)
	if err != nil {
		return nil, err
	}
	c, err := s.checked(ctx, p)
	if err != nil {
		return nil, err
	}
	active := func(*db.Tx) (string, error) { return string(storeagent.StatusActive), nil }
	row, err := s.createChecked(ctx, adminID, c, active, &beyond{write: k.write}, nil)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.SaveMyAgentResponse{Agent: instanceView(row), Created: true}, nil
}

// suppliesListing reports whether a save changes a listing field (else it
// changes the kit alone, or nothing).
func suppliesListing(in *switchboardv1.StoreAgentInput) bool {
	return in.Name != nil || in.Slug != nil || in.Description != nil || in.Category != nil || in.PricingModel != nil ||
		in.PricePerTask != nil || in.EndpointUrl != nil || in.ContextInstructions != nil
}

// instanceView renders an instance agent for the instance's admins: its
// kit included, and how it is reached (they keep it).
func instanceView(row *ent.StoreAgent) *switchboardv1.StoreAgent {
	return toAgent(row, viewer{userID: row.UserID, admin: true})
}
