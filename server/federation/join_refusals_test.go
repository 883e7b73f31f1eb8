package federation_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// joinBoth joins over REST and over Connect and answers each refusal's
// status and message (a Connect refusal's code read as its REST status).
func joinBoth(t *testing.T, n *network, token string) [][2]any {
	t.Helper()
	body := map[string]any{"hubUrl": n.hub.URL, "connectToken": token, "name": "Spoke A"}
	res := n.spokeAdmin.Session.Do(http.MethodPost, "/api/federation/join", body)
	msg, _ := res.JSON(t)["error"].(string)
	out := [][2]any{{res.Status, msg}}
	c := switchboardv1connect.NewFederationServiceClient(&http.Client{Jar: n.spokeAdmin.Jar, Transport: n.spoke.HTTP.Transport}, n.spoke.URL)
	_, err := c.JoinHub(t.Context(), &switchboardv1.JoinHubRequest{HubUrl: n.hub.URL, ConnectToken: token, Name: proto.String("Spoke A")})
	var ce *connect.Error
	if !errors.As(err, &ce) {
		t.Fatalf("Connect join: %v", err)
	}
	status := map[connect.Code]int{connect.CodeInvalidArgument: http.StatusBadRequest}[ce.Code()]
	return append(out, [2]any{status, ce.Message()})
}

// TestJoinRefusalsNameTheFlag: issue 31: a hub and a spoke on loopback need
// --allow-private-endpoints on both. Without it on the spoke, its own check
// of hubUrl (a field the admin sent) names the flag; without it on the hub,
// the hub's refusal of the spoke's address reaches the admin as a refusal
// of this instance's --public-url, naming the flag and never baseUrl, a
// field the admin did not send. Both transports; nothing is joined.
func TestJoinRefusalsNameTheFlag(t *testing.T) {
	t.Parallel()
	const flag = "(private, loopback and link-local addresses need --allow-private-endpoints)"
	for _, tc := range []struct {
		name      string
		hub       []servertest.Option
		spoke     []servertest.Option
		want, not []string
	}{
		{"the spoke refuses the hub", []servertest.Option{servertest.WithRole("hub"), servertest.WithPrivateEndpoints()},
			[]servertest.Option{servertest.WithSelfPublicURL()},
			[]string{"hubUrl: its address is not allowed " + flag}, nil},
		{"the hub refuses the spoke", []servertest.Option{servertest.WithRole("hub")},
			[]servertest.Option{servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints()},
			[]string{"refused this instance's address ", " (--public-url): its address is not allowed " + flag},
			[]string{"baseUrl", "apiKey"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := &network{hub: servertest.New(t, tc.hub...), spoke: servertest.New(t, tc.spoke...)}
			n.hubAdmin, n.spokeAdmin = n.hub.SignUp("owner"), n.spoke.SignUp("owner")
			token := n.connectToken(t)
			for i, got := range joinBoth(t, n, token) {
				msg := got[1].(string)
				if got[0] != http.StatusBadRequest {
					t.Errorf("transport %d: %v %q, want 400", i, got[0], msg)
				}
				for _, w := range tc.want {
					if !strings.Contains(msg, w) {
						t.Errorf("transport %d: %q lacks %q", i, msg, w)
					}
				}
				for _, w := range tc.not {
					if strings.Contains(msg, w) {
						t.Errorf("transport %d: %q names %q", i, msg, w)
					}
				}
			}
			if len(n.instances(t)) != 0 {
				t.Fatalf("the hub recorded an instance: %v", n.instances(t))
			}
			if st := n.spokeAdmin.Session.Do(http.MethodGet, "/api/federation/status", nil).JSON(t)["status"].(map[string]any); st["joined"] == true {
				t.Fatalf("joined: %v", st)
			}
		})
	}
}
