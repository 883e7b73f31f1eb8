package hub

import (
	"context"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/promptgroups"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/store"
)

// SyncCapabilities applies each capability on its own, as SyncAgents does
// agents. A synced capability is a capability pack carrying its instance and
// remote id (docs/decisions.md "Federation platform routes (issue 14)").
func (h *Platform) SyncCapabilities(ctx context.Context, req *switchboardv1.SyncCapabilitiesRequest) (*switchboardv1.SyncCapabilitiesResponse, error) {
	inst, err := h.storeCaller(ctx, "capabilities")
	if err != nil {
		return nil, err
	}
	return &switchboardv1.SyncCapabilitiesResponse{Results: syncEach(ctx, req.GetCapabilities(),
		func(c *switchboardv1.FederationCapability) (*switchboardv1.SyncResult, error) {
			return h.syncCapability(ctx, inst, c)
		})}, nil
}

// syncedCap is a synced capability's fields as the hub stores them.
type syncedCap struct {
	name, slug, prompt                 string
	description, category, promptGroup *string
	patterns                           []string
	tokens                             int
	always                             bool
}

func parseCapability(c *switchboardv1.FederationCapability) (syncedCap, error) {
	s := syncedCap{name: strings.TrimSpace(c.GetName()), prompt: c.GetPrompt(), description: c.Description,
		category: c.Category, promptGroup: c.PromptGroup, patterns: c.GetSignalPatterns(),
		tokens: int(c.GetTokenEstimate()), always: c.GetAlwaysLoad()}
	if s.patterns == nil {
		s.patterns = []string{}
	}
	switch {
	case c.GetId() == "":
		return s, apperr.Invalid("id is required")
	case s.name == "":
		return s, apperr.Invalid("name is required")
	case strings.TrimSpace(s.prompt) == "":
		return s, apperr.Invalid("prompt is required")
	case s.tokens < 0:
		return s, apperr.Invalid("tokenEstimate must not be negative")
	}
	var err error
	if s.slug, err = store.SyncedSlug(s.name, c.GetSlug()); err != nil {
		return s, apperr.Invalid("%s", err)
	}
	if s.promptGroup != nil {
		err = promptgroups.ValidateModule(promptgroups.Module{Name: s.name, PromptGroup: *s.promptGroup,
			SignalPatterns: s.patterns, TokenEstimate: s.tokens, AlwaysLoad: s.always, Prompt: s.prompt})
	} else {
		err = promptgroups.ValidatePatterns(s.patterns)
	}
	if err != nil {
		return s, apperr.Invalid("%s", err)
	}
	return s, nil
}

// same reports whether row already holds s.
func (s syncedCap) same(row *ent.CapabilityPack) bool {
	return row.Name == s.name && federation.Deref(row.Slug) == s.slug && row.Prompt == s.prompt &&
		equalPtr(row.Description, s.description) && equalPtr(row.Category, s.category) &&
		equalPtr(row.PromptGroup, s.promptGroup) && slices.Equal(row.SignalPatterns, s.patterns) &&
		row.TokenEstimate == s.tokens && row.AlwaysLoad == s.always
}

func equalPtr(a, b *string) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }

// syncCapability creates or updates one synced capability; err is a storage
// failure, every refusal is in the result.
func (h *Platform) syncCapability(ctx context.Context, inst *ent.FederationInstance, c *switchboardv1.FederationCapability) (*switchboardv1.SyncResult, error) {
	res := &switchboardv1.SyncResult{Id: c.GetId()}
	s, err := parseCapability(c)
	if err != nil {
		res.Status, res.Error = syncInvalid, federation.Ptr(apperr.From(err).Message)
		return res, nil
	}
	var row *ent.CapabilityPack
	return h.writeSynced(ctx, res, s.slug, syncWrite{
		find: func(tx *db.Tx) (string, bool, error) {
			var err error
			if row, err = tx.CapabilityPack.Query().
				Where(capabilitypack.SourceInstanceID(inst.ID), capabilitypack.RemoteID(c.GetId())).Only(ctx); err != nil {
				return "", false, err
			}
			return row.ID, s.same(row), nil
		},
		slugOwner: func(tx *db.Tx) (string, error) {
			return tx.CapabilityPack.Query().Where(capabilitypack.Slug(s.slug)).OnlyID(ctx)
		},
		create: func(tx *db.Tx, id string) error {
			return tx.CapabilityPack.Create().SetID(id).SetUserID(inst.RegisteredBy).SetSourceInstanceID(inst.ID).
				SetRemoteID(c.GetId()).SetName(s.name).SetSlug(s.slug).SetPrompt(s.prompt).
				SetNillableDescription(s.description).SetNillableCategory(s.category).
				SetNillablePromptGroup(s.promptGroup).SetSignalPatterns(s.patterns).SetTokenEstimate(s.tokens).
				SetAlwaysLoad(s.always).SetStatus(capabilitypack.Status(h.hub.Policy.InitialStatus())).
				SetCreatedBy(capabilitypack.CreatedByPeer).SetCreatedByRef(inst.ID).
				SetTextBy(capabilitypack.TextByPeer).SetTextByRef(inst.ID).Exec(ctx)
		},
		update: func(tx *db.Tx) error {
			// A changed prompt is what the assistant runs: it is reviewed
			// again like a listing's breaking change.
			status := h.hub.Policy.StatusAfterChange(string(row.Status), row.Prompt != s.prompt)
			up := tx.CapabilityPack.UpdateOneID(row.ID).SetName(s.name).SetSlug(s.slug).SetPrompt(s.prompt).
				SetSignalPatterns(s.patterns).SetTokenEstimate(s.tokens).SetAlwaysLoad(s.always).
				SetStatus(capabilitypack.Status(status)).SetTextBy(capabilitypack.TextByPeer).SetTextByRef(inst.ID)
			setOrClear(s.description, up.SetDescription, up.ClearDescription)
			setOrClear(s.category, up.SetCategory, up.ClearCategory)
			setOrClear(s.promptGroup, up.SetPromptGroup, up.ClearPromptGroup)
			return up.Exec(ctx)
		},
	})
}

// setOrClear sets an optional field to v, or clears it when v is nil.
func setOrClear[U any](v *string, set func(string) U, clear func() U) {
	if v != nil {
		set(*v)
	} else {
		clear()
	}
}

// ListSyncedCapabilities answers the caller's synced capabilities, oldest
// first.
func (h *Platform) ListSyncedCapabilities(ctx context.Context, _ *switchboardv1.ListSyncedCapabilitiesRequest) (*switchboardv1.ListSyncedCapabilitiesResponse, error) {
	inst, err := h.hub.caller(ctx, "capabilities", false)
	if err != nil {
		return nil, err
	}
	rows, err := h.hub.DB.CapabilityPack.Query().
		Where(capabilitypack.SourceInstanceID(inst.ID), capabilitypack.RemoteIDNotNil()).
		Order(ent.Asc(capabilitypack.FieldCreatedAt), ent.Asc(capabilitypack.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListSyncedCapabilitiesResponse{Capabilities: make([]*switchboardv1.SyncedCapability, len(rows))}
	for i, r := range rows {
		out.Capabilities[i] = &switchboardv1.SyncedCapability{RemoteId: federation.Deref(r.RemoteID), MarketplaceId: r.ID,
			Name: r.Name, Slug: federation.Deref(r.Slug), Status: string(r.Status), PromptGroup: r.PromptGroup,
			SignalPatterns: r.SignalPatterns, TokenEstimate: int32(r.TokenEstimate), AlwaysLoad: r.AlwaysLoad}
	}
	return out, nil
}
