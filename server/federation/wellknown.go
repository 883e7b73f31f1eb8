package federation

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/switchboard-hq/switchboard/ent/federationmembership"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/httpapi"
)

// WellKnownPath is where an instance proves it holds a secret it offered.
const WellKnownPath = "/.well-known/switchboard-instance"

// maxNonce caps the nonce an instance signs.
const maxNonce = 200

// verification is the answer of WellKnownPath.
type verification struct {
	Nonce     string `json:"nonce"`
	Signature string `json:"signature"`
}

// WellKnown answers GET WellKnownPath?nonce=…: the nonce and its HMAC keyed
// by the secret this instance is registering (404 when it is registering
// none).
func (s *Spoke) WellKnown() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nonce := r.URL.Query().Get("nonce")
		if nonce == "" || len(nonce) > maxNonce {
			httpapi.WriteREST(w, r, apperr.Invalid("nonce must be 1 to %d characters", maxNonce))
			return
		}
		secret, err := s.pendingSecret(r.Context())
		if err != nil {
			httpapi.WriteREST(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(verification{Nonce: nonce, Signature: Sign(secret, nonce)})
	})
}

// pendingSecret is the secret being registered, if one is and has not
// expired.
func (s *Spoke) pendingSecret(ctx context.Context) (string, error) {
	m, err := s.DB.FederationMembership.Query().
		Where(federationmembership.PendingAPIKeySealedNotNil(), federationmembership.PendingUntilGT(s.now())).
		First(ctx)
	if err != nil || s.Secrets == nil {
		return "", apperr.NotFound("this instance is not registering with a hub")
	}
	secret, err := unseal(s.Secrets, *m.PendingAPIKeySealed, pendingAAD(m.ID))
	if err != nil {
		return "", apperr.Internal(err)
	}
	return secret, nil
}

// InboundPaths are the inbound federation routes the guard and the audit log
// stand before (RULINGS "Federation: instances and the platform", Guard): the
// platform endpoints on both transports, verification and the operator
// network's peer routes. An entry ending in "/" is a prefix; "METHOD /path"
// holds for that method only (audit.Inbound).
var InboundPaths = []string{
	"/api/v2/federation/",
	"/" + switchboardv1connect.FederationHubServiceName + "/",
	// The platform service's procedures whose REST routes are under
	// /api/v2/federation/ (discover and prompt-groups are not).
	switchboardv1connect.FederationPlatformServiceValidatePaymentProcedure,
	switchboardv1connect.FederationPlatformServiceBrowseFederationProcedure,
	"/" + switchboardv1connect.FederationSpokeServiceName + "/",
	"/" + switchboardv1connect.FederationResultServiceName + "/",
	"/" + switchboardv1connect.FederationMarketServiceName + "/",
	"/" + switchboardv1connect.FederationDeliveryServiceName + "/",
	WellKnownPath,
	WebhookPath,
	// The operator network's peer routes (server/network): the handshake
	// (POST only: GET /api/v2/connections is the operator's key route), the
	// acceptance, removal and rotation, and their Connect paths.
	"POST /api/v2/connections",
	"/api/federation/connect/accept",
	"/api/federation/connections/remove",
	"/api/federation/connections/rotate",
	"/" + switchboardv1connect.NetworkPeerServiceName + "/",
	// Relays and their acks (one handler at both relay paths).
	"POST /api/v2/relay",
	"POST /api/federation/relay",
	"/api/federation/relay-ack",
	"/" + switchboardv1connect.NetworkRelayPeerServiceName + "/",
}
