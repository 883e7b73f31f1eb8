// Package relays serves the operator's relays over the operator network
// (NetworkRelayService: send, list, get, release or discard a quarantined
// one; NetworkRouteService: the briefing, the graph, routing) and keeps each
// relay's state: the queue's and the board's events become acks and card
// statuses to the peer, through the outbox, in the move's own transaction.
package relays

import (
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/network"
)

var (
	_ switchboardv1connect.NetworkRelayServiceHandler = (*Service)(nil)
	_ switchboardv1connect.NetworkRouteServiceHandler = (*Service)(nil)
)

// Service serves the operator's NetworkRelayService and NetworkRouteService,
// keeps relay state (the queue's and the board's subscriptions, the outbox
// rows' credential) and records the MCP door's broadcasts and routes.
type Service struct {
	core    *network.Core
	digests digestLoop
}

// New makes the operator's relay services over c.
func New(c *network.Core) *Service { return &Service{core: c} }
