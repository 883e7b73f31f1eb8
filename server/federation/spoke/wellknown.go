package spoke

import (
	"context"
	"net/http"
	"net/url"

	"github.com/switchboard-hq/switchboard/ent/federationmembership"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/peerwire"
)

// WellKnown answers GET WellKnownPath: without a nonce, the instance's
// document ({name, version, protocols}; RULINGS "Details for the house
// issue"); with ?nonce=…, the nonce and its HMAC keyed by the secret this
// instance is registering (404 when it is registering none).
func (s *Inbound) WellKnown() func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !r.URL.Query().Has("nonce") {
			return federation.AnswerJSON(w, s.document())
		}
		return federation.AnswerVerification(w, r, s.pendingSecret)
	}
}

// document is this instance's well-known document: its host as its name,
// the binary's version and the protocols it serves.
func (s *Inbound) document() peerwire.Document {
	name := ""
	if u, err := url.Parse(s.spoke.PublicURL); err == nil {
		name = u.Host
	}
	return peerwire.Document{Name: name, Version: s.spoke.Version, Protocols: peerwire.Spoken}
}

// pendingSecret is the secret being registered, if one is and has not
// expired.
func (s *Inbound) pendingSecret(ctx context.Context) (string, error) {
	m, err := s.spoke.DB.FederationMembership.Query().
		Where(federationmembership.PendingAPIKeySealedNotNil(), federationmembership.PendingUntilGT(s.spoke.now())).
		First(ctx)
	if err != nil || s.spoke.Secrets == nil {
		return "", apperr.NotFound("this instance is not registering with a hub")
	}
	secret, err := s.spoke.Secrets.OpenText(*m.PendingAPIKeySealed, pendingAAD(m.ID))
	if err != nil {
		return "", apperr.Internal(err)
	}
	return secret, nil
}
