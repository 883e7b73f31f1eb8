package network_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// connectBoth asks to connect over REST and over Connect and answers each
// refusal's status and message (Connect's invalid_argument read as 400).
func connectBoth(t *testing.T, s *servertest.Server, u *servertest.Account, peer string) [][2]any {
	t.Helper()
	res := u.Session.Do(http.MethodPost, "/api/federation/connect", map[string]any{"peerInstanceUrl": peer, "peerUserEmail": "bob@example.com"})
	msg, _ := res.JSON(t)["error"].(string)
	out := [][2]any{{res.Status, msg}}
	c := switchboardv1connect.NewNetworkServiceClient(&http.Client{Jar: u.Jar, Transport: s.HTTP.Transport}, s.URL)
	_, err := c.CreateConnection(t.Context(), &switchboardv1.CreateConnectionRequest{PeerInstanceUrl: peer, PeerUserEmail: "bob@example.com"})
	var ce *connect.Error
	if !errors.As(err, &ce) {
		t.Fatalf("Connect: %v", err)
	}
	status := map[connect.Code]int{connect.CodeInvalidArgument: http.StatusBadRequest}[ce.Code()]
	return append(out, [2]any{status, ce.Message()})
}

// TestConnectRefusalsNameTheFlag: issue 31: a refusal of a private or
// plain-http peer names the flag that would admit it,
// --federation-allow-private: the operator's own instance refusing the
// peerInstanceUrl they typed, and the peer refusing this instance's address
// (the handshake's fromInstanceUrl, which the operator never sent: it is
// this instance's --public-url and is named so). Both transports; nothing is
// kept on either side.
func TestConnectRefusalsNameTheFlag(t *testing.T) {
	t.Parallel()
	strict := servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithNetwork(network.Config{Enabled: true}))
	open := servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithNetwork(network.Config{Enabled: true, AllowPrivate: true}))
	strict.SignUp("bob")
	alice, carol := strict.SignUp("alice"), open.SignUp("carol")
	for _, tc := range []struct {
		name      string
		from      *servertest.Server
		user      *servertest.Account
		peer      string
		want, not []string
	}{
		{"a loopback peer", strict, alice, strings.Replace(open.URL, "http://", "https://", 1),
			[]string{"peerInstanceUrl: its address is not allowed (private, loopback and link-local addresses need --federation-allow-private)"}, nil},
		{"a plain-http peer", strict, alice, open.URL,
			[]string{"peerInstanceUrl: peers must be https:// (plain http only with --federation-allow-private)"}, nil},
		{"the peer refuses this instance", open, carol, strict.URL,
			[]string{"the peer at " + strict.URL + " refused this instance's address " + open.URL +
				" (--public-url): peers must be https:// (plain http only with --federation-allow-private)"},
			[]string{"fromInstanceUrl"}},
	} {
		for i, got := range connectBoth(t, tc.from, tc.user, tc.peer) {
			msg := got[1].(string)
			if got[0] != http.StatusBadRequest {
				t.Errorf("%s, transport %d: %v %q, want 400", tc.name, i, got[0], msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%s, transport %d: %q lacks %q", tc.name, i, msg, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(msg, w) {
					t.Errorf("%s, transport %d: %q names %q", tc.name, i, msg, w)
				}
			}
		}
	}
	for _, s := range []*servertest.Server{strict, open} {
		if n := s.DB.NetworkConnection.Query().CountX(t.Context()); n != 0 {
			t.Fatalf("%s kept %d connections", s.URL, n)
		}
	}
}
