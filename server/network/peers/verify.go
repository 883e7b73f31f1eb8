package peers

import (
	"context"
	"net/http"
	"net/url"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/network"
)

// verify checks that origin holds token: its
// /.well-known/switchboard-instance?connectionId=… must sign a fresh nonce
// with the token (the check a hub makes of a spoke, federation.Verify). A
// failure is 400 naming what went wrong. What the answer lists is how this
// side calls the peer back.
func (s *Service) verify(ctx context.Context, origin, token, connectionID string) error {
	protocols, err := federation.Verify(ctx, s.core.HTTPClient, origin, url.Values{"connectionId": {connectionID}}, token,
		"fromInstanceUrl", "offered federationToken")
	if err == nil {
		s.core.Directory.Learn(origin, protocols)
	}
	return err
}

// WellKnown answers the operator network's verification on
// federation.WellKnownPath: with ?connectionId= it signs the nonce with the
// token this instance issued for that connection while its request is out
// (404 otherwise); without, next (the spoke's answer) serves.
func (s *Service) WellKnown(next func(http.ResponseWriter, *http.Request) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := r.URL.Query().Get("connectionId")
		if id == "" {
			return next(w, r)
		}
		// The switch holds here too: a request sent before the network was
		// turned off is not verified after (docs/decisions.md).
		return federation.AnswerVerification(w, r, func(ctx context.Context) (string, error) {
			if _, err := s.core.SwitchOn(ctx); err != nil {
				return "", err
			}
			return s.pendingToken(ctx, id)
		})
	}
}

// pendingToken is the token issued for connection id while its request is
// out and not expired.
func (s *Service) pendingToken(ctx context.Context, id string) (string, error) {
	row, err := s.core.DB.NetworkConnection.Query().Where(networkconnection.ID(id),
		networkconnection.DirectionEQ(networkconnection.DirectionOutbound),
		networkconnection.PendingTokenSealedNotNil(), networkconnection.PendingUntilGT(s.core.NowUTC())).Only(ctx)
	if ent.IsNotFound(err) || s.core.Secrets == nil {
		return "", apperr.NotFound("no connection request %q is out from this instance", id)
	}
	if err != nil {
		return "", err
	}
	token, err := s.core.Secrets.OpenText(*row.PendingTokenSealed, network.PendingAAD(row.ID))
	if err != nil {
		return "", apperr.Internal(err)
	}
	return token, nil
}
