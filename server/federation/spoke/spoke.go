// Package spoke is federation's spoke half, split by who calls: Inbound
// serves what its hub calls with this instance's secret
// (FederationSpokeService, FederationDeliveryService, the approval webhook,
// the well-known answer) and sends dispatched results back; Admin serves the
// spoke admin's membership (FederationService: join, status, rotate, leave),
// the heartbeat loop, the store's global side and the fee check. Core is
// their shared state.
package spoke

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/federationmembership"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/federation/audit"
	"github.com/switchboard-hq/switchboard/server/store/engine"
)

// DefaultHeartbeatInterval is the documented heartbeat period (1 to 12
// hours; shorter periods are for tests).
const DefaultHeartbeatInterval = time.Hour

// hubTimeout bounds each call to the hub (network I/O). Registration waits
// for the hub's own call back to this instance, so it has the longest wait.
const hubTimeout = 30 * time.Second

// pendingFor is how long a secret being registered answers verification.
const pendingFor = 2 * time.Minute

// Core is this instance's configuration and state as a hub's member,
// shared by Admin and Inbound.
type Core struct {
	DB      *db.DB
	Now     func() time.Time
	Secrets *secrets.Box
	Egress  egress.Policy
	Logger  *slog.Logger
	// Role is this instance's --role; a hub does not join another hub.
	Role string
	// PublicURL is this instance's address, which the hub verifies.
	PublicURL string
	// Version is the binary's version, reported to the hub.
	Version string
	// Interval is --heartbeat-interval; DefaultHeartbeatInterval when zero.
	Interval time.Duration
	// Audit records the spoke's calls to its hub; optional.
	Audit  *audit.Recorder
	client *http.Client
}

// NewCore makes the spoke's Core with its outbound client.
func NewCore(s Core) *Core {
	if s.Interval <= 0 {
		s.Interval = DefaultHeartbeatInterval
	}
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	s.client = s.Egress.Client(hubTimeout)
	if s.Audit != nil {
		s.client.Transport = s.Audit.Transport(s.client.Transport)
	}
	return &s
}

func (s *Core) now() time.Time { return s.Now().UTC() }

// The spoke's procedures are split by who calls them: the side its hub
// calls with this instance's secret, apart from the admin's membership and
// store routes. Each holds the shared state through the Core pointer.

// Admin serves the instance's admin (FederationService: join, status,
// rotate, leave, health, the marketplace link and sync), runs the
// heartbeat loop, and is the store's and the engine's way to the hub's
// global store (browse, execute, review, the fee check).
type Admin struct{ spoke *Core }

// NewAdmin makes the spoke admin's side over s.
func NewAdmin(s *Core) *Admin { return &Admin{spoke: s} }

// Inbound serves what the hub calls on this spoke with its secret
// (FederationSpokeService, FederationDeliveryService, the approval webhook,
// the well-known answer) and returns the hub's dispatches when they end. It
// runs dispatches through the engine, so it is built after the engine.
type Inbound struct {
	spoke *Core
	// Engine runs the executions the hub dispatches here.
	Engine *engine.Engine
}

// NewInbound makes the spoke's hub-facing side over s.
func NewInbound(s *Core, e *engine.Engine) *Inbound { return &Inbound{spoke: s, Engine: e} }

func (s *Core) admin(ctx context.Context) error {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return err
	}
	if p.Role != "admin" {
		return apperr.Forbidden("only this instance's admin may manage its federation")
	}
	return nil
}

// hub is a typed client for the hub at base, presenting token.
func (s *Core) hub(base string) switchboardv1connect.FederationHubServiceClient {
	return switchboardv1connect.NewFederationHubServiceClient(s.client, base)
}

// withBearer is ctx for one call to the hub presenting token.
func withBearer(ctx context.Context, token string) context.Context {
	ctx, info := connect.NewClientContext(ctx)
	info.RequestHeader().Set("Authorization", "Bearer "+token)
	return ctx
}

// hubError turns a failed call to the hub into this instance's answer: the
// hub's refusal is the admin's bad request (a 401 from the hub must not read
// as the admin's own session ending); an unreachable hub is 503, worded by
// egress.Reason without addresses or resolver details (RULINGS "Security
// details").
func hubError(hubURL string, err error) error {
	if !connect.IsWireError(err) {
		if cause, ok := egress.Unreachable(err); ok {
			return &apperr.Error{Kind: apperr.KindUnavailable, Cause: cause, Message: "the hub at " + hubURL + " could not be reached: " + cause.Error()}
		}
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		switch ce.Code() {
		case connect.CodeUnavailable, connect.CodeDeadlineExceeded, connect.CodeUnknown, connect.CodeInternal:
			return &apperr.Error{Kind: apperr.KindUnavailable, Cause: err,
				Message: "the hub at " + hubURL + " could not be reached or failed: " + ce.Message()}
		}
		return apperr.Invalid("the hub refused: %s (%s)", ce.Message(), ce.Code())
	}
	return &apperr.Error{Kind: apperr.KindUnavailable, Cause: err, Message: "the hub at " + hubURL + " could not be reached"}
}

