package hub

import (
	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// InstanceView renders a registered instance as the admin's list does, its
// status read from its last heartbeat: the developer portal lists the
// instances a developer's connect tokens registered with it.
func (h *Admin) InstanceView(r *ent.FederationInstance) *switchboardv1.FederationInstance {
	return h.toProto(r)
}
