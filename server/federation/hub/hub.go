// Package hub is federation's hub half (--role hub), split by who calls:
// Platform serves what spokes call with their platform token
// (FederationHubService, FederationPlatformService, FederationMarketService,
// FederationResultService), Admin the hub admin's instance list and the
// decisions sent to spokes, Remote the engine's dispatch of a listing to the
// spoke that hosts it. Core is their shared state. Every procedure answers
// 404 unless the instance runs as a hub.
package hub

import (
	"context"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/connecttoken"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/federation/audit"
	"github.com/switchboard-hq/switchboard/server/peerwire"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/store/engine"
	"github.com/switchboard-hq/switchboard/server/store/review"
)

// DefaultStaleAfter is how long a spoke may go without a heartbeat before
// its hub lists it as stale.
const DefaultStaleAfter = 24 * time.Hour

// verifyTimeout bounds the hub's call to a spoke's verification endpoint
// (network I/O, not business time).
const verifyTimeout = 10 * time.Second

// Core is the hub's configuration and state, shared by Platform, Admin
// and Remote. Every procedure answers 404 unless the instance runs as a hub.
type Core struct {
	DB      *db.DB
	Now     func() time.Time
	Secrets *secrets.Box
	Egress  egress.Policy
	// Serving is true with --role hub.
	Serving bool
	// StaleAfter is --stale-after; DefaultStaleAfter when zero.
	StaleAfter time.Duration
	// Policy is the store's review policy, which synced listings follow.
	Policy store.ReviewPolicy
	// PublicURL is the hub's own address, which discover answers to a
	// platform token; empty when unknown.
	PublicURL string
	// Audit records the hub's outbound calls (verification); optional.
	Audit *audit.Recorder
	// ClientOptions are added to the typed client of each spoke (tracing).
	ClientOptions []connect.ClientOption
	client        *http.Client
	// spokes knows what each spoke speaks (learned at its verification).
	spokes *peerwire.Directory
}

// NewCore makes the hub's Core with its outbound client.
func NewCore(h Core) *Core {
	if h.StaleAfter <= 0 {
		h.StaleAfter = DefaultStaleAfter
	}
	h.client = h.Egress.Client(verifyTimeout)
	if h.Audit != nil {
		h.client.Transport = h.Audit.Transport(h.client.Transport)
	}
	hub := &h
	hub.spokes = peerwire.NewDirectory(hub.client, func() time.Time { return hub.now() })
	return hub
}

func (h *Core) now() time.Time { return h.Now().UTC() }

// The hub's procedures are split by who calls them (RULINGS, house issue
// point 2): the platform side its spokes reach with a platform token, its
// admin's side, and the engine's remote dispatch. Each holds the shared
// state through the Core pointer.

// Platform serves what a spoke calls on its hub with its platform token
// (FederationHubService, FederationPlatformService, FederationMarketService,
// FederationResultService): it runs the spokes' global executions and takes
// their results through the engine, so it is built after the engine.
type Platform struct {
	hub *Core
	// Engine runs the store's executions; the spokes deliver their results
	// to it.
	Engine *engine.Engine
	// Review is the store's review lifecycle: a spoke's user confirms or
	// denies a global execution through it.
	Review *review.Service
}

// NewPlatform makes the hub's platform side over h.
func NewPlatform(h *Core, e *engine.Engine, r *review.Service) *Platform {
	return &Platform{hub: h, Engine: e, Review: r}
}

// Admin serves the hub's admin (FederationAdminService: instances,
// deactivate, reactivate) and sends its decisions on synced listings and
// packs to their spokes.
type Admin struct{ hub *Core }

// NewAdmin makes the hub admin's side over h.
func NewAdmin(h *Core) *Admin { return &Admin{hub: h} }

// Remote is the engine's way to the hub's spokes: it dispatches a synced
// listing's execution to its spoke and delivers a spoke's user's global run
// back to it. It needs no engine, so the engine is built with it.
type Remote struct{ hub *Core }

// NewRemote makes the hub's remote dispatch over h.
func NewRemote(h *Core) *Remote { return &Remote{hub: h} }

