package operator

import (
	"context"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/network"
)

// CreateConnection asks a user on another instance to connect.
func (s *Service) CreateConnection(ctx context.Context, req *switchboardv1.CreateConnectionRequest) (*switchboardv1.CreateConnectionResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	w, err := s.core.SwitchOn(ctx)
	if err != nil {
		return nil, err
	}
	email := strings.ToLower(strings.TrimSpace(req.GetPeerUserEmail()))
	if strings.TrimSpace(req.GetPeerInstanceUrl()) == "" || email == "" {
		return nil, apperr.Invalid("peerInstanceUrl and peerUserEmail are required")
	}
	if !network.ValidEmail(email) {
		return nil, apperr.Invalid("peerUserEmail %q is not an email address", req.GetPeerUserEmail())
	}
	origin, err := s.core.PeerOrigin(ctx, "peerInstanceUrl", req.GetPeerInstanceUrl())
	if err != nil {
		return nil, err
	}
	if err := network.Admit(w, origin); err != nil {
		return nil, err
	}
	self, err := s.core.SelfOrigin()
	if err != nil {
		return nil, err
	}
	if origin == self {
		return nil, apperr.Invalid("peerInstanceUrl is this instance: connections join users on different instances")
	}
	if err := s.core.NeedSecrets(); err != nil {
		return nil, err
	}
	me, err := s.core.DB.User.Get(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	prior, err := s.core.DB.NetworkConnection.Query().Where(networkconnection.UserID(p.UserID),
		networkconnection.PeerInstanceURL(origin), networkconnection.PeerUserEmail(email)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		prior = nil
	case err != nil:
		return nil, err
	case prior.Status == networkconnection.StatusActive:
		return &switchboardv1.CreateConnectionResponse{Connection: network.ConnectionProto(prior)}, nil
	case prior.Direction == networkconnection.DirectionInbound:
		return nil, apperr.Conflict("%s has already asked to connect (connection %s): accept or decline it", handle.Peer(email, origin), prior.ID)
	}
	token, hash := auth.NewToken(auth.PeerTokenPrefix)
	// The issued token is committed before the call, so that whichever
	// replica the peer's verification reaches can answer it.
	row, err := db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (*ent.NetworkConnection, error) {
		id := ids.New()
		if prior != nil {
			id = prior.ID
		}
		sealed, err := s.core.Secrets.SealText(token, network.PendingAAD(id))
		if err != nil {
			return nil, err
		}
		until := s.core.NowUTC().Add(pendingFor)
		if prior != nil {
			return tx.NetworkConnection.UpdateOneID(prior.ID).SetTokenHash(hash).SetPendingTokenSealed(sealed).SetPendingUntil(until).
				SetNillableMessage(network.Optional(req.GetMessage())).Save(ctx)
		}
		return tx.NetworkConnection.Create().SetID(id).SetUserID(p.UserID).SetPeerInstanceURL(origin).
			SetPeerUserEmail(email).SetDirection(networkconnection.DirectionOutbound).
			SetNillableMessage(network.Optional(req.GetMessage())).SetTokenHash(hash).
			SetPendingTokenSealed(sealed).SetPendingUntil(until).Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	res, err := s.core.Peer(ctx, origin).ReceiveConnection(ctx, &switchboardv1.ReceiveConnectionRequest{
		FromInstanceUrl: self, FromUserEmail: me.Email, FromUserName: me.Name, FromInstanceName: s.core.InstanceName(),
		ToUserEmail: email, FederationToken: token, ConnectionId: row.ID, Message: req.GetMessage(),
	})
	if err != nil {
		cleanup := context.WithoutCancel(ctx)
		if prior == nil {
			_ = s.core.DB.NetworkConnection.DeleteOneID(row.ID).Exec(cleanup)
		} else {
			// The peer kept the token it had: it stays the one this side checks.
			_ = s.core.DB.NetworkConnection.UpdateOneID(row.ID).ClearPendingTokenSealed().ClearPendingUntil().
				SetNillableTokenHash(prior.TokenHash).Exec(cleanup)
		}
		// fromInstanceUrl is this instance's --public-url, not the operator's.
		return nil, federation.OwnField(network.PeerError(origin, err), "fromInstanceUrl", "this instance's address "+self+" (--public-url)")
	}
	row, err = db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (*ent.NetworkConnection, error) {
		return s.answered(ctx, tx, row, res, prior == nil)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateConnectionResponse{Connection: network.ConnectionProto(row), Created: prior == nil}, nil
}

// answered records the peer's answer to a request: its id and names, and,
// when it accepted at once, its token.
func (s *Service) answered(ctx context.Context, tx *db.Tx, row *ent.NetworkConnection,
	res *switchboardv1.ReceiveConnectionResponse, created bool) (*ent.NetworkConnection, error) {
	// A name that is not a line of text is not recorded: the peer is shown
	// by its email instead.
	name, bad := recordedName("userName", res.GetUserName())
	if bad != nil {
		name = ""
	}
	up := tx.NetworkConnection.UpdateOneID(row.ID).ClearPendingTokenSealed().ClearPendingUntil().
		SetPeerConnectionID(res.GetConnectionId()).SetPeerUserName(name).
		SetPeerInstanceName(res.GetInstanceName())
	accepted := false
	switch res.GetStatus() {
	case string(networkconnection.StatusActive):
		token := res.GetFederationToken()
		if !strings.HasPrefix(token, auth.PeerTokenPrefix) {
			return nil, apperr.Invalid("the peer accepted without a federation token")
		}
		sealed, err := s.core.Secrets.SealText(token, network.PeerAAD(row.ID))
		if err != nil {
			return nil, err
		}
		up.SetStatus(networkconnection.StatusActive).SetPeerTokenSealed(sealed)
		if row.AcceptedAt == nil {
			up.SetAcceptedAt(s.core.NowUTC())
			accepted = true
		}
	case string(networkconnection.StatusDeclined):
		up.SetStatus(networkconnection.StatusDeclined)
	}
	row, err := up.Save(ctx)
	if err != nil {
		return nil, err
	}
	if created {
		if err := s.core.Written(ctx, tx, row, "connection_created", "Asked to connect with"); err != nil {
			return nil, err
		}
	}
	if accepted {
		if err := s.core.Written(ctx, tx, row, "connection_accepted", "Connected with"); err != nil {
			return nil, err
		}
	}
	return row, nil
}

// ListConnections lists the caller's connections by status, newest first.
func (s *Service) ListConnections(ctx context.Context, req *switchboardv1.ListConnectionsRequest) (*switchboardv1.ListConnectionsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	q := s.core.DB.NetworkConnection.Query().Where(networkconnection.UserID(p.UserID))
	switch req.GetStatus() {
	case string(vocab.ConnectionFilterPending):
		q.Where(networkconnection.StatusEQ(networkconnection.StatusPending))
	case string(vocab.ConnectionFilterActive):
		q.Where(networkconnection.StatusEQ(networkconnection.StatusActive))
	}
	rows, err := q.Order(ent.Desc(networkconnection.FieldCreatedAt), ent.Desc(networkconnection.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	w, err := s.core.Switch(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListConnectionsResponse{Connections: lists.Map(rows, network.ConnectionProto), NetworkEnabled: w.Enabled}, nil
}

// ListActiveConnections lists the key's account's active connections.
func (s *Service) ListActiveConnections(ctx context.Context, _ *switchboardv1.ListActiveConnectionsRequest) (*switchboardv1.ListActiveConnectionsResponse, error) {
	res, err := s.ListConnections(ctx, &switchboardv1.ListConnectionsRequest{Status: string(vocab.ConnectionFilterActive)})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListActiveConnectionsResponse{Connections: res.GetConnections()}, nil
}

// AcceptConnection accepts a pending request from a peer.
func (s *Service) AcceptConnection(ctx context.Context, req *switchboardv1.AcceptConnectionRequest) (*switchboardv1.AcceptConnectionResponse, error) {
	row, err := s.core.Owned(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	if row.Direction != networkconnection.DirectionInbound || row.Status != networkconnection.StatusPending {
		return nil, apperr.IllegalMove("only a pending request from a peer can be accepted; this one is %s %s", row.Direction, row.Status)
	}
	w, err := s.core.SwitchOn(ctx)
	if err != nil {
		return nil, err
	}
	if err := network.Admit(w, row.PeerInstanceURL); err != nil {
		return nil, err
	}
	theirs, err := s.core.PeerToken(row)
	if err != nil {
		return nil, err
	}
	token, hash := auth.NewToken(auth.PeerTokenPrefix)
	_, err = s.core.Peer(ctx, row.PeerInstanceURL).ConfirmConnection(withToken(ctx, theirs), &switchboardv1.ConfirmConnectionRequest{
		ConnectionId: network.Deref(row.PeerConnectionID), FederationToken: token, PeerConnectionId: row.ID,
	})
	if err != nil {
		return nil, network.PeerError(row.PeerInstanceURL, err)
	}
	row, err = db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (*ent.NetworkConnection, error) {
		row, err := tx.NetworkConnection.UpdateOneID(row.ID).SetStatus(networkconnection.StatusActive).
			SetTokenHash(hash).SetAcceptedAt(s.core.NowUTC()).Save(ctx)
		if err != nil {
			return nil, err
		}
		return row, s.core.Written(ctx, tx, row, "connection_accepted", "Connected with")
	})
	if err != nil {
		return nil, err
	}
	// Learn the new peer's patterns now (RULINGS: fetched on connect); the
	// requester learns this side's on its next refresh pass.
	s.learnQuietly(ctx, row)
	return &switchboardv1.AcceptConnectionResponse{Connection: network.ConnectionProto(row)}, nil
}

// DeclineConnection declines a pending request from a peer. The peer is
// not told; its request stays pending there until its operator removes it,
// or asks again and hears "declined".
func (s *Service) DeclineConnection(ctx context.Context, req *switchboardv1.DeclineConnectionRequest) (*switchboardv1.DeclineConnectionResponse, error) {
	row, err := s.core.Owned(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	if row.Direction != networkconnection.DirectionInbound || row.Status != networkconnection.StatusPending {
		return nil, apperr.IllegalMove("only a pending request from a peer can be declined; this one is %s %s", row.Direction, row.Status)
	}
	row, err = db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (*ent.NetworkConnection, error) {
		row, err := tx.NetworkConnection.UpdateOneID(row.ID).SetStatus(networkconnection.StatusDeclined).Save(ctx)
		if err != nil {
			return nil, err
		}
		// The activity names no decline (issue 15); the operator's views
		// still follow it.
		return row, tx.Publish(ctx, network.ConnectionDeclined{Connection: row})
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeclineConnectionResponse{Connection: network.ConnectionProto(row)}, nil
}

// RemoveConnection removes a connection here and tells the peer when this
// side holds a token of the peer's to tell it with. An unreachable peer does
// not keep the connection: it is removed here anyway (peerTold false).
func (s *Service) RemoveConnection(ctx context.Context, req *switchboardv1.RemoveConnectionRequest) (*switchboardv1.RemoveConnectionResponse, error) {
	row, err := s.core.Owned(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	told := false
	if row.PeerTokenSealed != nil {
		theirs, err := s.core.PeerToken(row)
		if err != nil {
			return nil, err
		}
		_, err = s.core.Peer(ctx, row.PeerInstanceURL).DropConnection(withToken(ctx, theirs), &switchboardv1.DropConnectionRequest{})
		if err != nil {
			s.core.Logger.WarnContext(ctx, "network: the peer was not told of a removal", "connection", row.ID,
				"peer", row.PeerInstanceURL, "error", err)
		}
		told = err == nil
	}
	err = s.core.DB.InTx(ctx, func(tx *db.Tx) error {
		if err := network.RemoveConnection(ctx, tx, row); err != nil {
			return err
		}
		return s.core.Written(ctx, tx, row, "connection_removed", "Removed the connection with")
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RemoveConnectionResponse{PeerTold: told}, nil
}

// UpdateConnection sets a connection's trust level; only its owner reaches
// it (another account's id is 404).
func (s *Service) UpdateConnection(ctx context.Context, req *switchboardv1.UpdateConnectionRequest) (*switchboardv1.UpdateConnectionResponse, error) {
	if req.GetTrustLevel() == "" {
		return nil, apperr.Invalid("trustLevel is required")
	}
	row, err := s.core.Owned(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	row, err = row.Update().SetTrustLevel(networkconnection.TrustLevel(req.GetTrustLevel())).Save(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.UpdateConnectionResponse{Connection: network.ConnectionProto(row)}, nil
}

// RotateConnection issues a new token for an active connection and hands it
// to the peer first: if the peer cannot be told, nothing changes (503).
func (s *Service) RotateConnection(ctx context.Context, req *switchboardv1.RotateConnectionRequest) (*switchboardv1.RotateConnectionResponse, error) {
	row, err := s.core.Owned(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	if row.Status != networkconnection.StatusActive {
		return nil, apperr.IllegalMove("only an active connection's token can be rotated; this one is %s", row.Status)
	}
	if _, err := s.core.SwitchOn(ctx); err != nil {
		return nil, err
	}
	theirs, err := s.core.PeerToken(row)
	if err != nil {
		return nil, err
	}
	token, hash := auth.NewToken(auth.PeerTokenPrefix)
	_, err = s.core.Peer(ctx, row.PeerInstanceURL).ReplacePeerToken(withToken(ctx, theirs), &switchboardv1.ReplacePeerTokenRequest{FederationToken: token})
	if err != nil {
		return nil, network.PeerError(row.PeerInstanceURL, err)
	}
	row, err = row.Update().SetTokenHash(hash).Save(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RotateConnectionResponse{Connection: network.ConnectionProto(row)}, nil
}
