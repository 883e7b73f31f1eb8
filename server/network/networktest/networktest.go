// Package networktest makes operator-network instances and connections
// between them for tests of other packages (the MCP door's network tools):
// real servers on loopback, connected through the real handshake.
package networktest

import (
	"net/http"
	"testing"

	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Options are a server's options for the operator network: on, private
// peers admitted, and a public URL peers verify.
func Options() []servertest.Option {
	return []servertest.Option{servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints(),
		servertest.WithNetwork(network.Config{Enabled: true, AllowPrivate: true})}
}

// Connect makes from's user ask to's user and to's user accept: both
// active. It answers each side's id of the connection.
func Connect(t *testing.T, from *servertest.Server, fromUser *servertest.Account, to *servertest.Server, toUser *servertest.Account) (fromID, toID string) {
	t.Helper()
	res := fromUser.Session.Do(http.MethodPost, "/api/federation/connect",
		map[string]any{"peerInstanceUrl": to.URL, "peerUserEmail": toUser.Email, "message": "let us work together"})
	servertest.WantStatus(t, res, http.StatusCreated)
	fromID = res.JSON(t)["connection"].(map[string]any)["id"].(string)
	res = toUser.Session.Do(http.MethodGet, "/api/federation/connections?status=pending", nil)
	for _, c := range res.JSON(t)["connections"].([]any) {
		if c := c.(map[string]any); c["peerInstanceUrl"] == from.URL {
			toID = c["id"].(string)
		}
	}
	if toID == "" {
		t.Fatalf("no pending request at %s: %s", to.URL, res.Body)
	}
	servertest.WantStatus(t, toUser.Session.Do(http.MethodPost, "/api/federation/connections/"+toID+"/accept", map[string]any{}), http.StatusOK)
	return fromID, toID
}
