package developer

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// ListDeveloperInstances lists the instances registered with the caller's
// connect tokens (the hub records whose token registered each), newest
// first, with the status the hub's admin sees. A standalone instance has
// none.
func (p *Portal) ListDeveloperInstances(ctx context.Context, _ *switchboardv1.ListDeveloperInstancesRequest) (*switchboardv1.ListDeveloperInstancesResponse, error) {
	pr, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := p.dev.DB.FederationInstance.Query().Where(federationinstance.RegisteredBy(pr.UserID)).
		Order(ent.Desc(federationinstance.FieldCreatedAt), ent.Desc(federationinstance.FieldID)).Limit(maxListed).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*switchboardv1.FederationInstance, len(rows))
	for i, r := range rows {
		out[i] = p.instances.InstanceView(r)
	}
	return &switchboardv1.ListDeveloperInstancesResponse{Instances: out}, nil
}
