package developer

import (
	"context"
	"math"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/developerteammember"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

var (
	_ switchboardv1connect.DeveloperPortalServiceHandler = (*Portal)(nil)
	_ switchboardv1.DeveloperPortalServiceServer         = (*Portal)(nil)
)

// Portal implements DeveloperPortalService, the developer portal's session
// routes, over the developer service's storage and rules: every signed-in
// user is a developer (RULINGS "Onboarding, sprite, admin views, the
// developer portal").
type Portal struct {
	dev *Service
	// instances renders a registered instance with its status (the hub's
	// view of it).
	instances InstanceViewer
}

// InstanceViewer renders an instance registered with this hub as the hub's
// admin sees it, its status read from its last heartbeat.
type InstanceViewer interface {
	InstanceView(r *ent.FederationInstance) *switchboardv1.FederationInstance
}

// NewPortal makes the portal over the developer service.
func NewPortal(dev *Service, instances InstanceViewer) *Portal {
	return &Portal{dev: dev, instances: instances}
}

// Caps of what one developer account holds (docs/decisions.md "The
// developer portal (issue 31)").
const (
	maxTeamMembers     = 50
	maxWidgetTemplates = 100
	// maxListed bounds the unpaged lists (agents, connect tokens,
	// instances); the paged ones follow server/page.
	maxListed = 200
)

// access is why the caller may manage an agent.
type access = vocab.PortalAccess

// managed finds agent id among the agents userID may manage: its own, or
// those of a developer whose team it belongs to. Any other id is 404.
func managed(ctx context.Context, c *ent.Client, userID, id string) (*ent.StoreAgent, access, error) {
	notFound := apperr.NotFound("agent %q not found among the agents you manage", id)
	if id == "" {
		return nil, "", notFound
	}
	row, err := c.StoreAgent.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, "", notFound
	} else if err != nil {
		return nil, "", err
	}
	if row.UserID == userID {
		return row, vocab.PortalAccessOwner, nil
	}
	member, err := c.DeveloperTeamMember.Query().Where(developerteammember.OwnerID(row.UserID),
		developerteammember.MemberID(userID)).Exist(ctx)
	if err != nil {
		return nil, "", err
	}
	if !member {
		return nil, "", notFound
	}
	return row, vocab.PortalAccessMember, nil
}

// owners are the developer accounts whose agents userID manages: itself
// first, then the teams it belongs to.
func owners(ctx context.Context, c *ent.Client, userID string) ([]string, error) {
	ids, err := c.DeveloperTeamMember.Query().Where(developerteammember.MemberID(userID)).
		Select(developerteammember.FieldOwnerID).Strings(ctx)
	if err != nil {
		return nil, err
	}
	return append([]string{userID}, ids...), nil
}

// cents32 is a sum of cents as the contract's int32 (JSON integers, RULINGS
// reconciliation 18); a sum past its range answers the largest it holds.
func cents32(c money.Cents) int32 {
	switch {
	case c > math.MaxInt32:
		return math.MaxInt32
	case c < math.MinInt32:
		return math.MinInt32
	}
	return int32(c)
}
