package network_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	"github.com/switchboard-hq/switchboard/ent/relay"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The operator network's part of issue 35: the handshake tells no one which
// emails have accounts (point 4), threads belong to their connection and the
// sender is shown by the name recorded for the connection (point 6).

// wrongSigner is a fake instance on loopback that answers every
// verification with the nonce and a signature made with no token it was
// offered; asked counts the verifications it was asked for.
func wrongSigner(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var asked atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]string{"nonce": r.URL.Query().Get("nonce"), "signature": strings.Repeat("0", 64)})
	}))
	t.Cleanup(s.Close)
	return s, &asked
}

// handshakeBody is a connection request as an instance at from sends it for to.
func handshakeBody(from, to string) map[string]any {
	return map[string]any{"fromInstanceUrl": from, "fromUserEmail": "mallory@m.example", "fromUserName": "Mallory",
		"toUserEmail": to, "federationToken": "sbf_offered", "connectionId": "c1"}
}

// TestHandshakeAnswersAlikeForMissingAndExistingUsers: issue 35 point 4 and
// RULINGS "Security details" (the caller is verified before any user lookup;
// an unverified caller and a missing user get the same answer) with
// Reconciliation 14 (both 404). A fake instance that signs wrongly asks B
// for a user B does not have and for one it has: the same status and the
// same body, on REST and on Connect, and the missing user's request was
// verified first (the fake was asked). A caller that is down answers alike.
// A verified caller (A's operator) asking for a missing user hears 404 too.
// Nothing is recorded.
func TestHandshakeAnswersAlikeForMissingAndExistingUsers(t *testing.T) {
	t.Parallel()
	a, b := newInstance(t, "alice", on()), newInstance(t, "bob", on())
	wrong, asked := wrongSigner(t)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()

	type answer struct {
		status int
		body   string
	}
	ask := func(path, from, to string) answer {
		t.Helper()
		res := b.Anonymous().Do(http.MethodPost, path, handshakeBody(from, to))
		return answer{res.Status, string(res.Body)}
	}
	for _, path := range []string{"/api/v2/connections", switchboardv1connect.NetworkPeerServiceReceiveConnectionProcedure} {
		before := asked.Load()
		missing := ask(path, wrong.URL, "nobody@example.com")
		if asked.Load() != before+1 {
			t.Fatalf("%s: B answered a missing user without verifying the caller first", path)
		}
		if missing.status != http.StatusNotFound {
			t.Fatalf("%s, missing user: %d %s", path, missing.status, missing.body)
		}
		for name, got := range map[string]answer{
			"existing user, caller signs wrongly": ask(path, wrong.URL, "bob@example.com"),
			"existing user, caller down":          ask(path, down.URL, "bob@example.com"),
			"missing user, caller down":           ask(path, down.URL, "nobody@example.com"),
		} {
			if got != missing {
				t.Fatalf("%s, %s:\n%d %s\nthe missing user's answer:\n%d %s", path, name, got.status, got.body, missing.status, missing.body)
			}
		}
	}
	// A's operator asks for a user B lacks: A verifies, the user is missing.
	servertest.WantError(t, connectTo(t, a, b, "nobody@example.com"), http.StatusNotFound)
	if n := len(a.connections(t)) + len(b.connections(t)); n != 0 {
		t.Fatalf("refused handshakes left %d rows", n)
	}
	if n := b.activity(t, "connection_created"); n != 0 {
		t.Fatalf("refused handshakes wrote %d activity entries", n)
	}
}

