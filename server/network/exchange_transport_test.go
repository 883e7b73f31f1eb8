package network_test

import (
	"context"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// TestExchangeConnectTransports: the exchange's services over every Connect
// protocol with the generated clients (the REST twins are the other tests'):
// the key's capabilities, match and patterns, the session's notifications,
// and the refusals by code (RULINGS "The operator network"): a peer read of
// the patterns with a token of no connection is unauthenticated, never the
// caller's own answer, and so is a bad notification with that token.
func TestExchangeConnectTransports(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithNetwork(network.Config{Enabled: true, AllowPrivate: true}))
	u := s.SignUp("alice")
	key := u.NewKey("assistant", "network")
	ctx := context.Background()
	for protocol, opts := range servertest.Protocols() {
		t.Run(protocol, func(t *testing.T) {
			keyed := switchboardv1connect.NewNetworkExchangeServiceClient(s.Client(protocol), s.URL,
				append(opts, connect.WithInterceptors(servertest.BearerInterceptor(key)))...)
			declared, err := keyed.DeclareCapability(ctx, &switchboardv1.DeclareCapabilityRequest{TaskType: "review", Skills: []string{"Go"}})
			if err != nil || declared.GetCapability().GetTaskType() != "review" {
				t.Fatalf("declare: %v %v", declared, err)
			}
			matches, err := keyed.MatchJobs(ctx, &switchboardv1.MatchJobsRequest{})
			if err != nil || len(matches.GetMatches()) != 0 {
				t.Fatalf("match: %v %v", matches, err)
			}
			_, err = keyed.RemoveProviderCapability(ctx, &switchboardv1.RemoveProviderCapabilityRequest{Id: declared.GetCapability().GetId()})
			if err != nil {
				t.Fatalf("remove: %v", err)
			}
			_, err = keyed.RemoveProviderCapability(ctx, &switchboardv1.RemoveProviderCapabilityRequest{Id: declared.GetCapability().GetId()})
			servertest.WantCode(t, err, connect.CodeNotFound)
			_, err = keyed.DeclareCapability(ctx, &switchboardv1.DeclareCapabilityRequest{TaskType: "painting"})
			servertest.WantCode(t, err, connect.CodeInvalidArgument)
			_, err = keyed.ListNotifications(ctx, &switchboardv1.ListNotificationsRequest{})
			servertest.WantCode(t, err, connect.CodePermissionDenied) // the session's route
			if got, err := keyed.GetPatterns(ctx, &switchboardv1.GetPatternsRequest{}); err != nil || got.GetPatterns() == nil {
				t.Fatalf("patterns by key: %v %v", got, err)
			}

			hc := &http.Client{Jar: u.Jar, Transport: s.Client(protocol).Transport, Timeout: s.HTTP.Timeout}
			sess := switchboardv1connect.NewNetworkExchangeServiceClient(hc, s.URL, opts...)
			list, err := sess.ListNotifications(ctx, &switchboardv1.ListNotificationsRequest{Unread: true})
			if err != nil || len(list.GetNotifications()) != 0 || list.GetPagination().GetLimit() != 50 {
				t.Fatalf("notifications: %v %v", list, err)
			}
			_, err = sess.SendNotification(ctx, &switchboardv1.SendNotificationRequest{ConnectionId: "nope", Type: "mention", Title: "Hi"})
			servertest.WantCode(t, err, connect.CodeNotFound)

			pctx, info := connect.NewClientContext(ctx)
			info.RequestHeader().Set("X-Federation-Token", "sbf_no-connection")
			_, err = sess.GetPatterns(pctx, &switchboardv1.GetPatternsRequest{})
			servertest.WantCode(t, err, connect.CodeUnauthenticated)
			peer := switchboardv1connect.NewNetworkExchangePeerServiceClient(s.Client(protocol), s.URL, opts...)
			_, err = peer.ListSharedJobs(pctx, &switchboardv1.ListSharedJobsRequest{})
			servertest.WantCode(t, err, connect.CodeUnauthenticated)
			// The credential before the body (RULINGS "Credentials before
			// bodies"): a bad body with a token of no connection is
			// unauthenticated.
			_, err = peer.ReceiveNotification(pctx, &switchboardv1.ReceiveNotificationRequest{Type: "party", Title: "x"})
			servertest.WantCode(t, err, connect.CodeUnauthenticated)
		})
	}
}
