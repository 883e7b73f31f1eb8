package dashboard

import (
	"context"
	"encoding/json"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/ent/contractreview"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/projectinvite"
	"github.com/switchboard-hq/switchboard/ent/relay"
	"github.com/switchboard-hq/switchboard/ent/teaminvite"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network/rules"
)

var (
	_ switchboardv1connect.DashboardServiceHandler = (*Service)(nil)
	_ switchboardv1.DashboardServiceServer         = (*Service)(nil)
)

// Service implements DashboardService.
type Service struct {
	DB  *db.DB
	Now func() time.Time
}

// GetWaiting counts what waits for the caller's answer, each a query of the
// caller's own rows.
func (s *Service) GetWaiting(ctx context.Context, _ *switchboardv1.GetWaitingRequest) (*switchboardv1.GetWaitingResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	c, me, now := s.DB.Client, p.UserID, s.Now().UTC()
	out := &switchboardv1.GetWaitingResponse{}
	counts := []struct {
		n     *int32
		count func() (int, error)
	}{
		{&out.ConnectionRequests, func() (int, error) {
			return c.NetworkConnection.Query().Where(networkconnection.UserID(me),
				networkconnection.DirectionEQ(networkconnection.DirectionInbound),
				networkconnection.StatusEQ(networkconnection.StatusPending)).Count(ctx)
		}},
		{&out.Relays, func() (int, error) {
			return c.Relay.Query().Where(relay.UserID(me), relay.DirectionEQ(relay.DirectionInbound), relay.Quarantined(true)).Count(ctx)
		}},
		{&out.Invites, func() (int, error) { return invites(ctx, c, me, now) }},
		{&out.StoreReviews, func() (int, error) {
			return c.Execution.Query().Where(execution.UserID(me),
				execution.ReviewStatusEQ(execution.ReviewStatusPendingReview)).Count(ctx)
		}},
		{&out.ContractReviews, func() (int, error) { return contractReviews(ctx, c, me, now) }},
	}
	for _, k := range counts {
		n, err := k.count()
		if err != nil {
			return nil, err
		}
		*k.n = int32(n) //nolint:gosec // counts of one account's rows
		out.Total += *k.n
	}
	return out, nil
}

// invites counts the team and project invites addressed to the account and
// still open, and the invites that came over the network as relays whose
// item waits for the answer.
func invites(ctx context.Context, c *ent.Client, me string, now time.Time) (int, error) {
	projects, err := c.ProjectInvite.Query().Where(projectinvite.TargetUserID(me),
		projectinvite.StatusEQ(projectinvite.StatusPending)).Count(ctx)
	if err != nil {
		return 0, err
	}
	teams, err := c.TeamInvite.Query().Where(teaminvite.TargetUserID(me),
		teaminvite.StatusEQ(teaminvite.StatusPending), teaminvite.ExpiresAtGT(now)).Count(ctx)
	if err != nil {
		return 0, err
	}
	// An open relay with an item is bounded by maxOpenRelays per connection.
	open, err := c.Relay.Query().Where(relay.UserID(me), relay.DirectionEQ(relay.DirectionInbound),
		relay.Quarantined(false), relay.ItemIDNotNil(), relay.StateEQ(relay.StateDelivered)).
		Select(relay.FieldPayload).Strings(ctx)
	if err != nil {
		return 0, err
	}
	remote := 0
	for _, payload := range open {
		var p struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal([]byte(payload), &p) == nil && rules.IsInvite(p.Kind) {
			remote++
		}
	}
	return projects + teams + remote, nil
}

// contractReviews counts the closed engagements, on either side, whose
// review window is open and which the account has not reviewed.
func contractReviews(ctx context.Context, c *ent.Client, me string, now time.Time) (int, error) {
	total := 0
	for _, side := range []struct {
		mine func(string) *ent.ContractQuery
		by   contractreview.By
	}{
		{func(u string) *ent.ContractQuery { return c.Contract.Query().Where(contract.ClientUserID(u)) }, contractreview.ByClient},
		{func(u string) *ent.ContractQuery { return c.Contract.Query().Where(contract.ProviderUserID(u)) }, contractreview.ByProvider},
	} {
		n, err := side.mine(me).Where(contract.StatusEQ(contract.StatusClosed), contract.ReviewWindowEndsAtGT(now),
			contract.Not(contract.HasReviewsWith(contractreview.ByEQ(side.by)))).Count(ctx)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