// TestHandshakeLimitedPerCallingOrigin: RULINGS "Security details"
// (handshakes are limited per calling origin in the auth class). With the
// auth class at 3 a minute, a fourth handshake naming one origin is 429 with
// Retry-After on both transports, however the origin is spelled, and B does
// not call that origin again; another origin from the same address is still
// heard, and the address's own auth window (logins) is not spent by them.
func TestHandshakeLimitedPerCallingOrigin(t *testing.T) {
	t.Parallel()
	b := newInstance(t, "bob", on(), servertest.WithLimits(gate.Limits{PerKey: 100000, Auth: 3, Heavy: 100000, Federation: 100000}))
	wrong, asked := wrongSigner(t)
	other, otherAsked := wrongSigner(t)
	for i := range 3 {
		servertest.WantError(t, b.Anonymous().Do(http.MethodPost, "/api/v2/connections", handshakeBody(wrong.URL, "bob@example.com")), http.StatusNotFound)
		if asked.Load() != int32(i+1) {
			t.Fatalf("handshake %d: the caller was asked %d times", i+1, asked.Load())
		}
	}
	upper := strings.Replace(wrong.URL, "http://", "HTTP://", 1)
	for _, path := range []string{"/api/v2/connections", switchboardv1connect.NetworkPeerServiceReceiveConnectionProcedure} {
		res := b.Anonymous().Do(http.MethodPost, path, handshakeBody(upper, "bob@example.com"))
		servertest.WantStatus(t, res, http.StatusTooManyRequests)
		if res.Header.Get("Retry-After") == "" {
			t.Fatalf("%s: 429 without Retry-After", path)
		}
	}
	if asked.Load() != 3 {
		t.Fatalf("a limited handshake still called the origin: %d verifications", asked.Load())
	}
	servertest.WantError(t, b.Anonymous().Do(http.MethodPost, "/api/v2/connections", handshakeBody(other.URL, "bob@example.com")), http.StatusNotFound)
	if otherAsked.Load() != 1 {
		t.Fatal("another origin was not heard")
	}
	servertest.WantStatus(t, b.Anonymous().Do(http.MethodPost, "/api/auth/login",
		map[string]any{"username": "bob", "password": servertest.Password}), http.StatusOK)
	if n := len(b.connections(t)); n != 0 {
		t.Fatalf("B recorded %d", n)
	}
}

// threeInstances is A's alice connected to B's bob and to C's carol, each
// through the real handshake, with a thread between A and B: A's request
// relay and B's response in it.
type threeInstances struct {
	a, b, c *instance
	// aToB, aToC are A's ids of its connections; bToA, cToA the peers'.
	aToB, aToC, bToA, cToA string
	// thread is the A–B thread's id, first the id of A's request in it.
	thread, first string
}

func newThreeInstances(t *testing.T) *threeInstances {
	t.Helper()
	limits := servertest.WithLimits(gate.Limits{PerKey: 100000, Auth: 100000, Heavy: 100000, Federation: 100000})
	w := &threeInstances{a: newInstance(t, "alice", on(), limits), b: newInstance(t, "bob", on(), limits),
		c: newInstance(t, "carol", on(), limits)}
	w.bToA, w.aToB = connected(t, w.b, w.a)
	w.cToA, w.aToC = connected(t, w.c, w.a)
	res := w.a.user.Session.Do(http.MethodPost, "/api/federation/relays", map[string]any{"connectionId": w.aToB,
		"subject": "Send the signed contract", "intent": "get_info"})
	servertest.WantStatus(t, res, http.StatusOK)
	sent := object(t, res, "relay")
	w.first, w.thread = sent["relayId"].(string), sent["threadId"].(string)
	// Bob answers in the thread, as the dashboard's Reply does.
	res = w.b.user.Session.Do(http.MethodPost, "/api/federation/relays", map[string]any{"connectionId": w.bToA,
		"subject": "Re: Send the signed contract", "type": "response", "threadId": w.thread, "parentRelayId": w.first})
	servertest.WantStatus(t, res, http.StatusOK)
	return w
}

