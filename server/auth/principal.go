package auth

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/server/apperr"
)

// Via says which credential a Principal came from.
type Via uint8

// The credentials.
const (
	ViaKey Via = iota + 1
	ViaSession
)

// Principal is an authenticated caller acting for one account.
type Principal struct {
	UserID   string
	Username string
	Name     string
	Role     string
	Via      Via
	// Set when Via is ViaKey.
	KeyID    string
	KeyLabel string
	Scopes   []string
	// Set when Via is ViaSession.
	SessionID string

	// What the gate read of the request beside the credential, so that no
	// service reads a header: Agent is X-Agent-Name as sent (AgentName
	// checks it), REST is true when the request came over the REST mirror
	// (the transports differ where the documents say so, such as a chat
	// message's unparsable metadataJson). Both are zero outside a request.
	Agent string
	REST  bool
}

// AgentHeader names the caller on the shared chat, its stream and the queue
// items it asks for.
const AgentHeader = "X-Agent-Name"

// maxAgentName bounds X-Agent-Name.
const maxAgentName = 100

// AgentName is who the caller is on the chat: X-Agent-Name when sent, else
// the key's label, or the account's name for a dashboard session.
func (p *Principal) AgentName() (string, error) {
	name := strings.TrimSpace(p.Agent)
	if name == "" {
		return p.Actor(), nil
	}
	if !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) ||
		utf8.RuneCountInString(name) > maxAgentName {
		return "", apperr.Invalid("%s must be printable text of at most %d characters", AgentHeader, maxAgentName)
	}
	return name, nil
}

// Actor names the caller in activity entries: the key's label for an agent,
// the account's name for the operator.
func (p *Principal) Actor() string {
	if p.Via == ViaKey {
		return p.KeyLabel
	}
	return p.Name
}

// HasScope reports whether a key principal may act in scope; an empty scope
// list means every scope.
func (p *Principal) HasScope(scope string) bool {
	return len(p.Scopes) == 0 || slices.Contains(p.Scopes, scope)
}

// Credentials is what a request presented, resolved but not yet judged.
type Credentials struct {
	// KeyPresented is true when an Authorization header was sent.
	KeyPresented bool
	Key          *Principal
	// KeyErr says why a presented key cannot be used (401 unknown, 403 expired
	// or deactivated).
	KeyErr  *apperr.Error
	Session *Principal
	// Bearer is the presented bearer token as sent, for public procedures
	// that take other tokens than API keys (developer keys, connect tokens).
	Bearer string
	// FederationToken is the X-Federation-Token header as sent: the
	// credential of calls between instances (a hub's call to its spoke, and
	// the operator network's peers), which the federation services check.
	FederationToken string
	// CronSecret is the X-Cron-Secret header as sent, which the cron route
	// checks (server/board).
	CronSecret string
}

// CronSecretHeader carries the cron secret (--cron-secret).
const CronSecretHeader = "X-Cron-Secret"

// FederationTokenHeader carries the credential of calls between instances
// that are not a spoke's calls to its hub.
const FederationTokenHeader = "X-Federation-Token"

type credentialsKey struct{}
type principalKey struct{}

// WithCredentials stores what the request presented.
func WithCredentials(ctx context.Context, c *Credentials) context.Context {
	return context.WithValue(ctx, credentialsKey{}, c)
}

// CredentialsFrom returns what the request presented (never nil).
func CredentialsFrom(ctx context.Context) *Credentials {
	if c, ok := ctx.Value(credentialsKey{}).(*Credentials); ok {
		return c
	}
	return &Credentials{}
}

// WithPrincipal stores the caller the gate admitted.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the admitted caller, if any.
func PrincipalFrom(ctx context.Context) (*Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(*Principal)
	return p, ok
}

type refusalKey struct{}

// WithRefusal stores why the credentials a public procedure names refuse the
// caller, for the parts of it that need them.
func WithRefusal(ctx context.Context, err error) context.Context {
	return context.WithValue(ctx, refusalKey{}, err)
}

// RequirePrincipal returns the admitted caller of a procedure that is not
// public, or of the part of a public one that needs the credentials it names;
// without one it returns the error that refuses the call (the gate's refusal,
// else 401), never panics. Its absence on a non-public procedure means the
// gate was bypassed, which must not reach storage.
func RequirePrincipal(ctx context.Context) (*Principal, error) {
	if p, ok := PrincipalFrom(ctx); ok {
		return p, nil
	}
	if err, ok := ctx.Value(refusalKey{}).(error); ok {
		return nil, err
	}
	return nil, apperr.Unauthenticated("authentication required")
}
