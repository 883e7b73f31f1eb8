package auth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/apikey"
	"github.com/switchboard-hq/switchboard/ent/session"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// SessionCookie is the dashboard's session cookie.
const SessionCookie = "sb_session"

// lastUsedGranularity bounds how often a key's lastUsedAt is written, so a busy
// agent does not turn every read into a write.
const lastUsedGranularity = time.Minute

// keyCacheTTL is how long a resolved key is reused without asking the
// database. Within this process a key change clears the cache at once
// (Forget); another replica sees a deactivation within this bound.
const keyCacheTTL = time.Second

// Resolver turns presented credentials into Principals.
type Resolver struct {
	DB  *ent.Client
	Now func() time.Time

	// keys caches key look-ups by token hash: a busy agent would otherwise pay
	// two queries per request (measured in bench/RESULTS.md).
	mu   sync.Mutex
	keys map[string]cachedKey
	gen  uint64 // bumped by Forget, so a look-up that raced it is not cached
}

type cachedKey struct {
	key     *ent.APIKey // with its user edge loaded
	fetched time.Time   // wall clock, for keyCacheTTL
}

// Forget drops every cached key: called after any key changes, so that a
// deactivation takes effect on this process's next request.
func (rv *Resolver) Forget() {
	rv.mu.Lock()
	rv.keys = nil
	rv.gen++
	rv.mu.Unlock()
}

// lookupKey answers the key with its user, from the cache when fresh.
func (rv *Resolver) lookupKey(ctx context.Context, hash string) (*ent.APIKey, error) {
	rv.mu.Lock()
	c, ok := rv.keys[hash]
	gen := rv.gen
	rv.mu.Unlock()
	if ok && time.Since(c.fetched) < keyCacheTTL { //nolint:forbidigo // cache age, a bound on cross-replica staleness, not business time
		return c.key, nil
	}
	fetched := time.Now() //nolint:forbidigo // cache age, a bound on cross-replica staleness, not business time
	k, err := rv.DB.APIKey.Query().Where(apikey.KeyHash(hash)).WithUser().Only(ctx)
	if err != nil {
		return nil, err
	}
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if gen != rv.gen {
		return k, nil
	}
	if rv.keys == nil || len(rv.keys) >= maxCachedKeys {
		rv.keys = make(map[string]cachedKey)
	}
	rv.keys[hash] = cachedKey{key: k, fetched: fetched}
	return k, nil
}

// maxCachedKeys bounds the cache; it is simply emptied when full.
const maxCachedKeys = 4096

// noteUse records that the cached copy of k was used at now, so the
// lastUsedAt write happens once per granularity, not once per request.
func (rv *Resolver) noteUse(hash string, k *ent.APIKey, now time.Time) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if c, ok := rv.keys[hash]; ok && c.key == k {
		copied := *k
		copied.LastUsedAt = &now
		rv.keys[hash] = cachedKey{key: &copied, fetched: c.fetched}
	}
}

// Resolve reads the Authorization header and the session cookie. It never
// refuses: the gate decides what the procedure needs.
func (rv *Resolver) Resolve(ctx context.Context, r *http.Request) (*Credentials, error) {
	c := &Credentials{}
	if h := r.Header.Get("Authorization"); h != "" {
		c.KeyPresented = true
		token, ok := strings.CutPrefix(h, "Bearer ")
		if !ok || strings.TrimSpace(token) == "" {
			c.KeyErr = apperr.Unauthenticated("malformed Authorization header; expected \"Bearer <API key>\"")
		} else {
			c.Bearer = strings.TrimSpace(token)
			if err := rv.resolveKey(ctx, c.Bearer, c); err != nil {
				return nil, err
			}
		}
	}
	c.FederationToken = strings.TrimSpace(r.Header.Get(FederationTokenHeader))
	c.CronSecret = strings.TrimSpace(r.Header.Get(CronSecretHeader))
	if ck, err := r.Cookie(SessionCookie); err == nil && ck.Value != "" {
		p, err := rv.resolveSession(ctx, ck.Value)
		if err != nil {
			return nil, err
		}
		c.Session = p
	}
	return c, nil
}

func (rv *Resolver) resolveKey(ctx context.Context, token string, c *Credentials) error {
	hash := HashToken(token)
	k, err := rv.lookupKey(ctx, hash)
	switch {
	case ent.IsNotFound(err):
		c.KeyErr = apperr.Unauthenticated("invalid API key")
		return nil
	case err != nil:
		return apperr.Internal(err)
	}
	now := rv.Now()
	switch {
	case !k.Active:
		c.KeyErr = apperr.Forbidden("API key has been deactivated")
		return nil
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		c.KeyErr = apperr.Forbidden("API key expired")
		return nil
	}
	u := k.Edges.User
	c.Key = &Principal{
		UserID: u.ID, Username: u.Username, Name: u.Name, Role: string(u.Role),
		Via: ViaKey, KeyID: k.ID, KeyLabel: k.Label, Scopes: k.Scopes,
	}
	if k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= lastUsedGranularity {
		// Best effort: a failed bookkeeping write must not fail the request.
		if err := rv.DB.APIKey.UpdateOneID(k.ID).SetLastUsedAt(now).Exec(ctx); err != nil && !errors.Is(err, context.Canceled) {
			slog.WarnContext(ctx, "record key use", "key_id", k.ID, "err", err)
		}
		rv.noteUse(hash, k, now)
	}
	return nil
}

func (rv *Resolver) resolveSession(ctx context.Context, token string) (*Principal, error) {
	s, err := rv.DB.Session.Query().Where(session.TokenHash(HashToken(token))).WithUser().Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	if !rv.Now().Before(s.ExpiresAt) {
		return nil, nil
	}
	u := s.Edges.User
	return &Principal{
		UserID: u.ID, Username: u.Username, Name: u.Name, Role: string(u.Role),
		Via: ViaSession, SessionID: s.ID,
	}, nil
}
