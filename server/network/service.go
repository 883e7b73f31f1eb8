package network

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation/audit"
	"github.com/switchboard-hq/switchboard/server/peerwire"
	"github.com/switchboard-hq/switchboard/server/queue"
)

// peerTimeout bounds each call to a peer. A request waits for the peer's
// own verification call back to this instance.
const peerTimeout = 20 * time.Second

// PrivateFlag is the flag that admits plain-http, private and loopback peers
// (Config.AllowPrivate): the refusals of such an address name it.
const PrivateFlag = "--federation-allow-private"

// Config is the flags' part of the operator network.
type Config struct {
	// Enabled is --federation: the switch's initial value.
	Enabled bool
	// Allowlist is --federation-allowlist: the initial admitted origins.
	Allowlist []string
	// AllowPrivate is --federation-allow-private: peers may be plain http
	// and private or loopback addresses.
	AllowPrivate bool
}

// Core is what the operator network's three services share, built once by
// NewCore and handed to each by pointer: the database, the clock, the
// instance key, the outbound client under the peers' address rule and the
// outbox. Its methods (the switch, the peer clients, the relay intake) serve
// the three packages by who calls (operator, peers, relays), not the server's
// wiring.
type Core struct {
	DB      *db.DB
	Now     func() time.Time
	Secrets *secrets.Box
	Logger  *slog.Logger
	// PublicURL is this instance's address, which peers verify.
	PublicURL string
	Config    Config
	// Audit records the calls to peers; optional.
	Audit *audit.Recorder
	// Queue makes the items request relays become (with their cards).
	Queue *queue.Service
	// Mode answers a trusted peer's mode_get as the local user
	// (CallSharedTool): the MCP door's own answer, mcp.ModeOf.
	Mode func(ctx context.Context, userID string) (any, error)
	// ClientOptions are the outbound Connect client's (tracing).
	ClientOptions []connect.ClientOption
	// Limiter counts handshakes per calling origin in the auth rate class
	// (the gate); nil counts nothing.
	Limiter Limiter
	// Outbox attempts the relays, notifications and jobs this instance
	// sends at once (the push-webhook outbox's dispatcher); nil leaves them
	// to the dispatcher's schedule (queued).
	Outbox Outbox
	egress egress.Policy
	// HTTPClient is the outbound client under the peers' address rule (set
	// by NewCore).
	HTTPClient *http.Client
	// Directory (set by NewCore) knows what each peer speaks (peerwire: the one place a call's
	// protocol is chosen), learned at the handshake's verification.
	Directory *peerwire.Directory
}

// Limiter counts one request under a key in a rate class and refuses it
// over the class's limit (gate.Gate.Count).
type Limiter interface {
	Count(ctx context.Context, class, key string) error
}

// NewCore makes the shared core with its outbound client under the peers'
// address rule.
func NewCore(s Core) *Core {
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	s.egress = egress.Policy{AllowPrivate: s.Config.AllowPrivate, Flag: PrivateFlag}
	s.HTTPClient = s.egress.Client(peerTimeout)
	if s.Audit != nil {
		s.HTTPClient.Transport = s.Audit.Transport(s.HTTPClient.Transport)
	}
	c := &s
	c.Directory = peerwire.NewDirectory(c.HTTPClient, c.NowUTC)
	return c
}

func (s *Core) NowUTC() time.Time { return s.Now().UTC() }

// Peer is a typed client for the instance at origin, in the protocol it
// speaks.
func (s *Core) Peer(ctx context.Context, origin string) peerwire.NetworkPeer {
	return s.Directory.NetworkPeer(ctx, origin, s.ClientOptions...)
}

// PeerError turns a failed call to a peer into this instance's answer. The
// peer's refusal keeps its kind (403, 404) except 401, which must not read
// as the operator's own session ending; an unreachable peer is 503, worded
// by egress.Reason: the origin as the operator gave it, never the address it
// resolved to, the dial guard's ranges or the resolver (RULINGS "Security
// details"; the cause stays for the log).
func PeerError(origin string, err error) error {
	if !connect.IsWireError(err) {
		if cause, ok := egress.Unreachable(err); ok {
			return &apperr.Error{Kind: apperr.KindUnavailable, Cause: cause, Message: "the peer at " + origin + " could not be reached: " + cause.Error()}
		}
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		msg := "the peer at " + origin + " refused: " + ce.Message()
		switch ce.Code() {
		case connect.CodeUnavailable, connect.CodeDeadlineExceeded, connect.CodeUnknown, connect.CodeInternal:
			return &apperr.Error{Kind: apperr.KindUnavailable, Cause: err,
				Message: "the peer at " + origin + " could not be reached or failed: " + ce.Message()}
		case connect.CodePermissionDenied, connect.CodeUnauthenticated:
			return &apperr.Error{Kind: apperr.KindForbidden, Message: msg, Cause: err}
		case connect.CodeNotFound:
			return &apperr.Error{Kind: apperr.KindNotFound, Message: msg, Cause: err}
		case connect.CodeResourceExhausted:
			// The peer's limit (maxOpenRelays, its rate classes) stays a 429.
			return &apperr.Error{Kind: apperr.KindRateLimited, RetryAfter: time.Minute, Message: msg, Cause: err}
		}
		return &apperr.Error{Kind: apperr.KindInvalid, Message: msg, Cause: err}
	}
	return &apperr.Error{Kind: apperr.KindUnavailable, Cause: err, Message: "the peer at " + origin + " could not be reached: " + egress.Reason(err)}
}

// SelfOrigin is this instance's origin as peers verify it.
func (s *Core) SelfOrigin() (string, error) {
	u, err := url.Parse(s.PublicURL)
	if s.PublicURL == "" || err != nil || u.Host == "" {
		return "", apperr.IllegalMove("set --public-url (SWITCHBOARD_PUBLIC_URL) to this instance's address first: the peer calls it to verify the request")
	}
	return u.Scheme + "://" + strings.ToLower(u.Host), nil
}

// Owned is the signed-in caller's connection id; another account's is 404.
func (s *Core) Owned(ctx context.Context, id string) (*ent.NetworkConnection, error) {
	return CallerRow(ctx, "connection", id, func(userID string) (*ent.NetworkConnection, error) {
		return s.DB.NetworkConnection.Query().Where(networkconnection.ID(id), networkconnection.UserID(userID)).Only(ctx)
	})
}

// CallerRow finds one of the signed-in caller's rows by id with find, whose
// query is scoped to the caller's user id: 400 without an id, 404 when find
// finds none (another account's id included).
func CallerRow[T any](ctx context.Context, what, id string, find func(userID string) (T, error)) (T, error) {
	var none T
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return none, err
	}
	if strings.TrimSpace(id) == "" {
		return none, apperr.Invalid("id is required")
	}
	row, err := find(p.UserID)
	if ent.IsNotFound(err) {
		return none, apperr.NotFound("no %s %q", what, id)
	}
	if err != nil {
		return none, err
	}
	return row, nil
}

// NeedSecrets refuses what needs the instance key without one.
func (s *Core) NeedSecrets() error {
	if s.Secrets == nil {
		return &apperr.Error{Kind: apperr.KindUnavailable,
			Message: "this instance has no secret key (SWITCHBOARD_SECRET_KEY), so it cannot keep federation tokens"}
	}
	return nil
}

// AAD binds each sealed token to its row and its role.
func PeerAAD(id string) []byte    { return []byte("network-peer-token:" + id) }
func PendingAAD(id string) []byte { return []byte("network-pending-token:" + id) }
