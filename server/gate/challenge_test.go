package gate

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/contract"
)

// RULINGS "A2A" details (the MCP door's challenges): the refusal decide
// makes carries the cause its Bearer challenge is read from, and keeps the
// message the REST body shows.
func TestChallengeOfEachRefusal(t *testing.T) {
	t.Parallel()
	door := contract.KeyRule("/api/mcp", "mcp", "")
	r := httptest.NewRequest(http.MethodPost, "/api/mcp", nil)
	key := func(scopes ...string) *auth.Principal {
		return &auth.Principal{Via: auth.ViaKey, KeyID: "k", Scopes: scopes}
	}
	for _, c := range []struct {
		name      string
		creds     *auth.Credentials
		status    int
		message   string
		challenge string
	}{
		{"no key", &auth.Credentials{}, http.StatusUnauthorized,
			`missing API key: send "Authorization: Bearer <API key>"`, `Bearer realm="switchboard"`},
		{"another scheme", &auth.Credentials{KeyPresented: true, KeyErr: apperr.Unauthenticated("malformed Authorization header")},
			http.StatusUnauthorized, "malformed Authorization header", `Bearer realm="switchboard"`},
		{"unknown key", &auth.Credentials{KeyPresented: true, Bearer: "sb_x", KeyErr: apperr.Unauthenticated("invalid API key")},
			http.StatusUnauthorized, "invalid API key", `Bearer realm="switchboard", error="invalid_token"`},
		{"expired key", &auth.Credentials{KeyPresented: true, Bearer: "sb_x", KeyErr: apperr.Forbidden("API key expired")},
			http.StatusForbidden, "API key expired", `Bearer realm="switchboard", error="invalid_token"`},
		{"key without the scope", &auth.Credentials{KeyPresented: true, Bearer: "sb_x", Key: key("queue")},
			http.StatusForbidden, `API key lacks the "mcp" scope`, `Bearer realm="switchboard", error="insufficient_scope", scope="mcp"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := decide(r, door, c.creds)
			e := apperr.From(err)
			if e.HTTPStatus() != c.status || e.Message != c.message {
				t.Errorf("refusal %d %q, want %d %q", e.HTTPStatus(), e.Message, c.status, c.message)
			}
			if got := challenge(door, err); got != c.challenge {
				t.Errorf("challenge %q, want %q", got, c.challenge)
			}
		})
	}
	if p, err := decide(r, door, &auth.Credentials{KeyPresented: true, Bearer: "sb_x", Key: key("mcp")}); err != nil || p == nil {
		t.Fatalf("a key with the scope: %v", err)
	}
	// Refusals no credential would change carry none.
	for _, err := range []error{apperr.RateLimited(time.Second), apperr.Invalid("bad body"), apperr.Forbidden("cross-site request refused")} {
		if got := challenge(door, err); got != "" {
			t.Errorf("%v: challenge %q", err, got)
		}
	}
	// The unusable key's cause is set on a copy: the resolved credentials
	// keep theirs.
	unknown := apperr.Unauthenticated("invalid API key")
	if _, err := decide(r, door, &auth.Credentials{KeyPresented: true, Bearer: "sb_x", KeyErr: unknown}); !errors.Is(err, ErrUnusableKey) || unknown.Cause != nil {
		t.Errorf("unusable key: %v, the credentials' error now %v", err, unknown.Cause)
	}
}

// A 401 the handler behind a Bearer endpoint writes (the door's own
// refusal, or the SDK's) carries the realm's challenge; a challenge it set
// itself, and any other status, are left as they are.
func TestChallengingWriter(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"401", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "no bearer token", http.StatusUnauthorized)
		}, `Bearer realm="switchboard"`},
		{"401 with its own challenge", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard", error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
		}, `Bearer realm="switchboard", error="invalid_token"`},
		{"403", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "session user mismatch", http.StatusForbidden)
		}, ""},
		{"200", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{}")) }, ""},
		{"401 after the answer began", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusOK)
			w.WriteHeader(http.StatusUnauthorized) // superfluous: the status is sent
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			c.handler(&challenging{ResponseWriter: rec}, httptest.NewRequest(http.MethodPost, "/api/mcp", nil))
			if got := rec.Header().Get("WWW-Authenticate"); got != c.want {
				t.Errorf("WWW-Authenticate %q, want %q", got, c.want)
			}
		})
	}
}
