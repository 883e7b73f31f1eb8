package federation

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// admin checks that the caller is the hub's admin.
func (h *Hub) admin(ctx context.Context) error {
	if err := h.serving(); err != nil {
		return err
	}
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return err
	}
	if p.Role != "admin" {
		return apperr.Forbidden("only the hub's admin may manage its instances")
	}
	return nil
}

// ListFederationInstances lists every registered instance, newest first.
func (h *Hub) ListFederationInstances(ctx context.Context, _ *switchboardv1.ListFederationInstancesRequest) (*switchboardv1.ListFederationInstancesResponse, error) {
	if err := h.admin(ctx); err != nil {
		return nil, err
	}
	rows, err := h.DB.FederationInstance.Query().Order(ent.Desc(federationinstance.FieldCreatedAt), ent.Desc(federationinstance.FieldID)).All(ctx)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	out := make([]*switchboardv1.FederationInstance, len(rows))
	for i, r := range rows {
		out[i] = h.toProto(r)
	}
	return &switchboardv1.ListFederationInstancesResponse{Instances: out}, nil
}

// DeactivateFederationInstance suspends an instance; deactivating again
// changes nothing.
func (h *Hub) DeactivateFederationInstance(ctx context.Context, req *switchboardv1.DeactivateFederationInstanceRequest) (*switchboardv1.DeactivateFederationInstanceResponse, error) {
	inst, err := h.setDeactivated(ctx, req.GetId(), true)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeactivateFederationInstanceResponse{Instance: inst}, nil
}

// ReactivateFederationInstance restores a deactivated instance.
func (h *Hub) ReactivateFederationInstance(ctx context.Context, req *switchboardv1.ReactivateFederationInstanceRequest) (*switchboardv1.ReactivateFederationInstanceResponse, error) {
	inst, err := h.setDeactivated(ctx, req.GetId(), false)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ReactivateFederationInstanceResponse{Instance: inst}, nil
}

func (h *Hub) setDeactivated(ctx context.Context, id string, off bool) (*switchboardv1.FederationInstance, error) {
	if err := h.admin(ctx); err != nil {
		return nil, err
	}
	row, err := h.DB.FederationInstance.Get(ctx, id)
	if err != nil {
		return nil, apperr.Wrap(err)
	}
	if row.LeftAt != nil {
		return nil, apperr.IllegalMove("instance %s has left this hub", id)
	}
	if off == (row.DeactivatedAt != nil) {
		return h.toProto(row), nil
	}
	up := h.DB.FederationInstance.UpdateOneID(id)
	if off {
		up.SetDeactivatedAt(h.now())
	} else {
		up.ClearDeactivatedAt()
	}
	row, err = up.Save(ctx)
	if err != nil {
		return nil, apperr.Wrap(err)
	}
	return h.toProto(row), nil
}

// status is where an instance stands: left and deactivated as recorded,
// stale when its last sign of life (a heartbeat, or its first registration) is older
// than StaleAfter.
func (h *Hub) status(r *ent.FederationInstance) string {
	switch {
	case r.LeftAt != nil:
		return "left"
	case r.DeactivatedAt != nil:
		return "deactivated"
	}
	seen := r.CreatedAt
	if r.LastHeartbeatAt != nil {
		seen = *r.LastHeartbeatAt
	}
	if h.now().Sub(seen) > h.StaleAfter {
		return "stale"
	}
	return "active"
}

func (h *Hub) toProto(r *ent.FederationInstance) *switchboardv1.FederationInstance {
	out := &switchboardv1.FederationInstance{
		Id: r.ID, Name: r.Name, BaseUrl: r.BaseURL, Status: h.status(r), Health: string(r.Health),
		Version: r.Version, UserCount: int32(r.UserCount), AgentCount: int32(r.AgentCount),
		StoreParticipation: r.StoreParticipation, RegisteredAt: timestamppb.New(r.CreatedAt),
		TokenPrefix: r.TokenPrefix,
	}
	if r.LastHeartbeatAt != nil {
		out.LastHeartbeatAt = timestamppb.New(*r.LastHeartbeatAt)
	}
	return out
}