func (h *Core) serving() error {
	if !h.Serving {
		return apperr.NotFound("this instance is not a hub (it runs with --role standalone)")
	}
	return nil
}

// Endpoints are the platform routes a registered spoke may call.
var Endpoints = []*switchboardv1.FederationEndpoint{
	{Method: http.MethodPost, Path: "/api/v2/federation/heartbeat"},
	{Method: http.MethodPost, Path: "/api/v2/federation/rotate"},
	{Method: http.MethodPost, Path: "/api/v2/federation/leave"},
	{Method: http.MethodPost, Path: "/api/v2/federation/marketplace-link"},
	{Method: http.MethodPost, Path: "/api/v2/federation/agents"},
	{Method: http.MethodGet, Path: "/api/v2/federation/agents"},
	{Method: http.MethodPut, Path: "/api/v2/federation/agents/{remoteId}"},
	{Method: http.MethodGet, Path: "/api/v2/federation/agents/{remoteId}"},
	{Method: http.MethodDelete, Path: "/api/v2/federation/agents/{remoteId}"},
	{Method: http.MethodPost, Path: "/api/v2/federation/capabilities"},
	{Method: http.MethodGet, Path: "/api/v2/federation/capabilities"},
	{Method: http.MethodGet, Path: "/api/v2/federation/browse"},
	{Method: http.MethodPost, Path: "/api/v2/federation/validate-payment"},
	{Method: http.MethodGet, Path: "/api/v2/prompt-groups"},
	{Method: http.MethodGet, Path: "/api/v2/network/discover"},
}

