package federation

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/peerwire"
)

// WellKnownPath is the instance's document, where it also proves it holds a
// secret it offered.
const WellKnownPath = peerwire.WellKnownPath

// maxNonce caps the nonce an instance signs.
const maxNonce = 200

// verification is the answer of WellKnownPath?nonce=…: the nonce signed, and
// the protocols, so the verifier learns how to call back without asking
// again.
type verification struct {
	Nonce     string   `json:"nonce"`
	Signature string   `json:"signature"`
	Protocols []string `json:"protocols"`
}

// AnswerVerification writes the answer of WellKnownPath?nonce=…: the
// request's nonce and its HMAC keyed by the secret being proven, which
// secret finds (its error is the answer when it has none), with the
// protocols this instance serves.
func AnswerVerification(w http.ResponseWriter, r *http.Request, secret func(context.Context) (string, error)) error {
	nonce := r.URL.Query().Get("nonce")
	if nonce == "" || len(nonce) > maxNonce {
		return apperr.Invalid("nonce must be 1 to %d characters", maxNonce)
	}
	key, err := secret(r.Context())
	if err != nil {
		return err
	}
	return AnswerJSON(w, verification{Nonce: nonce, Signature: Sign(key, nonce), Protocols: peerwire.Spoken})
}

func AnswerJSON(w http.ResponseWriter, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
	return nil
}

// maxVerifyAnswer caps the verification answer Verify reads.
const maxVerifyAnswer = 64 << 10

// Verify checks that the instance at base holds secret: GET
// base+WellKnownPath?nonce=… (and the query's other values) must echo a fresh
// nonce and sign it with secret. A failure is 400 "field did not verify: …",
// naming secretName when the signature is wrong. It answers the protocols
// the answer lists (none from an instance that predates them).
func Verify(ctx context.Context, client *http.Client, base string, query url.Values, secret, field, secretName string) ([]string, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	nonce := hex.EncodeToString(b[:])
	refuse := func(format string, args ...any) error {
		return apperr.Invalid("%s did not verify: %s", field, fmt.Sprintf(format, args...))
	}
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("nonce", nonce)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+WellKnownPath+"?"+q.Encode(), nil)
	if err != nil {
		return nil, refuse("%s", err)
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, refuse("%s", egress.Reason(err))
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK {
		return nil, refuse("%s answered %d", WellKnownPath, res.StatusCode)
	}
	var answer verification
	if err := json.NewDecoder(io.LimitReader(res.Body, maxVerifyAnswer)).Decode(&answer); err != nil {
		return nil, refuse("%s did not answer JSON", WellKnownPath)
	}
	if answer.Nonce != nonce {
		return nil, refuse("the answer does not echo the nonce")
	}
	if !SameHash(answer.Signature, Sign(secret, nonce)) {
		return nil, refuse("the signature does not match the %s", secretName)
	}
	return answer.Protocols, nil
}

// InboundPaths are the inbound federation routes the guard and the audit log
// stand before (RULINGS "Federation: instances and the platform", Guard): the
// platform endpoints on both transports, verification and the operator
// network's peer routes. An entry ending in "/" is a prefix; "METHOD /path"
// holds for that method only (audit.Inbound).
var InboundPaths = []string{
	"/api/v2/federation/",
	"/" + switchboardv1connect.FederationHubServiceName + "/",
	// The platform service's other routes, on both transports.
	"/" + switchboardv1connect.FederationPlatformServiceName + "/",
	"/api/v2/network/discover",
	"/api/v2/prompt-groups",
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
	// What connections exchange besides relays: notifications, mentions and
	// jobs (each path's one method there: GET /api/federation/mentions, POST
	// /api/federation/notifications, GET and POST /api/federation/jobs), and
	// the patterns a peer reads on the operator's own path, audited only when
	// the call presents a federation token (audit.Inbound, "PEER ").
	"/api/federation/notifications",
	"/api/federation/mentions",
	"/api/federation/jobs",
	"/" + switchboardv1connect.NetworkExchangePeerServiceName + "/",
	"PEER /api/federation/patterns",
	"PEER " + switchboardv1connect.NetworkExchangeServiceGetPatternsProcedure,
	// Relays and their acks (one handler at both relay paths).
	"POST /api/v2/relay",
	"POST /api/federation/relay",
	"/api/federation/relay-ack",
	"/" + switchboardv1connect.NetworkRelayPeerServiceName + "/",
	// Reputation, entity search, the trust-gated tool call and card links.
	"/api/federation/reputation",
	"/api/federation/entity-search",
	"/api/federation/mcp",
	"/api/federation/card-status",
	"/" + switchboardv1connect.NetworkSharePeerServiceName + "/",
	// The task economy's peer routes (issue 29): a contract's moves and a
	// job's applications and their outcomes.
	"/api/federation/economy/",
	"/" + switchboardv1connect.EconomyPeerServiceName + "/",
	// The profile pages a peer reads with its token (issue 28), audited
	// only then: anyone else's read is no federation call. A team's profile
	// is /api/teams/{id}/profile; no other team route takes a peer's token.
	"PEER /api/profiles/",
	"PEER /api/teams/",
	"PEER /" + switchboardv1connect.ProfileServiceName + "/",
}
