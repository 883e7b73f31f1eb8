package network

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/networkpreference"
	"github.com/switchboard-hq/switchboard/ent/removedpeertoken"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
)

// The peers' side: NetworkPeerService. Every procedure answers 403 while
// the operator network is off, before reading anything else.

// fromPeer finds the connection whose issued token the call presents in
// X-Federation-Token. A missing token, another kind (a platform token, an
// API key) or an unknown one is 401; a connection whose origin has left a
// non-empty allowlist is 403. body is the request's own refusal (a missing
// field), answered after the switch and before the credential, as
// federation's routes do.
func (s *Core) fromPeer(ctx context.Context, route string, body error) (*ent.NetworkConnection, error) {
	w, err := s.on(ctx)
	if err != nil {
		return nil, err
	}
	if body != nil {
		return nil, body
	}
	hash, err := federation.HeaderToken(auth.CredentialsFrom(ctx).FederationToken, auth.PeerTokenPrefix, route)
	if err != nil {
		return nil, err
	}
	row, err := s.DB.NetworkConnection.Query().Where(networkconnection.TokenHash(hash)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, unknownToken(ctx, s.DB.Client, route, hash)
	}
	if err != nil {
		return nil, err
	}
	if err := admit(w, row.PeerInstanceURL); err != nil {
		return nil, err
	}
	return row, nil
}

