package hub

import (
	"context"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/store"
)

// PutSyncedAgent creates or updates one of the caller's listings by its id
// on the spoke: one entry of SyncAgents, its refusals as errors (invalid 400,
// a taken slug 409).
func (h *Platform) PutSyncedAgent(ctx context.Context, req *switchboardv1.PutSyncedAgentRequest) (*switchboardv1.PutSyncedAgentResponse, error) {
	// The gate has checked the platform token (server/credentials.go).
	switch {
	case req.GetRemoteId() == "":
		return nil, apperr.Invalid("remoteId is required")
	case strings.TrimSpace(req.GetAgent().GetName()) == "":
		return nil, apperr.Invalid("name is required")
	}
	inst, err := h.storeCaller(ctx, "agents")
	if err != nil {
		return nil, err
	}
	a := &switchboardv1.FederationAgent{}
	if req.GetAgent() != nil {
		a = proto.CloneOf(req.GetAgent())
	}
	if a.GetId() != "" && a.GetId() != req.GetRemoteId() {
		return nil, apperr.Invalid("id %q in the body is not the path's remoteId %q", a.GetId(), req.GetRemoteId())
	}
	a.Id = req.GetRemoteId()
	res, err := h.syncAgent(ctx, inst, a)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	switch res.GetStatus() {
	case syncInvalid:
		return nil, apperr.Invalid("%s", res.GetError())
	case syncConflict:
		return nil, apperr.Conflict("%s", res.GetError())
	}
	agent, err := h.syncedAgent(ctx, h.hub.DB.Client, inst.ID, a.GetId())
	if err != nil {
		return nil, err
	}
	return &switchboardv1.PutSyncedAgentResponse{Agent: agent, Created: res.GetStatus() == syncCreated}, nil
}

// GetSyncedAgent answers one of the caller's synced listings with its counts
// and revenue.
func (h *Platform) GetSyncedAgent(ctx context.Context, req *switchboardv1.GetSyncedAgentRequest) (*switchboardv1.GetSyncedAgentResponse, error) {
	inst, err := h.hub.caller(ctx, "agents", false)
	if err != nil {
		return nil, err
	}
	agent, err := h.syncedAgent(ctx, h.hub.DB.Client, inst.ID, req.GetRemoteId())
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetSyncedAgentResponse{Agent: agent}, nil
}

// DeleteSyncedAgent removes one of the caller's synced listings (see
// store.RemoveSynced).
func (h *Platform) DeleteSyncedAgent(ctx context.Context, req *switchboardv1.DeleteSyncedAgentRequest) (*switchboardv1.DeleteSyncedAgentResponse, error) {
	inst, err := h.hub.caller(ctx, "agents", false)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.DeleteSyncedAgentResponse{}
	err = h.hub.DB.InTx(ctx, func(tx *db.Tx) error {
		agent, gerr := h.syncedAgent(ctx, tx.Client(), inst.ID, req.GetRemoteId())
		if gerr != nil {
			return gerr
		}
		row, gerr := tx.StoreAgent.Get(ctx, agent.GetMarketplaceId())
		if gerr != nil {
			return gerr
		}
		kept, gerr := store.RemoveSynced(ctx, h.hub.DB, tx, row)
		out.Agent, out.KeptExecutions = agent, int32(kept)
		return gerr
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// syncedAgent is syncedAgents for one remote id: 404 when the instance has
// no listing of that id (another instance's id included).
func (h *Platform) syncedAgent(ctx context.Context, c *ent.Client, instance, remoteID string) (*switchboardv1.SyncedAgent, error) {
	if remoteID == "" {
		return nil, apperr.Invalid("remoteId is required")
	}
	list, err := h.syncedAgents(ctx, c, instance, remoteID)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, apperr.NotFound("no agent %q synced from this instance", remoteID)
	}
	return list[0], nil
}
