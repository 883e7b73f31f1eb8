package network

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/httpapi"
)

// maxNonce caps the nonce this instance signs; maxAnswer the answer it reads.
const (
	maxNonce  = 200
	maxAnswer = 64 << 10
)

// verification is the answer of federation.WellKnownPath.
type verification struct {
	Nonce     string `json:"nonce"`
	Signature string `json:"signature"`
}

// verify checks that origin holds token: GET
// {origin}/.well-known/switchboard-instance?nonce=…&connectionId=… must echo
// the nonce and sign it with the token (RULINGS "Federation": the same check
// a hub makes of a spoke). A failure is 400 naming what went wrong.
func (s *Service) verify(ctx context.Context, origin, token, connectionID string) error {
	var b [16]byte
	_, _ = rand.Read(b[:])
	nonce := hex.EncodeToString(b[:])
	refuse := func(format string, args ...any) error {
		return apperr.Invalid("fromInstanceUrl did not verify: %s", fmt.Sprintf(format, args...))
	}
	q := url.Values{"nonce": {nonce}, "connectionId": {connectionID}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+federation.WellKnownPath+"?"+q.Encode(), nil)
	if err != nil {
		return refuse("%s", err)
	}
	res, err := s.client.Do(req)
	if err != nil {
		return refuse("%s", egress.Reason(err))
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK {
		return refuse("%s answered %d", federation.WellKnownPath, res.StatusCode)
	}
	var answer verification
	if err := json.NewDecoder(io.LimitReader(res.Body, maxAnswer)).Decode(&answer); err != nil {
		return refuse("%s did not answer JSON", federation.WellKnownPath)
	}
	if answer.Nonce != nonce {
		return refuse("the answer does not echo the nonce")
	}
	if !hmac.Equal([]byte(answer.Signature), []byte(federation.Sign(token, nonce))) {
		return refuse("the signature does not match the offered federationToken")
	}
	return nil
}

// WellKnown answers the operator network's verification on
// federation.WellKnownPath: with ?connectionId= it signs the nonce with the
// token this instance issued for that connection while its request is out
// (404 otherwise); without, next (the spoke's answer) serves.
func (s *Service) WellKnown(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		id := q.Get("connectionId")
		if id == "" {
			next.ServeHTTP(w, r)
			return
		}
		nonce := q.Get("nonce")
		if nonce == "" || len(nonce) > maxNonce {
			httpapi.WriteREST(w, r, apperr.Invalid("nonce must be 1 to %d characters", maxNonce))
			return
		}
		token, err := s.pendingToken(r.Context(), id)
		if err != nil {
			httpapi.WriteREST(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(verification{Nonce: nonce, Signature: federation.Sign(token, nonce)})
	})
}

// pendingToken is the token issued for connection id while its request is
// out and not expired.
func (s *Service) pendingToken(ctx context.Context, id string) (string, error) {
	row, err := s.DB.NetworkConnection.Query().Where(networkconnection.ID(id),
		networkconnection.DirectionEQ(networkconnection.DirectionOutbound),
		networkconnection.PendingTokenSealedNotNil(), networkconnection.PendingUntilGT(s.now())).Only(ctx)
	if ent.IsNotFound(err) || s.Secrets == nil {
		return "", apperr.NotFound("no connection request %q is out from this instance", id)
	}
	if err != nil {
		return "", apperr.Internal(err)
	}
	token, err := federation.OpenSecret(s.Secrets, *row.PendingTokenSealed, pendingAAD(row.ID))
	if err != nil {
		return "", apperr.Internal(err)
	}
	return token, nil
}