// CallerConnection names the connection whose token a request presents, for
// the federation rate class (counted per connection); empty for anything
// else.
func (s *Peers) CallerConnection(ctx context.Context, r *http.Request) string {
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
func (s *Peers) ReceiveConnection(ctx context.Context, req *switchboardv1.ReceiveConnectionRequest) (*switchboardv1.ReceiveConnectionResponse, error) {
	w, err := s.core.on(ctx)
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
	if !validEmail(from) {
		return nil, apperr.Invalid("fromUserEmail %q is not an email address", req.GetFromUserEmail())
	}
	name, err := oneLineName("fromUserName", req.GetFromUserName())
	if err != nil {
		return nil, err
	}
	origin, err := s.core.peerOrigin(ctx, "fromInstanceUrl", req.GetFromInstanceUrl())
	if err != nil {
		return nil, err
	}
	if err := admit(w, origin); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(req.GetFederationToken(), auth.PeerTokenPrefix) {
		return nil, apperr.Unauthenticated("federationToken must be a peer federation token (%s…)", auth.PeerTokenPrefix)
	}
	if err := s.core.needSecrets(); err != nil {
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
	res := &switchboardv1.ReceiveConnectionResponse{Success: true, UserName: to.Name, InstanceName: s.core.instanceName()}
	err = s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		row, token, err := s.record(ctx, tx, to, peerFrom{origin, from, name}, req, auto && w.listed(origin))
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
func (s *Peers) record(ctx context.Context, tx *db.Tx, to *ent.User, p peerFrom,
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
	sealed, err := s.core.Secrets.SealText(req.GetFederationToken(), peerAAD(id))
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
		SetNillableMessage(optional(req.GetMessage())).SetPeerTokenSealed(sealed)
	var token string
	if accept {
		var hash string
		token, hash = auth.NewToken(auth.PeerTokenPrefix)
		create.SetStatus(networkconnection.StatusActive).SetTokenHash(hash).SetAcceptedAt(s.core.now())
	}
	row, err := create.Save(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := s.core.written(ctx, tx, row, "connection_created", "Connection request from"); err != nil {
		return nil, "", err
	}
	if accept {
		if err := s.core.written(ctx, tx, row, "connection_accepted", "Connected with"); err != nil {
			return nil, "", err
		}
	}
	return row, token, nil
}

// autoAccept is the user's auto-accept preference.
func (s *Peers) autoAccept(ctx context.Context, userID string) (bool, error) {
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
func (s *Peers) ConfirmConnection(ctx context.Context, req *switchboardv1.ConfirmConnectionRequest) (*switchboardv1.ConfirmConnectionResponse, error) {
	row, err := s.core.fromPeer(ctx, "connect/accept", tokenField(req.GetFederationToken(), "connectionId", req.GetConnectionId()))
	if err != nil {
		return nil, err
	}
	if req.GetConnectionId() != row.ID || row.Direction != networkconnection.DirectionOutbound {
		return nil, apperr.NotFound("no connection request %q from this instance holds that token", req.GetConnectionId())
	}
	if row.Status == networkconnection.StatusDeclined {
		return nil, apperr.IllegalMove("connection %s was declined", row.ID)
	}
	if err := s.core.needSecrets(); err != nil {
		return nil, err
	}
	err = s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		sealed, err := s.core.Secrets.SealText(req.GetFederationToken(), peerAAD(row.ID))
		if err != nil {
			return err
		}
		up := tx.NetworkConnection.UpdateOneID(row.ID).SetStatus(networkconnection.StatusActive).
			SetPeerTokenSealed(sealed).ClearPendingTokenSealed().ClearPendingUntil()
		if req.GetPeerConnectionId() != "" {
			up.SetPeerConnectionID(req.GetPeerConnectionId())
		}
		if row.AcceptedAt == nil {
			up.SetAcceptedAt(s.core.now())
		}
		saved, err := up.Save(ctx)
		if err != nil || row.Status == networkconnection.StatusActive {
			return err
		}
		return s.core.written(ctx, tx, saved, "connection_accepted", "Connected with")
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ConfirmConnectionResponse{Status: string(networkconnection.StatusActive)}, nil
}

// DropConnection is the peer's removal: the connection goes here too.
func (s *Peers) DropConnection(ctx context.Context, _ *switchboardv1.DropConnectionRequest) (*switchboardv1.DropConnectionResponse, error) {
	row, err := s.core.fromPeer(ctx, "connections/remove", nil)
	if err != nil {
		return nil, err
	}
	err = s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := removeConnection(ctx, tx, row); err != nil {
			return err
		}
		return s.core.written(ctx, tx, row, "connection_removed", "The connection was removed by")
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DropConnectionResponse{}, nil
}

// ReplacePeerToken is the peer's rotation: its new token replaces the one
// this side presents.
func (s *Peers) ReplacePeerToken(ctx context.Context, req *switchboardv1.ReplacePeerTokenRequest) (*switchboardv1.ReplacePeerTokenResponse, error) {
	row, err := s.core.fromPeer(ctx, "connections/rotate", tokenField(req.GetFederationToken()))
	if err != nil {
		return nil, err
	}
	if err := s.core.needSecrets(); err != nil {
		return nil, err
	}
	sealed, err := s.core.Secrets.SealText(req.GetFederationToken(), peerAAD(row.ID))
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

// removeConnection deletes a connection and remembers its token's hash for
// good, so that the peer still presenting it hears 404 ever after (RULINGS
// "A removed connection").
func removeConnection(ctx context.Context, tx *db.Tx, row *ent.NetworkConnection) error {
	if row.TokenHash != nil {
		if err := tx.RemovedPeerToken.Create().SetTokenHash(*row.TokenHash).Exec(ctx); err != nil {
			return err
		}
	}
	return tx.NetworkConnection.DeleteOneID(row.ID).Exec(ctx)
}

// unknownToken is the refusal of a token no connection holds: 404 when it
// was a removed connection's, else 401.
func unknownToken(ctx context.Context, client *ent.Client, route, hash string) error {
	removed, err := client.RemovedPeerToken.Query().Where(removedpeertoken.TokenHash(hash)).Exist(ctx)
	if err != nil {
		return err
	}
	if removed {
		return apperr.NotFound("%s: the connection of this federation token was removed", route)
	}
	return apperr.Unauthenticated("%s: invalid federation token", route)
}
