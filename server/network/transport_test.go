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

// TestConnectTransports: the services over every Connect protocol with the
// generated clients (the REST twins are the other tests'): the session's
// preferences, the key's active connections, and the peer service's
// refusals by code (RULINGS "The operator network").
func TestConnectTransports(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithNetwork(network.Config{Enabled: true, AllowPrivate: true}))
	u := s.SignUp("alice")
	key := u.NewKey("assistant", "network")
	ctx := context.Background()
	for protocol, opts := range servertest.Protocols() {
		t.Run(protocol, func(t *testing.T) {
			hc := &http.Client{Jar: u.Jar, Transport: s.Client(protocol).Transport, Timeout: s.HTTP.Timeout}
			sess := switchboardv1connect.NewNetworkServiceClient(hc, s.URL, opts...)
			set, err := sess.UpdateNetworkPreferences(ctx, &switchboardv1.UpdateNetworkPreferencesRequest{
				AutoAccept: true, MutedTopics: []string{"sales"}, QuietHours: &switchboardv1.QuietHours{Start: "22:00", End: "06:00"}})
			if err != nil || !set.GetPreferences().GetAutoAccept() || set.GetPreferences().GetQuietHours().GetTimeZone() != "UTC" {
				t.Fatalf("update preferences: %v %v", set, err)
			}
			got, err := sess.GetNetworkPreferences(ctx, &switchboardv1.GetNetworkPreferencesRequest{})
			if err != nil || got.GetPreferences().GetMaxOpenRelays() != network.DefaultMaxOpenRelays || len(got.GetPreferences().GetMutedTopics()) != 1 {
				t.Fatalf("preferences: %v %v", got, err)
			}
			_, err = sess.UpdateConnection(ctx, &switchboardv1.UpdateConnectionRequest{Id: "nope", TrustLevel: "trusted"})
			servertest.WantCode(t, err, connect.CodeNotFound)

			keyed := switchboardv1connect.NewNetworkServiceClient(s.Client(protocol), s.URL,
				append(opts, connect.WithInterceptors(servertest.BearerInterceptor(key)))...)
			list, err := keyed.ListActiveConnections(ctx, &switchboardv1.ListActiveConnectionsRequest{})
			if err != nil || len(list.GetConnections()) != 0 {
				t.Fatalf("active connections: %v %v", list, err)
			}
			_, err = keyed.ListConnections(ctx, &switchboardv1.ListConnectionsRequest{})
			servertest.WantCode(t, err, connect.CodePermissionDenied) // the session's route

			peer := switchboardv1connect.NewNetworkPeerServiceClient(s.Client(protocol), s.URL, opts...)
			pctx, info := connect.NewClientContext(ctx)
			info.RequestHeader().Set("X-Federation-Token", "sbp_platform")
			_, err = peer.ReplacePeerToken(pctx, &switchboardv1.ReplacePeerTokenRequest{FederationToken: "sbf_new"})
			servertest.WantCode(t, err, connect.CodeUnauthenticated)
			_, err = peer.ReceiveConnection(ctx, &switchboardv1.ReceiveConnectionRequest{FromInstanceUrl: "http://127.0.0.1:1",
				FromUserEmail: "pat@peer.example", ToUserEmail: "nobody@example.com", FederationToken: "sbf_x", ConnectionId: "c1"})
			servertest.WantCode(t, err, connect.CodeNotFound)
		})
	}
}
