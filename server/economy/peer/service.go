// Package peer is what a connection's peer instance may call of the task
// economy (EconomyPeerService): the moves its user makes on a contract
// with a user of this instance, with the peer token this instance issued
// for the connection. Apart from the operator's service (trust boundary);
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
type Service struct{ core *economy.Core }

// New makes the service over the economy's core.
func New(c *economy.Core) *Service { return &Service{core: c} }

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
