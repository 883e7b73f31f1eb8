package network

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/removedpeertoken"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
)

// The peers' side: NetworkPeerService. Every procedure answers 403 while
// the operator network is off, before reading anything else.

// FromPeer finds the connection whose issued token the call presents in
// X-Federation-Token. A missing token, another kind (a platform token, an
// API key) or an unknown one is 401; a connection whose origin has left a
// non-empty allowlist is 403. body is the request's own refusal (a missing
// field), answered after the switch and before the credential, as
// federation's routes do.
func (s *Core) FromPeer(ctx context.Context, route string, body error) (*ent.NetworkConnection, error) {
	w, err := s.SwitchOn(ctx)
	if err != nil {
		return nil, err
	}
	if body != nil {
		return nil, body
	}
	hash, err := federation.HeaderToken(auth.CredentialsFrom(ctx).FederationToken, auth.PeerTokenPrefix, route)
	if err != nil {
		return nil, err
	}
	row, err := s.DB.NetworkConnection.Query().Where(networkconnection.TokenHash(hash)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, unknownToken(ctx, s.DB.Client, route, hash)
	}
	if err != nil {
		return nil, err
	}
	if err := Admit(w, row.PeerInstanceURL); err != nil {
		return nil, err
	}
	return row, nil
}

// RemoveConnection deletes a connection and remembers its token's hash for
// good, so that the peer still presenting it hears 404 ever after (RULINGS
// "A removed connection").
func RemoveConnection(ctx context.Context, tx *db.Tx, row *ent.NetworkConnection) error {
	if row.TokenHash != nil {
		if err := tx.RemovedPeerToken.Create().SetTokenHash(*row.TokenHash).Exec(ctx); err != nil {
			return err
		}
	}
	return tx.NetworkConnection.DeleteOneID(row.ID).Exec(ctx)
}

// unknownToken is the refusal of a token no connection holds: 404 when it
// was a removed connection's, else 401.
func unknownToken(ctx context.Context, client *ent.Client, route, hash string) error {
	removed, err := client.RemovedPeerToken.Query().Where(removedpeertoken.TokenHash(hash)).Exist(ctx)
	if err != nil {
		return err
	}
	if removed {
		return apperr.NotFound("%s: the connection of this federation token was removed", route)
	}
	return apperr.Unauthenticated("%s: invalid federation token", route)
}
