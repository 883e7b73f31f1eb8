package peers

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/networkpreference"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network"
)

// CallerConnection names the connection whose token a request presents, for
// the federation rate class (counted per connection); empty for anything
// else.
func (s *Service) CallerConnection(ctx context.Context, r *http.Request) string {
	token := r.Header.Get(auth.FederationTokenHeader)
	if !strings.HasPrefix(token, auth.PeerTokenPrefix) {
		return ""
	}
	row, err := s.core.DB.NetworkConnection.Query().Where(networkconnection.TokenHash(auth.HashToken(token))).Only(ctx)
	if err != nil {
		return ""
	}
	return "connection:" + row.ID
}

// ReceiveConnection takes a request from a user on another instance: 403
// while off or for an origin outside the allowlist, 400 for the body; then,
// counted per calling origin, the requester's origin is verified before
// anyone is looked up, and an unverified caller and an unknown user get the
// same 404 (RULINGS "Security details"; Reconciliation 14), so the route
// tells no one which emails have accounts here.
func (s *Service) ReceiveConnection(ctx context.Context, req *switchboardv1.ReceiveConnectionRequest) (*switchboardv1.ReceiveConnectionResponse, error) {
	w, err := s.core.SwitchOn(ctx)
	if err != nil {
		return nil, err
	}
	var missing []string
	for name, v := range map[string]string{"fromInstanceUrl": req.GetFromInstanceUrl(), "fromUserEmail": req.GetFromUserEmail(),
		"toUserEmail": req.GetToUserEmail(), "federationToken": req.GetFederationToken(), "connectionId": req.GetConnectionId()} {
		if strings.TrimSpace(v) == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, apperr.Invalid("required: %s", strings.Join(missing, ", "))
	}
	from := strings.ToLower(strings.TrimSpace(req.GetFromUserEmail()))
	if !network.ValidEmail(from) {
		return nil, apperr.Invalid("fromUserEmail %q is not an email address", req.GetFromUserEmail())
	}
	name, err := network.OneLineName("fromUserName", req.GetFromUserName())
	if err != nil {
		return nil, err
	}
	origin, err := s.core.PeerOrigin(ctx, "fromInstanceUrl", req.GetFromInstanceUrl())
	if err != nil {
		return nil, err
	}
	if err := network.Admit(w, origin); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(req.GetFederationToken(), auth.PeerTokenPrefix) {
		return nil, apperr.Unauthenticated("federationToken must be a peer federation token (%s…)", auth.PeerTokenPrefix)
	}
	if err := s.core.NeedSecrets(); err != nil {
		return nil, err
	}
	// Each handshake makes this instance call the origin: counted before.
	if s.core.Limiter != nil {
		if err := s.core.Limiter.Count(ctx, "auth", "handshake:"+origin); err != nil {
			return nil, err
		}
	}
	if err := s.verify(ctx, origin, req.GetFederationToken(), req.GetConnectionId()); err != nil {
		// Why is for this instance's log only: the caller learns no more
		// than an unknown user's requester would.
		s.core.Logger.InfoContext(ctx, "network: a connection request did not verify", "origin", origin, "err", err)
		return nil, noRequest()
	}
	to, err := s.core.DB.User.Query().Where(user.EmailEqualFold(strings.TrimSpace(req.GetToUserEmail()))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, noRequest()
	}
	if err != nil {
		return nil, err
	}
	auto, err := s.autoAccept(ctx, to.ID)
	if err != nil {
		return nil, err
	}
	res := &switchboardv1.ReceiveConnectionResponse{Success: true, UserName: to.Name, InstanceName: s.core.InstanceName()}
	err = s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		row, token, err := s.record(ctx, tx, to, peerFrom{origin, from, name}, req, auto && w.Listed(origin))
		if err != nil {
			return err
		}
		res.ConnectionId, res.Status = row.ID, string(row.Status)
		if token != "" {
			res.FederationToken = &token
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// noRequest is the one answer to a handshake whose caller did not verify
// or whose user is not here.
func noRequest() error {
	return apperr.NotFound("the user asked for is not on this instance, or the requesting instance could not be verified")
}

// peerFrom is a verified requester: its origin, its user's email and the
// name it gave, checked.
type peerFrom struct{ origin, email, name string }

// record writes a verified request: a repeat answers the same connection
// (with the newly verified token of the requester; an active one issues this
// side's token again, since the requester has lost it); a new one is pending,
// or active at once when accept is true. It answers this side's token when
// the connection is active.
func (s *Service) record(ctx context.Context, tx *db.Tx, to *ent.User, p peerFrom,
	req *switchboardv1.ReceiveConnectionRequest, accept bool) (*ent.NetworkConnection, string, error) {
	origin, from := p.origin, p.email
	prior, err := tx.NetworkConnection.Query().Where(networkconnection.UserID(to.ID),
		networkconnection.PeerInstanceURL(origin), networkconnection.PeerUserEmail(from)).Only(ctx)
	if err != nil && !ent.IsNotFound(err) {
		return nil, "", err
	}
	id := ids.New()
	if prior != nil {
		id = prior.ID
	}
	sealed, err := s.core.Secrets.SealText(req.GetFederationToken(), network.PeerAAD(id))
	if err != nil {
		return nil, "", err
	}
	if prior != nil {
		up := tx.NetworkConnection.UpdateOneID(id).SetPeerTokenSealed(sealed).SetPeerConnectionID(req.GetConnectionId()).
			SetPeerUserName(p.name).SetPeerInstanceName(req.GetFromInstanceName())
		var token string
		if prior.Status == networkconnection.StatusActive {
			var hash string
			token, hash = auth.NewToken(auth.PeerTokenPrefix)
			up.SetTokenHash(hash)
		}
		row, err := up.Save(ctx)
		return row, token, err
	}
	create := tx.NetworkConnection.Create().SetID(id).SetUserID(to.ID).SetPeerInstanceURL(origin).
		SetPeerUserEmail(from).SetPeerUserName(p.name).SetPeerInstanceName(req.GetFromInstanceName()).
		SetPeerConnectionID(req.GetConnectionId()).SetDirection(networkconnection.DirectionInbound).
		SetNillableMessage(network.Optional(req.GetMessage())).SetPeerTokenSealed(sealed)
	var token string
	if accept {
		var hash string
		token, hash = auth.NewToken(auth.PeerTokenPrefix)
		create.SetStatus(networkconnection.StatusActive).SetTokenHash(hash).SetAcceptedAt(s.core.NowUTC())
	}
	row, err := create.Save(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := s.core.Written(ctx, tx, row, "connection_created", "Connection request from"); err != nil {
		return nil, "", err
	}
	if accept {
		if err := s.core.Written(ctx, tx, row, "connection_accepted", "Connected with"); err != nil {
			return nil, "", err
		}
	}
	return row, token, nil
}

// autoAccept is the user's auto-accept preference.
func (s *Service) autoAccept(ctx context.Context, userID string) (bool, error) {
	pref, err := s.core.DB.NetworkPreference.Query().Where(networkpreference.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return pref.AutoAccept, nil
}

// ConfirmConnection takes the peer's acceptance of a request this instance
// sent: the call presents this side's token, the body the peer's.
func (s *Service) ConfirmConnection(ctx context.Context, req *switchboardv1.ConfirmConnectionRequest) (*switchboardv1.ConfirmConnectionResponse, error) {
	row, err := s.core.FromPeer(ctx, "connect/accept", tokenField(req.GetFederationToken(), "connectionId", req.GetConnectionId()))
	if err != nil {
		return nil, err
	}
	if req.GetConnectionId() != row.ID || row.Direction != networkconnection.DirectionOutbound {
		return nil, apperr.NotFound("no connection request %q from this instance holds that token", req.GetConnectionId())
	}
	if row.Status == networkconnection.StatusDeclined {
		return nil, apperr.IllegalMove("connection %s was declined", row.ID)
	}
	if err := s.core.NeedSecrets(); err != nil {
		return nil, err
	}
	err = s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		sealed, err := s.core.Secrets.SealText(req.GetFederationToken(), network.PeerAAD(row.ID))
		if err != nil {
			return err
		}
		up := tx.NetworkConnection.UpdateOneID(row.ID).SetStatus(networkconnection.StatusActive).
			SetPeerTokenSealed(sealed).ClearPendingTokenSealed().ClearPendingUntil()
		if req.GetPeerConnectionId() != "" {
			up.SetPeerConnectionID(req.GetPeerConnectionId())
		}
		if row.AcceptedAt == nil {
			up.SetAcceptedAt(s.core.NowUTC())
		}
		saved, err := up.Save(ctx)
		if err != nil || row.Status == networkconnection.StatusActive {
			return err
		}
		return s.core.Written(ctx, tx, saved, "connection_accepted", "Connected with")
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ConfirmConnectionResponse{Status: string(networkconnection.StatusActive)}, nil
}

// DropConnection is the peer's removal: the connection goes here too.
func (s *Service) DropConnection(ctx context.Context, _ *switchboardv1.DropConnectionRequest) (*switchboardv1.DropConnectionResponse, error) {
	row, err := s.core.FromPeer(ctx, "connections/remove", nil)
	if err != nil {
		return nil, err
	}
	err = s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := network.RemoveConnection(ctx, tx, row); err != nil {
			return err
		}
		return s.core.Written(ctx, tx, row, "connection_removed", "The connection was removed by")
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DropConnectionResponse{}, nil
}

// ReplacePeerToken is the peer's rotation: its new token replaces the one
// this side presents.
func (s *Service) ReplacePeerToken(ctx context.Context, req *switchboardv1.ReplacePeerTokenRequest) (*switchboardv1.ReplacePeerTokenResponse, error) {
	row, err := s.core.FromPeer(ctx, "connections/rotate", tokenField(req.GetFederationToken()))
	if err != nil {
		return nil, err
	}
	if err := s.core.NeedSecrets(); err != nil {
		return nil, err
	}
	sealed, err := s.core.Secrets.SealText(req.GetFederationToken(), network.PeerAAD(row.ID))
	if err != nil {
		return nil, apperr.Internal(err)
	}
	if err := s.core.DB.NetworkConnection.UpdateOneID(row.ID).SetPeerTokenSealed(sealed).Exec(ctx); err != nil {
		return nil, err
	}
	return &switchboardv1.ReplacePeerTokenResponse{}, nil
}

// tokenField checks a body's federationToken (a peer token, sbf_…) and the
// other required fields given as name, value pairs.
func tokenField(token string, others ...string) error {
	for i := 0; i+1 < len(others); i += 2 {
		if strings.TrimSpace(others[i+1]) == "" {
			return apperr.Invalid("%s is required", others[i])
		}
	}
	if token == "" {
		return apperr.Invalid("federationToken is required")
	}
	if !strings.HasPrefix(token, auth.PeerTokenPrefix) {
		return apperr.Invalid("federationToken must be a peer federation token (%s…)", auth.PeerTokenPrefix)
	}
	return nil
}
