// Package peer is what a connection's peer instance may call of the task
// economy (EconomyPeerService): the moves its user makes on a contract
// with a user of this instance, its user's applications to this
// instance's jobs and the answers to its own, with the peer token this
// instance issued for the connection. Apart from the operator's service (trust boundary);
// both apply moves through server/economy's Core.
package peer

import (
	"context"
	"strings"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/economy"
)

var (
	_ switchboardv1connect.EconomyPeerServiceHandler = (*Service)(nil)
	_ switchboardv1.EconomyPeerServiceServer         = (*Service)(nil)
)

// Service implements EconomyPeerService.
type Service struct {
	core *economy.Core
	jobs *economy.Jobs
}

// New makes the service over the economy's core and its job market.
func New(c *economy.Core, j *economy.Jobs) *Service { return &Service{core: c, jobs: j} }

// ReceiveContractMove applies one move of the other instance's user.
func (x *Service) ReceiveContractMove(ctx context.Context, req *switchboardv1.ReceiveContractMoveRequest) (*switchboardv1.ReceiveContractMoveResponse, error) {
	var body error
	switch {
	case strings.TrimSpace(req.GetMoveId()) == "":
		body = apperr.Invalid("moveId is required")
	case strings.TrimSpace(req.GetContractId()) == "":
		body = apperr.Invalid("contractId is required")
	case req.GetMove() == "":
		body = apperr.Invalid("move is required")
	}
	conn, err := x.core.Net.FromPeer(ctx, "economy/moves", body)
	if err != nil {
		return nil, err
	}
	return x.core.Receive(ctx, conn, req)
}

// ReceiveJobApplication takes the peer's user's application to one of this
// instance's jobs shared with the connection.
func (x *Service) ReceiveJobApplication(ctx context.Context, req *switchboardv1.ReceiveJobApplicationRequest) (*switchboardv1.ReceiveJobApplicationResponse, error) {
	var body error
	switch {
	case strings.TrimSpace(req.GetApplicationId()) == "":
		body = apperr.Invalid("applicationId is required")
	case strings.TrimSpace(req.GetJobId()) == "":
		body = apperr.Invalid("jobId is required")
	case req.GetPriceCents() <= 0:
		body = apperr.Invalid("priceCents must be a positive whole number of cents")
	}
	conn, err := x.core.Net.FromActivePeer(ctx, "economy/applications", body)
	if err != nil {
		return nil, err
	}
	return x.jobs.Received(ctx, conn, req)
}

// ReceiveApplicationOutcome applies the job owner's answer to the
// application the connection's local user sent.
func (x *Service) ReceiveApplicationOutcome(ctx context.Context, req *switchboardv1.ReceiveApplicationOutcomeRequest) (*switchboardv1.ReceiveApplicationOutcomeResponse, error) {
	var body error
	switch {
	case strings.TrimSpace(req.GetApplicationId()) == "":
		body = apperr.Invalid("applicationId is required")
	case strings.TrimSpace(req.GetJobId()) == "":
		body = apperr.Invalid("jobId is required")
	case req.GetStatus() == "":
		body = apperr.Invalid("status is required")
	}
	conn, err := x.core.Net.FromActivePeer(ctx, "economy/application-outcomes", body)
	if err != nil {
		return nil, err
	}
	return x.jobs.Outcome(ctx, conn, req)
}
