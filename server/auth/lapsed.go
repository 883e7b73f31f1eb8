package auth

import (
	"context"
	"fmt"
	"slices"

	"github.com/switchboard-hq/switchboard/ent/apikey"
	"github.com/switchboard-hq/switchboard/ent/session"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// CredentialEnded is published once a credential stops admitting its holder
// (a key deactivated, a session logged out): the key resolver forgets what it
// cached, and the event streams and MCP sessions it opened end.
type CredentialEnded struct{ Credential Credential }

// Credential names what admitted a request: one API key or one session. An
// open stream lives only as long as its credential (docs/decisions.md,
// issue 11).
type Credential struct {
	KeyID     string
	SessionID string
}

// Credential answers what admitted p.
func (p *Principal) Credential() Credential {
	if p.Via == ViaKey {
		return Credential{KeyID: p.KeyID}
	}
	return Credential{SessionID: p.SessionID}
}

// Ended is the refusal a request with the credential would now get: 403 for a
// deactivated or expired key, 401 for a session that ended.
func (c Credential) Ended() *apperr.Error {
	if c.KeyID != "" {
		return apperr.Forbidden("the API key of this stream is no longer active")
	}
	return apperr.Unauthenticated("the session of this stream has ended")
}

// lapsedBatch bounds the ids of one look-up.
const lapsedBatch = 500

// Lapsed answers which of creds no longer admit their holder: keys
// deactivated, deleted or expired, sessions logged out or expired. It asks
// the database, not the key cache, so a change made on another replica counts.
func (rv *Resolver) Lapsed(ctx context.Context, creds []Credential) ([]Credential, error) {
	now := rv.Now()
	var keys, sessions []string
	for _, c := range creds {
		switch {
		case c.KeyID != "":
			keys = append(keys, c.KeyID)
		case c.SessionID != "":
			sessions = append(sessions, c.SessionID)
		}
	}
	live := make(map[string]bool, len(creds))
	for ids := range slices.Chunk(keys, lapsedBatch) {
		got, err := rv.DB.APIKey.Query().Where(apikey.IDIn(ids...), apikey.Active(true),
			apikey.Or(apikey.ExpiresAtIsNil(), apikey.ExpiresAtGT(now))).IDs(ctx)
		if err != nil {
			return nil, fmt.Errorf("auth: live keys: %w", err)
		}
		mark(live, got)
	}
	for ids := range slices.Chunk(sessions, lapsedBatch) {
		got, err := rv.DB.Session.Query().Where(session.IDIn(ids...), session.ExpiresAtGT(now)).IDs(ctx)
		if err != nil {
			return nil, fmt.Errorf("auth: live sessions: %w", err)
		}
		mark(live, got)
	}
	var out []Credential
	for _, c := range creds {
		if id := c.KeyID + c.SessionID; id != "" && !live[id] {
			out = append(out, c)
		}
	}
	return out, nil
}

func mark(set map[string]bool, ids []string) {
	for _, id := range ids {
		set[id] = true
	}
}
