package gate

import (
	"errors"
	"net/http"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/contract"
)

// Realm is the realm of the Bearer challenges (RFC 6750): the API keys of
// this server.
const Realm = "switchboard"

// ErrMissingScope is the cause of the refusal of a key that lacks the scope
// a procedure needs, so a door can name the scope in its challenge without
// reading the message.
var ErrMissingScope = errors.New("gate: the API key lacks the scope")

// ErrUnusableKey is the cause of the refusal of a bearer key that admits no
// one (unknown, deactivated or expired): RFC 6750's invalid_token.
var ErrUnusableKey = errors.New("gate: the bearer key admits no one")

// BearerEndpoint is Endpoint for a door whose clients read RFC 6750
// challenges to choose how to authenticate (MCP clients choose between a
// key and OAuth). Every 401 the route answers, the gate's or the
// handler's, carries `WWW-Authenticate: Bearer realm="switchboard"`; a key
// that lacks p's scope gets its 403 with error="insufficient_scope" and the
// scope. The challenge never names resource metadata: there is no OAuth
// flow to send a client into. Bodies are Endpoint's.
func (g *Gate) BearerEndpoint(p *contract.Procedure, next http.Handler) http.Handler {
	return g.endpoint(p, true, next)
}

// setChallenge sets the challenge of a refusal of p, if it has one.
func setChallenge(h http.Header, p *contract.Procedure, err error) {
	if c := challenge(p, err); c != "" {
		h.Set("WWW-Authenticate", c)
	}
}

// challenge is the WWW-Authenticate value of a refusal of p, or "" for a
// refusal that no credential would change (a rate limit, a bad body).
func challenge(p *contract.Procedure, err error) string {
	realm := `Bearer realm="` + Realm + `"`
	switch {
	case errors.Is(err, ErrUnusableKey):
		return realm + `, error="invalid_token"`
	case errors.Is(err, ErrMissingScope) && len(p.Scopes) == 1:
		return realm + `, error="insufficient_scope", scope="` + p.Scopes[0] + `"`
	case errors.Is(err, ErrMissingScope):
		return realm + `, error="insufficient_scope"`
	case apperr.From(err).Kind == apperr.KindUnauthenticated:
		return realm
	}
	return ""
}

// challenging gives a 401 that the handler behind the gate writes (its own
// refusal, or the SDK's) the realm's challenge, unless it wrote one.
type challenging struct {
	http.ResponseWriter
	wrote bool
}

func (c *challenging) WriteHeader(code int) {
	if !c.wrote && code >= http.StatusOK {
		c.wrote = true
		if h := c.Header(); code == http.StatusUnauthorized && h.Get("WWW-Authenticate") == "" {
			h.Set("WWW-Authenticate", `Bearer realm="`+Realm+`"`)
		}
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *challenging) Write(b []byte) (int, error) {
	c.wrote = true
	return c.ResponseWriter.Write(b)
}

// Flush keeps a stream behind the gate flowing.
func (c *challenging) Flush() { _ = http.NewResponseController(c.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the connection.
func (c *challenging) Unwrap() http.ResponseWriter { return c.ResponseWriter }
