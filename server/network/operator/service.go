// Package operator serves the operator network to the operator (signed in,
// or by key where the contract allows): NetworkService (the admin's switch,
// connections, preferences) and NetworkExchangeService (notifications,
// patterns, jobs, capabilities). What peers call is package peers; relays
// are package relays; all three hold one network.Core.
package operator

import (
	"context"
	"time"

	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/peerwire"
)

// pendingFor is how long an issued token answers the peer's verification.
const pendingFor = 2 * time.Minute

var (
	_ switchboardv1connect.NetworkServiceHandler         = (*Service)(nil)
	_ switchboardv1connect.NetworkExchangeServiceHandler = (*Service)(nil)
)

// Service serves the operator's NetworkService (settings, connections,
// preferences) and NetworkExchangeService (notifications, patterns, jobs,
// capabilities).
type Service struct{ core *network.Core }

// New makes the operator's services over c.
func New(c *network.Core) *Service { return &Service{core: c} }

// withToken is ctx for one call to a peer presenting token.
func withToken(ctx context.Context, token string) context.Context {
	if token == "" {
		return ctx
	}
	return peerwire.WithHeader(ctx, auth.FederationTokenHeader, token)
}
