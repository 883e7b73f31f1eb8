package hub

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// admin checks that the caller is the hub's admin.
func (h *Admin) admin(ctx context.Context) error {
	if err := h.hub.serving(); err != nil {
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
func (h *Admin) ListFederationInstances(ctx context.Context, _ *switchboardv1.ListFederationInstancesRequest) (*switchboardv1.ListFederationInstancesResponse, error) {
	if err := h.admin(ctx); err != nil {
		return nil, err
	}
	rows, err := h.hub.DB.FederationInstance.Query().Order(ent.Desc(federationinstance.FieldCreatedAt), ent.Desc(federationinstance.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*switchboardv1.FederationInstance, len(rows))
	for i, r := range rows {
		out[i] = h.toProto(r)
	}
	return &switchboardv1.ListFederationInstancesResponse{Instances: out}, nil
}

// DeactivateFederationInstance suspends an instance; deactivating again
// changes nothing.
func (h *Admin) DeactivateFederationInstance(ctx context.Context, req *switchboardv1.DeactivateFederationInstanceRequest) (*switchboardv1.DeactivateFederationInstanceResponse, error) {
	inst, err := h.setDeactivated(ctx, req.GetId(), true)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeactivateFederationInstanceResponse{Instance: inst}, nil
}

// ReactivateFederationInstance restores a deactivated instance.
func (h *Admin) ReactivateFederationInstance(ctx context.Context, req *switchboardv1.ReactivateFederationInstanceRequest) (*switchboardv1.ReactivateFederationInstanceResponse, error) {
	inst, err := h.setDeactivated(ctx, req.GetId(), false)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ReactivateFederationInstanceResponse{Instance: inst}, nil
}

func (h *Admin) setDeactivated(ctx context.Context, id string, off bool) (*switchboardv1.FederationInstance, error) {
	if err := h.admin(ctx); err != nil {
		return nil, err
	}
	row, err := h.hub.DB.FederationInstance.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if row.LeftAt != nil {
		return nil, apperr.IllegalMove("instance %s has left this hub", id)
	}
	if off == (row.DeactivatedAt != nil) {
		return h.toProto(row), nil
	}
	err = h.hub.DB.InTx(ctx, func(tx *db.Tx) error {
		up := tx.FederationInstance.UpdateOneID(id)
		if off {
			up.SetDeactivatedAt(h.hub.now())
		} else {
			up.ClearDeactivatedAt()
		}
		if row, err = up.Save(ctx); err != nil {
			return err
		}
		return cascade(ctx, tx, id, off)
	})
	if err != nil {
		return nil, err
	}
	return h.toProto(row), nil
}

// cascade suspends every agent and capability synced from instance,
// remembering each one's status (off), or puts each suspended one back to the
// status it had (on). Rows suspended otherwise (no remembered status) stay
// suspended, and an admin's later decision on a suspended row stands.
func cascade(ctx context.Context, tx *db.Tx, instance string, off bool) error {
	suspended := string(storeagent.StatusSuspended)
	for _, st := range vocab.Values("listing_status") {
		if st == suspended {
			continue
		}
		var err error
		if off {
			err = tx.StoreAgent.Update().Where(storeagent.SourceInstanceID(instance), storeagent.StatusEQ(storeagent.Status(st))).
				SetStatus(storeagent.StatusSuspended).SetStatusBeforeSuspend(st).Exec(ctx)
			if err == nil {
				err = tx.CapabilityPack.Update().Where(capabilitypack.SourceInstanceID(instance), capabilitypack.StatusEQ(capabilitypack.Status(st))).
					SetStatus(capabilitypack.StatusSuspended).SetStatusBeforeSuspend(st).Exec(ctx)
			}
		} else {
			err = tx.StoreAgent.Update().Where(storeagent.SourceInstanceID(instance), storeagent.StatusEQ(storeagent.StatusSuspended),
				storeagent.StatusBeforeSuspend(st)).SetStatus(storeagent.Status(st)).ClearStatusBeforeSuspend().Exec(ctx)
			if err == nil {
				err = tx.CapabilityPack.Update().Where(capabilitypack.SourceInstanceID(instance), capabilitypack.StatusEQ(capabilitypack.StatusSuspended),
					capabilitypack.StatusBeforeSuspend(st)).SetStatus(capabilitypack.Status(st)).ClearStatusBeforeSuspend().Exec(ctx)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// status is where an instance stands: left and deactivated as recorded,
// stale when its last sign of life (a heartbeat, or its first registration) is older
// than StaleAfter.
func (h *Admin) status(r *ent.FederationInstance) string {
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
	if h.hub.now().Sub(seen) > h.hub.StaleAfter {
		return string(vocab.InstanceStatusStale)
	}
	return string(vocab.InstanceStatusActive)
}

func (h *Admin) toProto(r *ent.FederationInstance) *switchboardv1.FederationInstance {
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