// membership is this instance's membership row, nil when there is none.
func (s *Core) membership(ctx context.Context, c *ent.Client) (*ent.FederationMembership, error) {
	m, err := c.FederationMembership.Query().Order(ent.Desc(federationmembership.FieldCreatedAt), ent.Desc(federationmembership.FieldID)).First(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return m, err
}

// HubJoined is published in the unit of work that records this instance's
// join, naming the admin who joined it (onboarding's network step hears it).
type HubJoined struct{ UserID, HubURL string }

// JoinHub registers this instance with the hub and sends the first heartbeat.
func (s *Admin) JoinHub(ctx context.Context, req *switchboardv1.JoinHubRequest) (*switchboardv1.JoinHubResponse, error) {
	if err := s.spoke.admin(ctx); err != nil {
		return nil, err
	}
	if req.GetHubUrl() == "" || req.GetConnectToken() == "" {
		return nil, apperr.Invalid("hubUrl and connectToken are required")
	}
	if s.spoke.Role == "hub" {
		return nil, apperr.IllegalMove("a hub does not join another hub")
	}
	if s.spoke.Secrets == nil {
		return nil, &apperr.Error{Kind: apperr.KindUnavailable,
			Message: "this instance has no secret key (SWITCHBOARD_SECRET_KEY), so it cannot keep its platform token"}
	}
	self, err := url.Parse(s.spoke.PublicURL)
	if s.spoke.PublicURL == "" || err != nil || self.Host == "" {
		return nil, apperr.IllegalMove("set --public-url (SWITCHBOARD_PUBLIC_URL) to this instance's address first: the hub calls it to verify the join")
	}
	u, err := egress.ParseURL(req.GetHubUrl())
	if err != nil {
		return nil, apperr.Invalid("hubUrl: %s", err)
	}
	if err := s.spoke.Egress.CheckURL(ctx, u); err != nil {
		return nil, apperr.Invalid("hubUrl: %s", egress.Reason(err))
	}
	hubURL := strings.TrimRight(u.String(), "/")
	name := strings.TrimSpace(req.GetName())
	if name == "" {
		name = self.Host
	}
	secret, secretHash := auth.NewToken(auth.InstanceKeyPrefix)
	var row *ent.FederationMembership
	// The pending secret is committed before the call, so that whichever
	// replica the hub's verification reaches can answer it.
	err = s.spoke.DB.InTx(ctx, func(tx *db.Tx) error {
		prior, err := s.spoke.membership(ctx, tx.Client())
		if err != nil {
			return err
		}
		if prior != nil && prior.JoinedAt != nil {
			return apperr.Conflict("this instance has joined %s; leave it first", prior.HubURL)
		}
		if _, err := tx.FederationMembership.Delete().Exec(ctx); err != nil {
			return err
		}
		id := ids.New()
		sealed, err := s.spoke.Secrets.SealText(secret, pendingAAD(id))
		if err != nil {
			return apperr.Internal(err)
		}
		row, err = tx.FederationMembership.Create().SetID(id).SetHubURL(hubURL).
			SetPendingAPIKeySealed(sealed).SetPendingUntil(s.spoke.now().Add(pendingFor)).Save(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	users, agents := s.spoke.counts(ctx)
	res, err := s.spoke.hub(hubURL).RegisterInstance(withBearer(ctx, req.GetConnectToken()), &switchboardv1.RegisterInstanceRequest{
		Name: name, BaseUrl: strings.TrimRight(s.spoke.PublicURL, "/"), ApiKey: secret, Version: s.spoke.Version,
		UserCount: users, AgentCount: agents,
	})
	if err != nil {
		_ = s.spoke.DB.FederationMembership.DeleteOneID(row.ID).Exec(context.WithoutCancel(ctx))
		// baseUrl is this instance's --public-url, which the admin set but
		// never sent.
		return nil, federation.OwnField(hubError(hubURL, err), "baseUrl",
			"this instance's address "+strings.TrimRight(s.spoke.PublicURL, "/")+" (--public-url)")
	}
	sealed, err := s.spoke.Secrets.SealText(res.GetPlatformToken(), tokenAAD(row.ID))
	if err != nil {
		return nil, apperr.Internal(err)
	}
	p, _ := auth.RequirePrincipal(ctx) // the admin, checked above
	joined := context.WithoutCancel(ctx)
	err = s.spoke.DB.InTx(joined, func(tx *db.Tx) error {
		row, err = tx.FederationMembership.UpdateOneID(row.ID).SetJoinedAt(s.spoke.now()).
			SetInstanceID(res.GetInstanceId()).SetPlatformTokenSealed(sealed).SetAPIKeyHash(secretHash).
			ClearPendingAPIKeySealed().ClearPendingUntil().Save(joined)
		if err != nil {
			return err
		}
		return tx.Publish(joined, HubJoined{UserID: p.UserID, HubURL: hubURL})
	})
	if err != nil {
		return nil, err
	}
	// Joined whatever comes next: a refused link leaves participation off,
	// shown in the status, to enable again later.
	if req.GetStoreParticipation() {
		if linked, err := s.link(ctx, row, "enable"); err == nil {
			row = linked
		} else {
			s.spoke.Logger.Warn("federation: store participation not enabled at join", "hub", hubURL, "err", err)
		}
	}
	// The first heartbeat goes at join; its outcome is in the status.
	if row, err = s.beat(ctx, row); err != nil {
		return nil, apperr.Internal(err)
	}
	return &switchboardv1.JoinHubResponse{Status: s.spoke.toStatus(row)}, nil
}

func pendingAAD(id string) []byte {
	return []byte("federation_memberships.pending_api_key_sealed:" + id)
}
func tokenAAD(id string) []byte { return []byte("federation_memberships.platform_token_sealed:" + id) }

// counts is what a heartbeat reports: this instance's users and its active
// listings (zero when they cannot be counted: a heartbeat still goes).
func (s *Core) counts(ctx context.Context) (users, agents int32) {
	u, _ := s.DB.User.Query().Count(ctx)
	a, _ := s.DB.StoreAgent.Query().Where(storeagent.StatusEQ(storeagent.StatusActive)).Count(ctx)
	return int32(u), int32(a)
}

// token opens the membership's platform token.
func (s *Core) token(m *ent.FederationMembership) (string, error) {
	if m.PlatformTokenSealed == nil || s.Secrets == nil {
		return "", errors.New("federation: no platform token")
	}
	return s.Secrets.OpenText(*m.PlatformTokenSealed, tokenAAD(m.ID))
}

// beat sends one heartbeat for m and records what came of it.
func (s *Admin) beat(ctx context.Context, m *ent.FederationMembership) (*ent.FederationMembership, error) {
	token, err := s.spoke.token(m)
	if err != nil {
		return nil, err
	}
	users, agents := s.spoke.counts(ctx)
	res, callErr := s.spoke.hub(m.HubURL).Heartbeat(withBearer(ctx, token), &switchboardv1.HeartbeatRequest{
		Version: s.spoke.Version, UserCount: users, AgentCount: agents, Status: string(m.Health),
	})
	up := s.spoke.DB.FederationMembership.UpdateOneID(m.ID).SetLastHeartbeatAt(s.spoke.now()).SetLastHeartbeatOk(callErr == nil)
	if callErr != nil {
		s.spoke.Logger.Warn("federation: heartbeat failed", "hub", m.HubURL, "err", callErr)
		up.SetLastHeartbeatError(apperr.From(hubError(m.HubURL, callErr)).Message)
	} else {
		n := res.GetNetwork()
		up.ClearLastHeartbeatError().SetNetworkInstances(int(n.GetInstances())).
			SetNetworkUsers(int(n.GetUsers())).SetNetworkAgents(int(n.GetAgents()))
	}
	return up.Save(context.WithoutCancel(ctx))
}

// GetFederationStatus answers this instance's role and membership.
func (s *Admin) GetFederationStatus(ctx context.Context, _ *switchboardv1.GetFederationStatusRequest) (*switchboardv1.GetFederationStatusResponse, error) {
	if err := s.spoke.admin(ctx); err != nil {
		return nil, err
	}
	m, err := s.spoke.membership(ctx, s.spoke.DB.Client)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.GetFederationStatusResponse{Status: s.spoke.toStatus(m)}, nil
}

// LeaveFederation tells the hub (best effort) and forgets the membership.
func (s *Admin) LeaveFederation(ctx context.Context, _ *switchboardv1.LeaveFederationRequest) (*switchboardv1.LeaveFederationResponse, error) {
	if err := s.spoke.admin(ctx); err != nil {
		return nil, err
	}
	m, err := s.spoke.joined(ctx)
	if err != nil {
		return nil, err
	}
	told := false
	if token, err := s.spoke.token(m); err == nil {
		_, err = s.spoke.hub(m.HubURL).LeaveHub(withBearer(ctx, token), &switchboardv1.LeaveHubRequest{})
		told = err == nil
		if err != nil {
			s.spoke.Logger.Warn("federation: the hub could not be told of the leave", "hub", m.HubURL, "err", err)
		}
	}
	if err := s.spoke.DB.FederationMembership.DeleteOneID(m.ID).Exec(context.WithoutCancel(ctx)); err != nil {
		return nil, err
	}
	return &switchboardv1.LeaveFederationResponse{Status: s.spoke.toStatus(nil), HubTold: told}, nil
}

// RotateFederationToken asks the hub for a new platform token.
func (s *Admin) RotateFederationToken(ctx context.Context, _ *switchboardv1.RotateFederationTokenRequest) (*switchboardv1.RotateFederationTokenResponse, error) {
	if err := s.spoke.admin(ctx); err != nil {
		return nil, err
	}
	m, err := s.spoke.joined(ctx)
	if err != nil {
		return nil, err
	}
	token, err := s.spoke.token(m)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	res, err := s.spoke.hub(m.HubURL).RotatePlatformToken(withBearer(ctx, token), &switchboardv1.RotatePlatformTokenRequest{})
	if err != nil {
		return nil, hubError(m.HubURL, err)
	}
	sealed, err := s.spoke.Secrets.SealText(res.GetPlatformToken(), tokenAAD(m.ID))
	if err != nil {
		return nil, apperr.Internal(err)
	}
	m, err = s.spoke.DB.FederationMembership.UpdateOneID(m.ID).SetPlatformTokenSealed(sealed).Save(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RotateFederationTokenResponse{Status: s.spoke.toStatus(m)}, nil
}

// SetFederationHealth stores the health this instance announces and sends
// it to the hub at once; the heartbeat's outcome is in the status (a hub
// that cannot be reached hears it at the next heartbeat).
func (s *Admin) SetFederationHealth(ctx context.Context, req *switchboardv1.SetFederationHealthRequest) (*switchboardv1.SetFederationHealthResponse, error) {
	if err := s.spoke.admin(ctx); err != nil {
		return nil, err
	}
	if req.GetStatus() == "" {
		return nil, apperr.Invalid("status is required: one of %s", strings.Join(vocab.Values("instance_health"), ", "))
	}
	if err := apperr.OneOf("status", req.GetStatus(), vocab.Values("instance_health")); err != nil {
		return nil, err
	}
	m, err := s.spoke.joined(ctx)
	if err != nil {
		return nil, err
	}
	m, err = s.spoke.DB.FederationMembership.UpdateOneID(m.ID).SetHealth(federationmembership.Health(req.GetStatus())).
		Save(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	if m, err = s.beat(ctx, m); err != nil {
		return nil, apperr.Internal(err)
	}
	return &switchboardv1.SetFederationHealthResponse{Status: s.spoke.toStatus(m)}, nil
}

// joined is the membership of a joined instance; none is a failed
// precondition.
func (s *Core) joined(ctx context.Context) (*ent.FederationMembership, error) {
	m, err := s.membership(ctx, s.DB.Client)
	if err != nil {
		return nil, err
	}
	if m == nil || m.JoinedAt == nil {
		return nil, apperr.IllegalMove("this instance has not joined a hub")
	}
	return m, nil
}

func (s *Core) toStatus(m *ent.FederationMembership) *switchboardv1.FederationStatus {
	role := s.Role
	if role == "" {
		role = "standalone"
	}
	out := &switchboardv1.FederationStatus{Role: role, HeartbeatIntervalSeconds: int32(s.Interval / time.Second)}
	if m == nil || m.JoinedAt == nil {
		return out
	}
	out.Joined = true
	out.HubUrl = &m.HubURL
	out.InstanceId = m.InstanceID
	out.JoinedAt = timestamppb.New(*m.JoinedAt)
	out.StoreParticipation = m.StoreParticipation
	out.Health = federation.Ptr(string(m.Health))
	if m.LastSyncAt != nil {
		out.LastSyncAt = timestamppb.New(*m.LastSyncAt)
	}
	if m.LastHeartbeatAt != nil {
		hb := &switchboardv1.FederationHeartbeat{SentAt: timestamppb.New(*m.LastHeartbeatAt), Ok: m.LastHeartbeatOk,
			Error: m.LastHeartbeatError}
		if m.LastHeartbeatOk {
			hb.Network = &switchboardv1.NetworkStats{Instances: int32(m.NetworkInstances),
				Users: int32(m.NetworkUsers), Agents: int32(m.NetworkAgents)}
		}
		out.LastHeartbeat = hb
	}
	return out
}
