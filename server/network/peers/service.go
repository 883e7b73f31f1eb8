// Package peers serves what other instances call, the operator network's
// untrusted surface: every call carries an sbf_ token this side issued, or
// proves its origin in the handshake (verified before anything is recorded).
// NetworkPeerService, NetworkRelayPeerService, NetworkExchangePeerService,
// NetworkSharePeerService, the well-known answer to a handshake's
// verification and the gate's credential checks. Nothing here serves the
// operator: that is package operator (and relays).
package peers

import (
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/network"
)

var (
	_ switchboardv1connect.NetworkPeerServiceHandler         = (*Service)(nil)
	_ switchboardv1connect.NetworkRelayPeerServiceHandler    = (*Service)(nil)
	_ switchboardv1connect.NetworkExchangePeerServiceHandler = (*Service)(nil)
	_ switchboardv1connect.NetworkSharePeerServiceHandler    = (*Service)(nil)
)

// Service serves what peers call: NetworkPeerService (handshake, accept,
// remove, rotate), NetworkRelayPeerService (relays and acks),
// NetworkExchangePeerService and NetworkSharePeerService, the well-known
// answer to a handshake's verification, and the gate's credential checks.
type Service struct{ core *network.Core }

// New makes the peers' services over c.
func New(c *network.Core) *Service { return &Service{core: c} }
