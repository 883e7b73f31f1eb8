package network

import (
	"context"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/notification"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network/rules"
	"github.com/switchboard-hq/switchboard/server/page"
)

// Notifications (RULINGS "The operator network": Notifications): a peer
// posts one for the connection's local user; the operator sends one to a
// connection's peer, lists and reads the received ones.

// ReceiveNotification takes a notification from the connection's peer for
// its local user. A sender or recipient named in the body that is not the
// connection's is 400, like a relay's.
func (s *Peers) ReceiveNotification(ctx context.Context, req *switchboardv1.ReceiveNotificationRequest) (*switchboardv1.ReceiveNotificationResponse, error) {
	row, err := s.core.fromActivePeer(ctx, "notifications", notificationBody(req.GetType(), req.GetTitle()))
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
	meta, err := metadataJSON(req.GetMetadata())
	if err != nil {
		return nil, err
	}
	// The sender is shown by the name recorded for the connection, never
	// the one a notification gives, except that profile_updated records
	// the name it gives (RULINGS "Security details", Reconciliation 9).
	name := shownName(row)
	profile := req.GetType() == rules.NotificationProfileUpdated
	if profile {
		if name, err = oneLineName("fromUserName", req.GetFromUserName()); err != nil {
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

// notificationBody is the request's own refusal: a type outside the
// vocabulary (the boundary refuses it first) or a missing title.
func notificationBody(typ, title string) error {
	if err := rules.CheckNotificationType(typ); err != nil {
		return err
	}
	if strings.TrimSpace(title) == "" {
		return apperr.Invalid("title is required")
	}
	return nil
}

// SendNotification sends one notification to an active connection's peer
// user and answers once the peer took it.
func (s *Operator) SendNotification(ctx context.Context, req *switchboardv1.SendNotificationRequest) (*switchboardv1.SendNotificationResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if err := notificationBody(req.GetType(), req.GetTitle()); err != nil {
		return nil, err
	}
	if _, err := metadataJSON(req.GetMetadata()); err != nil {
		return nil, err
	}
	row, _, err := s.activeOwned(ctx, req.GetConnectionId())
	if err != nil {
		return nil, err
	}
	me, err := s.core.DB.User.Get(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	res := &switchboardv1.ReceiveNotificationResponse{}
	delivery, err := s.core.toPeer(ctx, p.UserID, row, EventNotification, switchboardv1connect.NetworkExchangePeerServiceReceiveNotificationProcedure,
		&switchboardv1.ReceiveNotificationRequest{
			Type: req.GetType(), Title: req.GetTitle(), Body: req.GetBody(), Metadata: req.GetMetadata(),
			FromUserName: me.Name, FromUserEmail: me.Email, ToUserEmail: row.PeerUserEmail,
			Timestamp: timestamppb.New(s.core.now()),
		}, res)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.SendNotificationResponse{NotificationId: res.GetNotificationId(), Delivery: delivery}, nil
}

// ListNotifications pages the caller's notifications, newest first.
func (s *Operator) ListNotifications(ctx context.Context, req *switchboardv1.ListNotificationsRequest) (*switchboardv1.ListNotificationsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	mine := s.core.DB.Notification.Query().Where(notification.UserID(p.UserID))
	unread, err := mine.Clone().Where(notification.ReadAtIsNil()).Count(ctx)
	if err != nil {
		return nil, err
	}
	q := mine.Clone()
	if req.GetUnread() {
		q.Where(notification.ReadAtIsNil())
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := q.Order(ent.Desc(notification.FieldCreatedAt), ent.Desc(notification.FieldID)).
		Limit(pg.Limit).Offset(pg.Offset).All(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListNotificationsResponse{
		Notifications: lists.Map(rows, notificationProto), Pagination: pg.Of(total, len(rows)), UnreadCount: int32(unread),
	}, nil
}

// ReadNotification marks one of the caller's notifications read; another
// account's id is 404.
func (s *Operator) ReadNotification(ctx context.Context, req *switchboardv1.ReadNotificationRequest) (*switchboardv1.ReadNotificationResponse, error) {
	n, err := callerRow(ctx, "notification", req.GetId(), func(userID string) (*ent.Notification, error) {
		return s.core.DB.Notification.Query().Where(notification.ID(req.GetId()), notification.UserID(userID)).Only(ctx)
	})
	if err != nil {
		return nil, err
	}
	if n.ReadAt == nil {
		if n, err = n.Update().SetReadAt(s.core.now()).Save(ctx); err != nil {
			return nil, err
		}
	}
	return &switchboardv1.ReadNotificationResponse{Notification: notificationProto(n)}, nil
}

func notificationProto(n *ent.Notification) *switchboardv1.Notification {
	out := &switchboardv1.Notification{
		Id: n.ID, Type: string(n.Type), Title: n.Title, Body: n.Body, Metadata: metadataOf(n.Metadata),
		ConnectionId: n.ConnectionID, FromUserName: n.FromUserName, FromUserEmail: n.FromUserEmail,
		From: handle.Peer(n.FromUserEmail, n.FromInstanceURL), CreatedAt: timestamppb.New(n.CreatedAt),
	}
	if n.ReadAt != nil {
		out.ReadAt = timestamppb.New(*n.ReadAt)
	}
	return out
}
