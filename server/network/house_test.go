package network_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// TestRelayWidgetResponseURLSharesOrigin: RULINGS "Details for the house
// issue": a relay's payload.widgetResponseUrl must share the connection's
// verified origin (scheme, host, port), else 400 naming the field and
// nothing is queued.
func TestRelayWidgetResponseURLSharesOrigin(t *testing.T) {
	t.Parallel()
	p := newRelayPair(t)
	a, err := url.Parse(p.a.URL)
	if err != nil {
		t.Fatal(err)
	}
	for i, bad := range []any{
		"https://elsewhere.example.com/widgets",
		"https://" + a.Host + "/widgets",                  // another scheme
		"http://" + a.Hostname() + ":1/widgets",           // another port
		"http://localhost.example.com:" + a.Port() + "/w", // another host
		42,
	} {
		res := p.direct("/api/v2/relay", map[string]any{"relayId": "bad-" + string(rune('a'+i)), "subject": "Answer here",
			"intent": "assign_task", "payload": map[string]any{"widgetResponseUrl": bad}})
		servertest.WantErrorContaining(t, res, http.StatusBadRequest, "payload.widgetResponseUrl")
	}
	if n := len(items(t, p.b)); n != 0 {
		t.Fatalf("refused relays queued %d items", n)
	}
	good := p.a.URL + "/api/relays/widget-response"
	res := p.direct("/api/v2/relay", map[string]any{"relayId": "good", "subject": "Answer here",
		"intent": "assign_task", "payload": map[string]any{"widgetResponseUrl": good}})
	servertest.WantStatus(t, res, http.StatusOK)
	list := items(t, p.b)
	if len(list) != 1 {
		t.Fatalf("B's queue: %d items", len(list))
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(list[0].Metadata), &meta); err != nil || meta["widgetResponseUrl"] != good {
		t.Fatalf("item metadata: %v %v", meta, err)
	}
}

// signer is a requester instance that verifies: it signs the nonce with the
// token it offers, as RULINGS "Federation" asks.
func signer(t *testing.T, token string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mac := hmac.New(sha256.New, []byte(token))
		mac.Write([]byte(r.URL.Query().Get("nonce")))
		_ = json.NewEncoder(w).Encode(map[string]string{"nonce": r.URL.Query().Get("nonce"), "signature": hex.EncodeToString(mac.Sum(nil))})
	}))
	t.Cleanup(s.Close)
	return s
}

// TestConnectionRequestAnswersSuccess: RULINGS "Answers keep document 2's
// fields": POST /api/v2/connections answers {success, connectionId,
// status}, on REST and Connect alike.
func TestConnectionRequestAnswersSuccess(t *testing.T) {
	t.Parallel()
	b := newInstance(t, "bob", on())
	const token = "sbf_offered-by-a-verifying-requester"
	from := signer(t, token)
	body := handshakeBody(from.URL, "bob@example.com")
	body["federationToken"] = token
	res := b.Anonymous().Do(http.MethodPost, "/api/v2/connections", body)
	servertest.WantStatus(t, res, http.StatusOK)
	if got := res.JSON(t); got["success"] != true || got["connectionId"] == "" || got["status"] != "pending" {
		t.Fatalf("REST answer: %s", res.Body)
	}
	c := switchboardv1connect.NewNetworkPeerServiceClient(b.HTTP, b.URL)
	out, err := c.ReceiveConnection(t.Context(), &switchboardv1.ReceiveConnectionRequest{FromInstanceUrl: from.URL,
		FromUserEmail: "mallory@m.example", FromUserName: "Mallory", ToUserEmail: "bob@example.com", FederationToken: token,
		ConnectionId: "c1"})
	if err != nil || !out.GetSuccess() || out.GetStatus() != "pending" {
		t.Fatalf("Connect answer (a repeat): %v %v", out, err)
	}
}

// TestRemovedConnectionTokenIs404: RULINGS "A removed connection": after a
// removal (on either side), the token the other side held is 404 for good,
// at every peer route; a token never issued stays 401.
func TestRemovedConnectionTokenIs404(t *testing.T) {
	t.Parallel()
	p := newRelayPair(t)
	// B removes; A is told and removes its copy too: each side's token is
	// then a removed one at the other.
	servertest.WantStatus(t, p.b.user.Session.Do(http.MethodDelete, "/api/federation/connections/"+p.connB, nil), http.StatusOK)
	servertest.WaitFor(t, "A told of the removal", func() bool { return len(p.a.connections(t)) == 0 })
	for _, path := range []string{"/api/v2/relay", "/api/federation/relay"} {
		res := p.direct(path, map[string]any{"relayId": "after-removal", "subject": "Still there?"})
		servertest.WantErrorContaining(t, res, http.StatusNotFound, "removed")
	}
	res := p.a.Anonymous().Do(http.MethodPost, "/api/federation/relay-ack", map[string]any{"relayId": "r1", "state": "accepted"},
		"X-Federation-Token", p.tokenAtA)
	servertest.WantError(t, res, http.StatusNotFound)
	res = p.b.Anonymous().Do(http.MethodPost, "/api/federation/relay", map[string]any{"relayId": "x", "subject": "Who?"},
		"X-Federation-Token", "sbf_never-issued-by-this-instance")
	servertest.WantError(t, res, http.StatusUnauthorized)
	// For good: the clock moving on changes nothing.
	p.b.Clock.Advance(365 * 24 * time.Hour)
	servertest.WantError(t, p.direct("/api/v2/relay", map[string]any{"relayId": "a-year-on", "subject": "Still there?"}), http.StatusNotFound)
}