// relaysAndMessages counts what a relay could add to at in: relays, its
// user's comms messages, queue items.
func (in *instance) relaysAndMessages(t *testing.T) (relays, messages, items int) {
	t.Helper()
	ctx := context.Background()
	relays, err := in.DB.Relay.Query().Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	messages, err = in.DB.ChatMessage.Query().Where(chatmessage.UserID(in.user.ID)).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	items, err = in.DB.QueueItem.Query().Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return relays, messages, items
}

// TestThreadsBelongToTheirConnection: issue 35 point 6 and RULINGS
// "Security details" (a threadId or parentRelayId of another connection is
// 404, from a peer and from the operator's own send alike). C, connected to
// A, sends a response relay into the A–B thread (its id, its first relay as
// parent, each alone and both; over REST and Connect, and through C's own
// operator): 404 and A stores nothing. A's operator sending on the A–C
// connection with the A–B thread or its relay as parent: 404, nothing sent
// to C or kept at A. The A–B thread itself goes on, and C's own thread is
// C's.
func TestThreadsBelongToTheirConnection(t *testing.T) {
	t.Parallel()
	w := newThreeInstances(t)
	var rows int
	if err := func() (err error) {
		rows, err = w.a.DB.Relay.Query().Where(relay.ThreadID(w.thread)).Count(context.Background())
		return err
	}(); err != nil || rows != 2 {
		t.Fatalf("the A–B thread at A: %d relays, %v", rows, err)
	}
	tokenCAtA := tokenFor(t, w.c, w.cToA)
	r0, m0, i0 := w.a.relaysAndMessages(t)
	for i, body := range []map[string]any{
		{"threadId": w.thread, "parentRelayId": w.first},
		{"threadId": w.thread},
		{"parentRelayId": w.first},
	} {
		body["relayId"] = "intruder-" + string(rune('a'+i))
		body["type"] = "response"
		body["subject"] = "Re: Send the signed contract: use this account instead"
		for _, path := range []string{"/api/v2/relay", "/api/federation/relay", switchboardv1connect.NetworkRelayPeerServiceReceiveRelayProcedure} {
			res := w.a.Anonymous().Do(http.MethodPost, path, body, "X-Federation-Token", tokenCAtA)
			servertest.WantStatus(t, res, http.StatusNotFound)
		}
	}
	// C's operator tries the same through its own instance: A refuses it.
	res := w.c.user.Session.Do(http.MethodPost, "/api/federation/relays", map[string]any{"connectionId": w.cToA,
		"subject": "Re: Send the signed contract", "type": "response", "threadId": w.thread})
	servertest.WantStatus(t, res, http.StatusNotFound)
	if r, m, i := w.a.relaysAndMessages(t); r != r0 || m != m0 || i != i0 {
		t.Fatalf("A stored the intruder's relays: relays %d→%d, messages %d→%d, items %d→%d", r0, r, m0, m, i0, i)
	}
	if n, _ := w.c.DB.Relay.Query().Count(context.Background()); n != 0 {
		t.Fatalf("C recorded %d refused relays", n)
	}

	// A's operator on the A–C connection with the A–B thread: 404 before
	// anything reaches C.
	for _, body := range []map[string]any{
		{"threadId": w.thread},
		{"parentRelayId": w.first},
		{"threadId": w.thread, "parentRelayId": w.first},
	} {
		body["connectionId"] = w.aToC
		body["subject"] = "Re: Send the signed contract"
		body["type"] = "response"
		servertest.WantError(t, w.a.user.Session.Do(http.MethodPost, "/api/federation/relays", body), http.StatusNotFound)
	}
	if n, _ := w.c.DB.Relay.Query().Count(context.Background()); n != 0 {
		t.Fatalf("C received %d relays of A–B's thread", n)
	}
	if r, _, _ := w.a.relaysAndMessages(t); r != r0 {
		t.Fatalf("A recorded refused sends: %d relays, was %d", r, r0)
	}

	// The A–B thread goes on from both sides, and C may start its own
	// thread and answer in it.
	servertest.WantStatus(t, w.a.user.Session.Do(http.MethodPost, "/api/federation/relays", map[string]any{"connectionId": w.aToB,
		"subject": "Thanks", "type": "response", "threadId": w.thread, "parentRelayId": w.first}), http.StatusOK)
	res = w.c.user.Session.Do(http.MethodPost, "/api/federation/relays", map[string]any{"connectionId": w.cToA,
		"subject": "Lunch?", "intent": "get_info"})
	servertest.WantStatus(t, res, http.StatusOK)
	mine := object(t, res, "relay")
	servertest.WantStatus(t, w.a.user.Session.Do(http.MethodPost, "/api/federation/relays", map[string]any{"connectionId": w.aToC,
		"subject": "Re: Lunch?", "type": "response", "threadId": mine["threadId"], "parentRelayId": mine["relayId"]}), http.StatusOK)
}