// RegisterInstance verifies the spoke's address and records it.
func (h *Platform) RegisterInstance(ctx context.Context, req *switchboardv1.RegisterInstanceRequest) (*switchboardv1.RegisterInstanceResponse, error) {
	name := strings.TrimSpace(req.GetName())
	switch {
	case name == "":
		return nil, apperr.Invalid("name is required")
	case req.GetBaseUrl() == "":
		return nil, apperr.Invalid("baseUrl is required")
	case req.GetApiKey() == "":
		return nil, apperr.Invalid("apiKey is required")
	}
	if err := h.hub.serving(); err != nil {
		return nil, err
	}
	tok, err := h.connectToken(ctx)
	if err != nil {
		return nil, err
	}
	if h.hub.Secrets == nil {
		return nil, &apperr.Error{Kind: apperr.KindUnavailable,
			Message: "this hub has no secret key (SWITCHBOARD_SECRET_KEY), so it cannot keep a spoke's secret"}
	}
	base, err := h.baseURL(ctx, req.GetBaseUrl())
	if err != nil {
		return nil, err
	}
	secret := req.GetApiKey()
	if !strings.HasPrefix(secret, auth.InstanceKeyPrefix) || len(secret) < len(auth.InstanceKeyPrefix)+32 {
		return nil, apperr.Invalid("apiKey must be the instance's secret: %s followed by at least 32 characters", auth.InstanceKeyPrefix)
	}
	secretHash := auth.HashToken(secret)
	prior, err := h.hub.DB.FederationInstance.Query().Where(federationinstance.BaseURL(base)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, err
	}
	// An instance that left may come back with a new secret: verification
	// proves the address again.
	if prior != nil && prior.LeftAt == nil && !federation.SameHash(prior.APIKeyHash, secretHash) {
		return nil, apperr.Forbidden("%s is registered with another apiKey", base)
	}
	if prior != nil && prior.DeactivatedAt != nil {
		return nil, apperr.Forbidden("%s was deactivated by this hub's admin", base)
	}
	// Nothing is recorded before the address proves it holds the secret.
	if err := h.verify(ctx, base, secret); err != nil {
		return nil, err
	}
	token, tokenHash := auth.NewToken(auth.PlatformTokenPrefix)
	var id string
	err = h.hub.DB.InTx(ctx, func(tx *db.Tx) error {
		now := h.hub.now()
		n, err := tx.ConnectToken.Update().Where(connecttoken.ID(tok.ID), connecttoken.UsedAtIsNil()).SetUsedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.Forbidden("this connect token has been used")
		}
		id = ids.New()
		if prior != nil {
			id = prior.ID
		}
		sealed, err := h.hub.Secrets.SealText(secret, secretAAD(id))
		if err != nil {
			return apperr.Internal(err)
		}
		if prior != nil {
			return tx.FederationInstance.UpdateOneID(id).SetName(name).SetAPIKeySealed(sealed).SetAPIKeyHash(secretHash).
				SetTokenHash(tokenHash).SetTokenPrefix(token[:prefixShown]).ClearLeftAt().
				SetNillableVersion(nonEmpty(req.GetVersion())).SetUserCount(int(req.GetUserCount())).
				SetAgentCount(int(req.GetAgentCount())).SetCapabilities(req.GetCapabilities().AsMap()).
				SetRegisteredBy(tok.UserID).Exec(ctx)
		}
		return tx.FederationInstance.Create().SetID(id).SetName(name).SetBaseURL(base).
			SetAPIKeyHash(secretHash).SetAPIKeySealed(sealed).SetTokenHash(tokenHash).
			SetTokenPrefix(token[:prefixShown]).SetNillableVersion(nonEmpty(req.GetVersion())).
			SetUserCount(int(req.GetUserCount())).SetAgentCount(int(req.GetAgentCount())).
			SetCapabilities(req.GetCapabilities().AsMap()).SetRegisteredBy(tok.UserID).Exec(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RegisterInstanceResponse{InstanceId: id, PlatformToken: token, Endpoints: Endpoints}, nil
}

// secretAAD binds a spoke's sealed secret to its row.
func secretAAD(id string) []byte { return []byte("federation_instances.api_key_sealed:" + id) }

// connectToken finds the registration's connect token: of purpose instance,
// unused, unexpired.
func (h *Platform) connectToken(ctx context.Context) (*ent.ConnectToken, error) {
	hash, err := bearerOf(auth.CredentialsFrom(ctx).Bearer, auth.ConnectTokenPrefix, "register")
	if err != nil {
		return nil, err
	}
	tok, err := h.hub.DB.ConnectToken.Query().Where(connecttoken.TokenHash(hash)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return nil, apperr.Unauthenticated("invalid connect token")
	case err != nil:
		return nil, err
	case tok.Purpose != connecttoken.PurposeInstance:
		return nil, apperr.Forbidden("this connect token is of purpose %s; registering an instance takes one of purpose instance, minted by the hub's admin", tok.Purpose)
	case tok.UsedAt != nil:
		return nil, apperr.Forbidden("this connect token has been used")
	case !tok.ExpiresAt.After(h.hub.now()):
		return nil, apperr.Forbidden("this connect token has expired")
	}
	return tok, nil
}

// baseURL checks a spoke's address under the outbound address rule and
// answers it without a trailing slash, query or fragment.
func (h *Platform) baseURL(ctx context.Context, raw string) (string, error) {
	u, err := egress.ParseURL(raw)
	if err != nil {
		return "", apperr.Invalid("baseUrl: %s", err)
	}
	if err := h.hub.Egress.CheckURL(ctx, u); err != nil {
		return "", apperr.Invalid("baseUrl: %s", egress.Reason(err))
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", apperr.Invalid("baseUrl must be an address without credentials, query or fragment")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// verify asks base to prove it holds secret: it must answer a fresh nonce
// and the nonce's HMAC keyed by the secret.
func (h *Platform) verify(ctx context.Context, base, secret string) error {
	protocols, err := federation.Verify(ctx, h.hub.client, base, nil, secret, "baseUrl", "apiKey")
	if err == nil {
		h.hub.spokes.Learn(base, protocols)
	}
	return err
}

// caller finds the spoke presenting a platform token. A token that left is
// 401; a deactivated instance is 401 too unless the route serves it anyway
// (heartbeat, leave).
func (h *Core) caller(ctx context.Context, route string, deactivatedServed bool) (*ent.FederationInstance, error) {
	if err := h.serving(); err != nil {
		return nil, err
	}
	hash, err := bearerOf(auth.CredentialsFrom(ctx).Bearer, auth.PlatformTokenPrefix, route)
	if err != nil {
		return nil, err
	}
	inst, err := h.DB.FederationInstance.Query().Where(federationinstance.TokenHash(hash), federationinstance.LeftAtIsNil()).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		return nil, apperr.Unauthenticated("invalid platform token")
	case err != nil:
		return nil, err
	case inst.DeactivatedAt != nil && !deactivatedServed:
		return nil, apperr.Unauthenticated("this instance has been deactivated by the hub's admin")
	}
	audit.NameSource(ctx, inst.Name)
	return inst, nil
}

// Heartbeat records the spoke's stats and health.
func (h *Platform) Heartbeat(ctx context.Context, req *switchboardv1.HeartbeatRequest) (*switchboardv1.HeartbeatResponse, error) {
	inst, err := h.hub.caller(ctx, "heartbeat", true)
	if err != nil {
		return nil, err
	}
	health := federationinstance.HealthHealthy
	if req.GetStatus() != "" {
		health = federationinstance.Health(req.GetStatus())
	}
	now := h.hub.now()
	err = h.hub.DB.FederationInstance.UpdateOneID(inst.ID).SetHealth(health).SetLastHeartbeatAt(now).
		SetNillableVersion(nonEmpty(req.GetVersion())).SetUserCount(int(req.GetUserCount())).
		SetAgentCount(int(req.GetAgentCount())).Exec(ctx)
	if err != nil {
		return nil, err
	}
	stats, err := h.network(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.HeartbeatResponse{Ok: true, Network: stats, ServerTime: timestamppb.New(now)}, nil
}

// network counts the hub's network: its active instances, its own users
// plus those the active instances report, and the listings of its store.
func (h *Platform) network(ctx context.Context) (*switchboardv1.NetworkStats, error) {
	active, err := h.hub.DB.FederationInstance.Query().
		Where(federationinstance.LeftAtIsNil(), federationinstance.DeactivatedAtIsNil()).
		Select(federationinstance.FieldUserCount).Ints(ctx)
	if err != nil {
		return nil, err
	}
	users, err := h.hub.DB.User.Query().Count(ctx)
	if err != nil {
		return nil, err
	}
	for _, n := range active {
		users += n
	}
	agents, err := h.hub.DB.StoreAgent.Query().Where(storeagent.StatusEQ(storeagent.StatusActive)).Count(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.NetworkStats{Instances: int32(len(active)), Users: int32(users), Agents: int32(agents)}, nil
}

// RotatePlatformToken issues the caller a new platform token.
func (h *Platform) RotatePlatformToken(ctx context.Context, _ *switchboardv1.RotatePlatformTokenRequest) (*switchboardv1.RotatePlatformTokenResponse, error) {
	inst, err := h.hub.caller(ctx, "rotate", false)
	if err != nil {
		return nil, err
	}
	token, hash := auth.NewToken(auth.PlatformTokenPrefix)
	n, err := h.hub.DB.FederationInstance.Update().
		Where(federationinstance.ID(inst.ID), federationinstance.TokenHash(inst.TokenHash)).
		SetTokenHash(hash).SetTokenPrefix(token[:prefixShown]).Save(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 { // a concurrent rotation won
		return nil, apperr.Unauthenticated("invalid platform token")
	}
	return &switchboardv1.RotatePlatformTokenResponse{PlatformToken: token}, nil
}

// LeaveHub unregisters the caller; its row stays, marked left, for the
// record, and its token stops working.
func (h *Platform) LeaveHub(ctx context.Context, _ *switchboardv1.LeaveHubRequest) (*switchboardv1.LeaveHubResponse, error) {
	inst, err := h.hub.caller(ctx, "leave", true)
	if err != nil {
		return nil, err
	}
	// A fresh random hash: no token matches it.
	_, unusable := auth.NewToken("")
	err = h.hub.DB.FederationInstance.UpdateOneID(inst.ID).SetLeftAt(h.hub.now()).SetTokenHash(unusable).Exec(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.LeaveHubResponse{}, nil
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
