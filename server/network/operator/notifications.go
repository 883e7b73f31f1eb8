package operator

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/notification"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/page"
)

// SendNotification sends one notification to an active connection's peer
// user and answers once the peer took it.
func (s *Service) SendNotification(ctx context.Context, req *switchboardv1.SendNotificationRequest) (*switchboardv1.SendNotificationResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if err := network.NotificationBody(req.GetType(), req.GetTitle()); err != nil {
		return nil, err
	}
	if _, err := network.MetadataJSON(req.GetMetadata()); err != nil {
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
	delivery, err := s.core.ToPeer(ctx, p.UserID, row, network.EventNotification, switchboardv1connect.NetworkExchangePeerServiceReceiveNotificationProcedure,
		&switchboardv1.ReceiveNotificationRequest{
			Type: req.GetType(), Title: req.GetTitle(), Body: req.GetBody(), Metadata: req.GetMetadata(),
			FromUserName: me.Name, FromUserEmail: me.Email, ToUserEmail: row.PeerUserEmail,
			Timestamp: timestamppb.New(s.core.NowUTC()),
		}, res)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.SendNotificationResponse{NotificationId: res.GetNotificationId(), Delivery: delivery}, nil
}

// ListNotifications pages the caller's notifications, newest first.
func (s *Service) ListNotifications(ctx context.Context, req *switchboardv1.ListNotificationsRequest) (*switchboardv1.ListNotificationsResponse, error) {
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
func (s *Service) ReadNotification(ctx context.Context, req *switchboardv1.ReadNotificationRequest) (*switchboardv1.ReadNotificationResponse, error) {
	n, err := network.CallerRow(ctx, "notification", req.GetId(), func(userID string) (*ent.Notification, error) {
		return s.core.DB.Notification.Query().Where(notification.ID(req.GetId()), notification.UserID(userID)).Only(ctx)
	})
	if err != nil {
		return nil, err
	}
	if n.ReadAt == nil {
		if n, err = n.Update().SetReadAt(s.core.NowUTC()).Save(ctx); err != nil {
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
	if n.ConnectionID == nil && n.FromInstanceURL == "" {
		out.From = "" // a local notification (a new learning) has no sender elsewhere
	}
	if n.ReadAt != nil {
		out.ReadAt = timestamppb.New(*n.ReadAt)
	}
	return out
}