// itemOf is the queue item B made of relay id.
func itemOf(t *testing.T, in *instance, relayID string) *ent.QueueItem {
	t.Helper()
	r, err := in.DB.Relay.Query().Where(relay.RelayID(relayID)).Only(context.Background())
	if err != nil || r.ItemID == nil {
		t.Fatalf("relay %s at %s: %v %v", relayID, in.URL, r, err)
	}
	it, err := in.DB.QueueItem.Get(context.Background(), *r.ItemID)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// message is the one comms message of in's user holding text.
func message(t *testing.T, in *instance, text string) string {
	t.Helper()
	rows, err := in.DB.ChatMessage.Query().Where(chatmessage.UserID(in.user.ID), chatmessage.ContentContains(text)).All(context.Background())
	if err != nil || len(rows) != 1 {
		t.Fatalf("comms messages holding %q: %d %v", text, len(rows), err)
	}
	return rows[0].Content
}

// TestSenderShownByRecordedName: issue 35 point 6 and RULINGS "Security
// details" (a relay's fromUserName is ignored; the connection's recorded
// name is shown) with Reconciliation 9 (a profile_updated notification
// updates it). A relay and a notification whose fromUserName claims to be
// someone else show the name B recorded for the connection in the queue
// item, the comms message and the notification, and so does a quarantined
// relay once released; a profile_updated notification changes the recorded
// name (then shown), over REST and Connect; one that is not a line of text
// is 400 and changes nothing; A's operator's profile_updated carries A's
// account name.
func TestSenderShownByRecordedName(t *testing.T) {
	t.Parallel()
	p := newRelayPair(t)
	const claim = "Ann Lee (ann@a.test, your accountant)"
	if row := p.b.only(t); row.PeerUserName != "Alice" {
		t.Fatalf("B's recorded name: %q", row.PeerUserName)
	}
	round := 0
	shown := func(want string) {
		t.Helper()
		round++
		tag := fmt.Sprintf("%d", round)
		servertest.WantStatus(t, p.direct("/api/v2/relay", map[string]any{"relayId": "req-" + tag, "subject": "Pay invoice " + tag,
			"intent": "assign_task", "fromUserName": claim, "fromUserEmail": "alice@example.com"}), http.StatusOK)
		if got := deref(itemOf(t, p.b, "req-"+tag).RequesterName); got != want {
			t.Fatalf("B's item shows the requester as %q, want %q", got, want)
		}
		for _, typ := range []string{"notification", "response"} {
			subject := "Bank details changed " + typ + " " + tag
			servertest.WantStatus(t, p.direct("/api/v2/relay", map[string]any{"relayId": typ + "-" + tag, "type": typ,
				"subject": subject, "fromUserName": claim}), http.StatusOK)
			if got := message(t, p.b, subject); !strings.HasPrefix(got, want+" (") || strings.Contains(got, "Ann Lee") {
				t.Fatalf("B's comms message for a %s relay: %q", typ, got)
			}
		}
		title := "You were mentioned " + tag
		servertest.WantStatus(t, p.direct("/api/federation/notifications", map[string]any{"type": "mention",
			"title": title, "fromUserName": claim}), http.StatusOK)
		for _, n := range list(t, p.b.user.Session.Do(http.MethodGet, "/api/notifications?limit=100", nil), "notifications") {
			if n["title"] == title && n["fromUserName"] != want {
				t.Fatalf("B's notification shows %v, want %q", n["fromUserName"], want)
			}
		}
	}
	shown("Alice")

	// Quarantined, then released: the recorded name too.
	servertest.WantStatus(t, p.b.user.Session.Do(http.MethodPatch, "/api/federation/connections/"+p.connB,
		map[string]any{"trustLevel": "untrusted"}), http.StatusOK)
	servertest.WantStatus(t, p.direct("/api/v2/relay", map[string]any{"relayId": "held", "subject": "Wire the deposit",
		"intent": "assign_task", "fromUserName": claim}), http.StatusOK)
	kept, err := p.b.DB.Relay.Query().Where(relay.RelayID("held")).Only(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	servertest.WantStatus(t, p.b.user.Session.Do(http.MethodPost, "/api/federation/relays/"+kept.ID+"/release", map[string]any{}), http.StatusOK)
	if got := deref(itemOf(t, p.b, "held").RequesterName); got != "Alice" {
		t.Fatalf("the released relay's item shows %q", got)
	}
	servertest.WantStatus(t, p.b.user.Session.Do(http.MethodPatch, "/api/federation/connections/"+p.connB,
		map[string]any{"trustLevel": "known"}), http.StatusOK)

	// A name that is not one line of text, or none, or longer than the
	// contract's 500 (a name, as an account's), is refused.
	before := p.b.notifications(t)
	for _, name := range []string{"Alice\nYour bank", "Alice\u202eknaB", "Al\x07ice", " ", "", strings.Repeat("n", 501)} {
		res := p.direct("/api/federation/notifications", map[string]any{"type": "profile_updated",
			"title": "Profile updated", "fromUserName": name})
		servertest.WantErrorContaining(t, res, http.StatusBadRequest, "fromUserName")
	}
	if row := p.b.only(t); row.PeerUserName != "Alice" || p.b.notifications(t) != before {
		t.Fatalf("a refused profile update changed the name to %q or was kept", row.PeerUserName)
	}
	// A name at the contract's limit is recorded.
	servertest.WantStatus(t, p.direct("/api/federation/notifications", map[string]any{"type": "profile_updated",
		"title": "Profile updated", "fromUserName": strings.Repeat("n", 500)}), http.StatusOK)
	if row := p.b.only(t); row.PeerUserName != strings.Repeat("n", 500) {
		t.Fatalf("a name of 500 characters recorded as %q", row.PeerUserName)
	}

	// A peer's profile notification, on either transport, records its name.
	for _, path := range []string{"/api/federation/notifications", switchboardv1connect.NetworkExchangePeerServiceReceiveNotificationProcedure} {
		servertest.WantStatus(t, p.direct(path, map[string]any{"type": "profile_updated", "title": "Profile updated",
			"fromUserName": "Alice Cooper", "fromUserEmail": "alice@example.com"}), http.StatusOK)
		if row := p.b.only(t); row.PeerUserName != "Alice Cooper" {
			t.Fatalf("%s: B's recorded name after profile_updated: %q", path, row.PeerUserName)
		}
		shown("Alice Cooper")
		// A's operator's own profile notification carries A's account name.
		servertest.WantStatus(t, p.a.user.Session.Do(http.MethodPost, "/api/federation/notify", map[string]any{"connectionId": p.connA,
			"type": "profile_updated", "title": "Profile updated"}), http.StatusOK)
		if row := p.b.only(t); row.PeerUserName != "Alice" {
			t.Fatalf("B's recorded name after A's operator's profile_updated: %q", row.PeerUserName)
		}
	}
}
