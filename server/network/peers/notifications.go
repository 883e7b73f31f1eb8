package peers

import (
	"context"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/notification"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/network/rules"
)

// Notifications (RULINGS "The operator network": Notifications): a peer
// posts one for the connection's local user; the operator sends one to a
// connection's peer, lists and reads the received ones.

// ReceiveNotification takes a notification from the connection's peer for
// its local user. A sender or recipient named in the body that is not the
// connection's is 400, like a relay's.
func (s *Service) ReceiveNotification(ctx context.Context, req *switchboardv1.ReceiveNotificationRequest) (*switchboardv1.ReceiveNotificationResponse, error) {
	row, err := s.core.FromActivePeer(ctx, "notifications", network.NotificationBody(req.GetType(), req.GetTitle()))
	if err != nil {
		return nil, err
	}
	if from := strings.TrimSpace(req.GetFromUserEmail()); from != "" && !strings.EqualFold(from, row.PeerUserEmail) {
		return nil, apperr.Invalid("fromUserEmail %q is not this connection's peer user", from)
	}
	if to := strings.TrimSpace(req.GetToUserEmail()); to != "" {
		me, err := s.core.DB.User.Query().Where(user.ID(row.UserID)).Only(ctx)
		if err != nil {
			return nil, err
		}
		if !strings.EqualFold(to, me.Email) {
			return nil, apperr.Invalid("toUserEmail %q is not this connection's local user", to)
		}
	}
	meta, err := network.MetadataJSON(req.GetMetadata())
	if err != nil {
		return nil, err
	}
	// The sender is shown by the name recorded for the connection, never
	// the one a notification gives, except that profile_updated records
	// the name it gives (RULINGS "Security details", Reconciliation 9).
	name := network.ShownName(row)
	profile := req.GetType() == rules.NotificationProfileUpdated
	if profile {
		if name, err = network.OneLineName("fromUserName", req.GetFromUserName()); err != nil {
			return nil, err
		}
		if name == "" {
			return nil, apperr.Invalid("fromUserName is required for %s: the sender's new name", rules.NotificationProfileUpdated)
		}
	}
	n, err := db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (*ent.Notification, error) {
		if profile {
			if err := tx.NetworkConnection.UpdateOneID(row.ID).SetPeerUserName(name).Exec(ctx); err != nil {
				return nil, err
			}
		}
		return tx.Notification.Create().SetUserID(row.UserID).SetConnectionID(row.ID).
			SetType(notification.Type(req.GetType())).SetTitle(req.GetTitle()).SetBody(req.GetBody()).
			SetMetadata(meta).SetFromUserName(name).SetFromUserEmail(row.PeerUserEmail).
			SetFromInstanceURL(row.PeerInstanceURL).Save(ctx)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ReceiveNotificationResponse{NotificationId: n.ID}, nil
}
