package network_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/gate"
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
	// The same over Connect.
	ctx, info := connect.NewClientContext(t.Context())
	info.RequestHeader().Set("X-Federation-Token", p.tokenAtB)
	bad, _ := structpb.NewStruct(map[string]any{"widgetResponseUrl": "https://elsewhere.example.com/widgets"})
	_, err = switchboardv1connect.NewNetworkRelayPeerServiceClient(p.b.HTTP, p.b.URL).ReceiveRelay(ctx,
		&switchboardv1.ReceiveRelayRequest{RelayId: "bad-connect", Subject: "Answer here", Intent: "assign_task", Payload: bad})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
	if err == nil || !strings.Contains(err.Error(), "payload.widgetResponseUrl") {
		t.Errorf("Connect refusal: %v", err)
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
	ctx, info := connect.NewClientContext(t.Context())
	info.RequestHeader().Set("X-Federation-Token", p.tokenAtB)
	_, err := switchboardv1connect.NewNetworkRelayPeerServiceClient(p.b.HTTP, p.b.URL).ReceiveRelay(ctx,
		&switchboardv1.ReceiveRelayRequest{RelayId: "after-removal-connect", Subject: "Still there?"})
	servertest.WantCode(t, err, connect.CodeNotFound)
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

// flaky is a peer's address that can be down: a proxy in front of an
// instance answering 503 while down, counting what it was asked.
type flaky struct {
	*httptest.Server
	down  atomic.Bool
	calls atomic.Int32
}

func newFlaky(t *testing.T, target string) *flaky {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	f := &flaky{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		if f.down.Load() {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

// TestSendsToPeerGoThroughTheOutbox: RULINGS "Details for the house issue"
// and "Federation" (outbound deliveries through the outbox): A's relay,
// notification and job to B are attempted at once and answer delivered when
// B took them; while B is down they answer 2xx queued, wait for the federation
// retry schedule on A's clock and reach B once it is back, once each. Five
// failed first attempts open A's breaker for the relay route: the next relay
// is queued without calling B, and goes once the breaker half-opens.
func TestSendsToPeerGoThroughTheOutbox(t *testing.T) {
	t.Parallel()
	limits := servertest.WithLimits(gate.Limits{PerKey: 100000, Auth: 100000, Heavy: 100000, Federation: 100000})
	a := newInstance(t, "alice", on(), servertest.WithPrivateEndpoints(), limits)
	b := newInstance(t, "bob", on(), servertest.WithPrivateEndpoints(), limits)
	bAddr := newFlaky(t, b.URL)
	servertest.WantStatus(t, a.user.Session.Do(http.MethodPost, "/api/federation/connect",
		map[string]any{"peerInstanceUrl": bAddr.URL, "peerUserEmail": "bob@example.com"}), http.StatusCreated)
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPost, "/api/federation/connections/"+b.only(t).ID+"/accept",
		map[string]any{}), http.StatusOK)
	conn := a.only(t).ID
	relay := func(subject string) map[string]any {
		t.Helper()
		res := a.user.Session.Do(http.MethodPost, "/api/federation/relays",
			map[string]any{"connectionId": conn, "subject": subject, "intent": "get_info"})
		servertest.WantStatus(t, res, http.StatusOK)
		return res.JSON(t)
	}
	received := func() int { return b.DB.Relay.Query().CountX(t.Context()) }

	// Up: delivered, with B's answer.
	if got := relay("While you are up"); got["delivery"] != "delivered" || got["answer"].(map[string]any)["task"] != true {
		t.Fatalf("relay to a peer that is up: %v", got)
	}

	// Down: queued, and nothing reached B.
	bAddr.down.Store(true)
	if got := relay("While you are down"); got["delivery"] != "queued" || got["answer"] != nil || got["relay"] == nil {
		t.Fatalf("relay to a peer that is down: %v", got)
	}
	res := a.user.Session.Do(http.MethodPost, "/api/federation/notify",
		map[string]any{"connectionId": conn, "type": "system_notice", "title": "The plan moved"})
	servertest.WantStatus(t, res, http.StatusOK)
	if got := res.JSON(t); got["delivery"] != "queued" {
		t.Fatalf("notification to a peer that is down: %v", got)
	}
	res = a.user.Session.Do(http.MethodPost, "/api/federation/jobs-board",
		map[string]any{"title": "Translate the deck", "description": "Forty slides into German"})
	servertest.WantStatus(t, res, http.StatusCreated)
	if d := res.JSON(t)["deliveries"].([]any); len(d) != 1 || d[0].(map[string]any)["delivery"] != "queued" || d[0].(map[string]any)["delivered"] != false {
		t.Fatalf("job to a peer that is down: %s", res.Body)
	}
	if n := received(); n != 1 {
		t.Fatalf("B received %d relays while down", n)
	}

	// Back: the retry schedule's first step on A's clock brings all three.
	bAddr.down.Store(false)
	// Moved on while waiting: the dispatcher may set its timer after a move.
	servertest.WaitFor(t, "the queued sends delivered", func() bool {
		a.Clock.Advance(31 * time.Second)
		return received() == 2 && b.DB.Notification.Query().CountX(t.Context()) == 1 && b.DB.Job.Query().CountX(t.Context()) == 1
	})
	servertest.WaitFor(t, "A's rows delivered", func() bool {
		return a.DB.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusDelivered)).CountX(t.Context()) == 4
	})

	// The breaker: five failed first attempts open it; the sixth relay is
	// queued without a call; all six reach B once it half-opens. What A
	// learned of B's protocol has grown old by then: B's document, unreadable
	// while B is down, is asked for once, not before every send.
	a.Clock.Advance(11 * time.Minute)
	bAddr.down.Store(true)
	for i := range 5 {
		if got := relay(fmt.Sprintf("Down again %d", i)); got["delivery"] != "queued" {
			t.Fatalf("relay %d: %v", i, got)
		}
	}
	before := bAddr.calls.Load()
	if got := relay("Breaker open"); got["delivery"] != "queued" || bAddr.calls.Load() != before {
		t.Fatalf("relay while the breaker is open: %v, %d calls to B", got, bAddr.calls.Load()-before)
	}
	bAddr.down.Store(false)
	servertest.WaitFor(t, "the six relays delivered", func() bool {
		a.Clock.Advance(61 * time.Second)
		return received() == 8
	})
	if got := relay("Closed again"); got["delivery"] != "delivered" {
		t.Fatalf("after the breaker closed: %v", got)
	}
}
