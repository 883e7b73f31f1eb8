package network_test

import (
	"crypto/rand"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/internal/egress/egresstest"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// TestPeerURLsRefuseEveryPrivateSpelling: RULINGS "Input at the boundary" and
// "Security details": with private peers off, a peer address whose host
// spells a private address in any form a resolver accepts (the Unicode UTS-46
// maps to one included), or a host UTS-46 cannot map, is 400 naming the field
// before any call, on the operator's request and on a peer's handshake alike;
// nothing is written.
func TestPeerURLsRefuseEveryPrivateSpelling(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithNetwork(network.Config{Enabled: true}))
	u := s.SignUp("alice")
	for _, host := range append(slices.Clone(egresstest.PrivateHosts), egresstest.InvalidHosts...) {
		peer := "https://" + host
		t.Run(host, func(t *testing.T) {
			res := u.Session.Do(http.MethodPost, "/api/federation/connect", map[string]any{"peerInstanceUrl": peer, "peerUserEmail": "bob@example.com"})
			servertest.WantErrorContaining(t, res, http.StatusBadRequest, "peerInstanceUrl")
			res = s.Anonymous().Do(http.MethodPost, "/api/v2/connections", map[string]any{
				"fromInstanceUrl": peer, "fromUserEmail": "a@a.example", "toUserEmail": "alice@example.com",
				"federationToken": "sbf_x", "connectionId": "c1"})
			servertest.WantErrorContaining(t, res, http.StatusBadRequest, "fromInstanceUrl")
		})
	}
	if n := s.DB.NetworkConnection.Query().CountX(t.Context()); n != 0 {
		t.Fatalf("refused requests left %d rows", n)
	}
}

// TestUnreachablePeerWordedForPeople: RULINGS "Security details": a call to
// a peer that the dial guard refuses answers in words, with the peer's
// address as the operator gave it and never what its name resolved to, the
// guard's ranges or the resolver. A connected by the name localhost while
// private peers were allowed; restarted with them off, its rotation (a
// synchronous call) to that peer is refused at dial time (the save-time check
// saw it long ago). A relay goes through the outbox since the house issue
// (RULINGS "Details for the house issue"): it answers queued, and the
// outbox row's error is worded the same way.
func TestUnreachablePeerWordedForPeople(t *testing.T) {
	t.Parallel()
	key := make([]byte, secrets.KeySize)
	_, _ = rand.Read(key)
	d := dbtest.Open(t)
	a := servertest.New(t, servertest.WithDB(d), servertest.WithSecretKey(key), servertest.WithSelfPublicURL(),
		servertest.WithNetwork(network.Config{Enabled: true, AllowPrivate: true}))
	b := newInstance(t, "bob", on())
	alice := a.SignUp("alice")
	peer := strings.Replace(b.URL, "127.0.0.1", "localhost", 1)
	servertest.WantStatus(t, alice.Session.Do(http.MethodPost, "/api/federation/connect",
		map[string]any{"peerInstanceUrl": peer, "peerUserEmail": "bob@example.com"}), http.StatusCreated)
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPost, "/api/federation/connections/"+b.only(t).ID+"/accept",
		map[string]any{}), http.StatusOK)
	conn, err := d.NetworkConnection.Query().Only(t.Context())
	if err != nil || conn.PeerInstanceURL != peer {
		t.Fatalf("A's connection: %+v, %v", conn, err)
	}
	relays := alice.NewKey("relays", "network")
	a.App.Close()

	// The same instance, its database and key, with private peers off.
	a2 := servertest.New(t, servertest.WithDB(d), servertest.WithSecretKey(key), servertest.WithSelfPublicURL(),
		servertest.WithNetwork(network.Config{Enabled: true}))
	res := a2.WithKey(relays).Do(http.MethodPost, "/api/federation/relays",
		map[string]any{"connectionId": conn.ID, "subject": "Are you there?", "intent": "get_info"})
	servertest.WantStatus(t, res, http.StatusOK)
	if res.JSON(t)["delivery"] != "queued" {
		t.Fatalf("relay to a refused address: %s", res.Body)
	}
	row, err := d.WebhookDelivery.Query().Only(t.Context())
	if err != nil || row.LastError == nil {
		t.Fatalf("the relay's outbox row: %+v %v", row, err)
	}
	// Alice's session, kept in the database, on the restarted instance.
	u, _ := url.Parse(a.URL)
	var cookies []string
	for _, c := range alice.Jar.Cookies(u) {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	res = a2.Anonymous().Do(http.MethodPost, "/api/federation/connections/"+conn.ID+"/rotate", map[string]any{},
		"Cookie", strings.Join(cookies, "; "), "Origin", a2.URL)
	servertest.WantErrorContaining(t, res, http.StatusServiceUnavailable,
		"the peer at "+peer+" could not be reached: its address is not allowed")
	for _, leak := range []string{"127.0.0.1", "127.0.0.0/8", "denied by", "prohibited", "lookup", "dial tcp"} {
		if strings.Contains(string(res.Body), leak) || strings.Contains(*row.LastError, leak) {
			t.Errorf("the answer or the outbox row shows %q: %s / %s", leak, res.Body, *row.LastError)
		}
	}
}
