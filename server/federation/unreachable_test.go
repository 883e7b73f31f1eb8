package federation_test

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// TestUnreachableHubWordedForPeople: RULINGS "Security details": a hub that
// cannot be reached is told to the admin in words, with the hub's address as
// the admin gave it and never what its name resolved to or the dial error.
func TestUnreachableHubWordedForPeople(t *testing.T) {
	t.Parallel()
	spoke := servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints())
	admin := spoke.SignUp("owner")
	// A closed port on loopback, named by the name that resolves to it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	_ = ln.Close()
	hub := "http://localhost:" + port
	res := admin.Session.Do(http.MethodPost, "/api/federation/join", map[string]any{"hubUrl": hub, "connectToken": "fct_x"})
	servertest.WantErrorContaining(t, res, http.StatusServiceUnavailable, "the hub at "+hub+" could not be reached: the connection was refused")
	for _, leak := range []string{"127.0.0.1", "::1", "dial tcp", "connect:", "unavailable:"} {
		if strings.Contains(string(res.Body), leak) {
			t.Errorf("the answer shows %q: %s", leak, res.Body)
		}
	}
}
