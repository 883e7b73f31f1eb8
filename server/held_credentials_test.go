package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// held is one valid credential of each kind the public procedures' handlers
// read themselves, on a hub whose operator network is on: the gate checks
// them before the body (server/credentials.go), so the input tables present
// them to reach the body.
type held struct {
	platform, hubSecret, peer, developer string
}

// holdCredentials makes a spoke instance known to the hub s (its platform
// token), a membership of s in a hub (this instance's secret), an active
// connection of a's (its federation token) and a's developer key.
func holdCredentials(t *testing.T, s *servertest.Server, a *servertest.Account) held {
	t.Helper()
	ctx := t.Context()
	token := func(prefix string) string { return prefix + strings.Repeat("x", 8) + ids.New() + ids.New() }
	h := held{platform: token("sbp_"), hubSecret: token("sbi_"), peer: token("sbf_")}
	if err := s.DB.FederationInstance.Create().SetName("Spoke").SetBaseURL("https://spoke.example").
		SetAPIKeyHash("unused").SetAPIKeySealed("unused").SetTokenHash(auth.HashToken(h.platform)).
		SetTokenPrefix(h.platform[:12]).SetStoreParticipation(true).SetRegisteredBy(a.ID).Exec(ctx); err != nil {
		t.Fatalf("instance: %v", err)
	}
	if err := s.DB.FederationMembership.Create().SetHubURL("https://hub.example").
		SetAPIKeyHash(auth.HashToken(h.hubSecret)).Exec(ctx); err != nil {
		t.Fatalf("membership: %v", err)
	}
	if err := s.DB.NetworkConnection.Create().SetUserID(a.ID).SetPeerInstanceURL("https://peer.example").
		SetPeerUserEmail("pat@peer.example").SetDirection(networkconnection.DirectionInbound).
		SetStatus(networkconnection.StatusActive).SetTokenHash(auth.HashToken(h.peer)).Exec(ctx); err != nil {
		t.Fatalf("connection: %v", err)
	}
	res := a.Session.Do(http.MethodPost, "/api/developer/keys", map[string]any{"label": "boundary"})
	h.developer, _ = res.JSON(t)["developerKey"].(string)
	if h.developer == "" {
		t.Fatalf("developer key: %d %s", res.Status, res.Body)
	}
	return h
}

// HeldCronSecret is the --cron-secret of the servers these tests start.
const HeldCronSecret = "cron-secret-of-the-test"

// headers are the credential headers p's handler reads, nil for none.
func (h held) headers(p *contract.Procedure) []string {
	switch svc := p.Name[:strings.LastIndex(p.Name, "/")+1]; {
	case p.Name == "/switchboard.v1.DeveloperService/RegisterDeveloperAgent",
		p.Name == "/switchboard.v1.DeveloperService/UpdateDeveloperAgent",
		p.Name == "/switchboard.v1.DeveloperService/RunDeveloperAgentTest":
		return []string{"Authorization", "Bearer " + h.developer}
	case svc == "/switchboard.v1.CronService/":
		return []string{"X-Cron-Secret", HeldCronSecret}
	case svc == "/switchboard.v1.FederationSpokeService/", svc == "/switchboard.v1.FederationDeliveryService/":
		return []string{"X-Federation-Token", h.hubSecret}
	case hubRoute(p):
		return []string{"Authorization", "Bearer " + h.platform}
	case peerRoute(p):
		return []string{"X-Federation-Token", h.peer}
	}
	return nil
}

// caller is an anonymous caller presenting p's credential headers.
func (h held) caller(s *servertest.Server, p *contract.Procedure) *servertest.Caller {
	c := s.Anonymous()
	hdr := h.headers(p)
	for i := 0; i+1 < len(hdr); i += 2 {
		c.Header().Set(hdr[i], hdr[i+1])
	}
	return c
}
