package network_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/federationauditlog"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/server/network/networktest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The exchange's tests: RULINGS "The operator network: connections and
// relays" (Notifications, Cross-instance reads, patterns, Jobs) over real
// servers with their own databases.

const (
	notifyPath     = "/switchboard.v1.NetworkExchangePeerService/ReceiveNotification"
	receiveJobPath = "/switchboard.v1.NetworkExchangePeerService/ReceiveJob"
	getPatternsRPC = "/switchboard.v1.NetworkExchangeService/GetPatterns"
)

// connected makes from ask to and to accept: both active. It answers each
// side's id of the connection.
func connected(t *testing.T, from, to *instance) (fromID, toID string) {
	t.Helper()
	return networktest.Connect(t, from.Server, from.user, to.Server, to.user)
}

// tokenFor is the token from presents at to for their connection.
func tokenFor(t *testing.T, from *instance, id string) string {
	t.Helper()
	c, err := from.DB.NetworkConnection.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return from.peerToken(t, c)
}

func (in *instance) notifications(t *testing.T) int {
	t.Helper()
	n, err := in.DB.Notification.Query().Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (in *instance) jobs(t *testing.T) int {
	t.Helper()
	n, err := in.DB.Job.Query().Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func list(t *testing.T, res *servertest.Response, key string) []map[string]any {
	t.Helper()
	if res.Status != http.StatusOK && res.Status != http.StatusCreated {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	raw, ok := res.JSON(t)[key].([]any)
	if !ok {
		t.Fatalf("no list %q in %s", key, res.Body)
	}
	out := make([]map[string]any, len(raw))
	for i, v := range raw {
		out[i] = v.(map[string]any)
	}
	return out
}

// mentions reads the chat's mention list (REST: a bare array).
func mentions(t *testing.T, res *servertest.Response) []map[string]any {
	t.Helper()
	servertest.WantStatus(t, res, http.StatusOK)
	var out []map[string]any
	if err := json.Unmarshal(res.Body, &out); err != nil {
		t.Fatalf("mentions: %v: %s", err, res.Body)
	}
	return out
}

// TestNotificationsAcrossInstances: RULINGS "The operator network"
// (Notifications): A sends task_assigned, B lists and reads it; the
// project_invite shape of document 2 ("Other cross-instance endpoints");
// another type is 400; a token of no connection 401; a sender that is not
// the connection's peer 400; another account's ids 404; federation off 403;
// every peer call audited on both sides.
func TestNotificationsAcrossInstances(t *testing.T) {
	t.Parallel()
	a, b := newInstance(t, "alice", on()), newInstance(t, "bob", on())
	aID, _ := connected(t, a, b)

	res := a.user.Session.Do(http.MethodPost, "/api/federation/notify", map[string]any{"connectionId": aID,
		"type": "task_assigned", "title": "Review the deck", "body": "By Friday", "metadata": map[string]any{"cardId": "c1", "n": 2}})
	servertest.WantStatus(t, res, http.StatusOK)
	if res.JSON(t)["notificationId"] == "" {
		t.Fatalf("no id: %s", res.Body)
	}
	got := list(t, b.user.Session.Do(http.MethodGet, "/api/notifications", nil), "notifications")
	if len(got) != 1 {
		t.Fatalf("B's notifications: %v", got)
	}
	n := got[0]
	meta, _ := n["metadata"].(map[string]any)
	if n["type"] != "task_assigned" || n["title"] != "Review the deck" || n["body"] != "By Friday" || n["from"] != "alice@"+host(a.URL) ||
		n["fromUserName"] != "Alice" || n["fromUserEmail"] != "alice@example.com" || meta["cardId"] != "c1" || n["readAt"] != nil {
		t.Fatalf("B's notification: %v", n)
	}
	if res := b.user.Session.Do(http.MethodGet, "/api/notifications", nil); res.JSON(t)["unreadCount"] != float64(1) {
		t.Fatalf("unread: %s", res.Body)
	}
	// Another account on B neither sees nor reads it.
	dave := b.SignUp("dave")
	if got := list(t, dave.Session.Do(http.MethodGet, "/api/notifications", nil), "notifications"); len(got) != 0 {
		t.Fatalf("dave sees %v", got)
	}
	servertest.WantError(t, dave.Session.Do(http.MethodPost, "/api/notifications/"+n["id"].(string)+"/read", map[string]any{}), http.StatusNotFound)
	res = b.user.Session.Do(http.MethodPost, "/api/notifications/"+n["id"].(string)+"/read", map[string]any{})
	servertest.WantStatus(t, res, http.StatusOK)
	if object(t, res, "notification")["readAt"] == nil {
		t.Fatalf("read: %s", res.Body)
	}
	if got := list(t, b.user.Session.Do(http.MethodGet, "/api/notifications?unread=true", nil), "notifications"); len(got) != 0 {
		t.Fatalf("unread after reading: %v", got)
	}

	// A key with the network scope sends too; project_invite in document
	// 2's shape, straight to B's peer route.
	key := a.user.NewKey("assistant", "network")
	servertest.WantStatus(t, a.WithKey(key).Do(http.MethodPost, "/api/federation/notify", map[string]any{"connectionId": aID,
		"type": "goal_progress", "title": "Halfway"}), http.StatusOK)
	token := tokenFor(t, a, aID)
	invite := map[string]any{"type": "project_invite", "fromUserName": "Alice", "fromUserEmail": "alice@example.com",
		"toUserEmail": "bob@example.com", "title": "Join Apollo", "body": "As a reviewer",
		"metadata": map[string]any{"projectId": "p1", "inviteId": "i1", "role": "reviewer"}, "timestamp": "2026-11-27T04:00:00Z"}
	servertest.WantStatus(t, b.Anonymous().Do(http.MethodPost, "/api/federation/notifications", invite, "X-Federation-Token", token), http.StatusOK)
	if b.notifications(t) != 3 {
		t.Fatalf("B holds %d notifications", b.notifications(t))
	}

	// Refusals, none of which writes.
	bad := func(body map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range invite {
			out[k] = v
		}
		for k, v := range body {
			out[k] = v
		}
		return out
	}
	servertest.WantError(t, a.user.Session.Do(http.MethodPost, "/api/federation/notify",
		map[string]any{"connectionId": aID, "type": "party", "title": "x"}), http.StatusBadRequest)
	servertest.WantError(t, b.Anonymous().Do(http.MethodPost, "/api/federation/notifications", bad(map[string]any{"type": "party"}),
		"X-Federation-Token", token), http.StatusBadRequest)
	servertest.WantError(t, b.Anonymous().Do(http.MethodPost, "/api/federation/notifications", bad(map[string]any{"fromUserEmail": "mallory@example.com"}),
		"X-Federation-Token", token), http.StatusBadRequest)
	servertest.WantError(t, b.Anonymous().Do(http.MethodPost, "/api/federation/notifications", bad(map[string]any{"toUserEmail": "dave@example.com"}),
		"X-Federation-Token", token), http.StatusBadRequest)
	servertest.WantError(t, b.Anonymous().Do(http.MethodPost, "/api/federation/notifications", invite,
		"X-Federation-Token", "sbf_not-a-connection-token"), http.StatusUnauthorized)
	servertest.WantError(t, b.Anonymous().Do(http.MethodPost, "/api/federation/notifications", invite), http.StatusUnauthorized)
	servertest.WantError(t, b.WithKey(b.user.NewKey("k", "network")).Do(http.MethodPost, "/api/federation/notifications", invite), http.StatusUnauthorized)
	eve := a.SignUp("eve")
	servertest.WantError(t, eve.Session.Do(http.MethodPost, "/api/federation/notify",
		map[string]any{"connectionId": aID, "type": "mention", "title": "x"}), http.StatusNotFound)
	if b.notifications(t) != 3 {
		t.Fatalf("a refusal wrote: B holds %d notifications", b.notifications(t))
	}

	// Audit: A's two sends out and in at B over Connect, the direct calls
	// under their REST path.
	if n := a.audited(t, federationauditlog.DirectionOutbound, notifyPath); n != 2 {
		t.Fatalf("A's audited sends: %d", n)
	}
	if n := b.audited(t, federationauditlog.DirectionInbound, notifyPath); n != 2 {
		t.Fatalf("B's audited receipts: %d", n)
	}
	if n := b.audited(t, federationauditlog.DirectionInbound, "/api/federation/notifications"); n != 7 {
		t.Fatalf("B's audited direct calls: %d", n)
	}

	// Federation off on B: 403 to the peer route and to A's send.
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPut, "/api/admin/federation/settings", map[string]any{"enabled": false}), http.StatusOK)
	servertest.WantError(t, b.Anonymous().Do(http.MethodPost, "/api/federation/notifications", invite, "X-Federation-Token", token), http.StatusForbidden)
	servertest.WantError(t, a.user.Session.Do(http.MethodPost, "/api/federation/notify",
		map[string]any{"connectionId": aID, "type": "mention", "title": "x"}), http.StatusForbidden)
	if b.notifications(t) != 3 {
		t.Fatal("written while off")
	}
}

// TestMentionsVisibleToTheNetwork: RULINGS "The operator network"
// (Cross-instance reads: at most 10 users visible to the network; document
// 2 "Limits") and "Mentions sources" (the users of the caller's active
// connections). Visible means holding an active connection with a user of
// the calling instance (docs/decisions.md): a user connected only
// elsewhere, or only pending, or not at all, is not shown.
func TestMentionsVisibleToTheNetwork(t *testing.T) {
	t.Parallel()
	a, b := newInstance(t, "alice", on()), newInstance(t, "bob", on())
	aID, _ := connected(t, a, b)
	ctx := context.Background()
	// Rows as the handshake records them; the handshake itself is
	// TestConnectAcceptRotateRemove's.
	link := func(u *servertest.Account, origin string, status networkconnection.Status) {
		t.Helper()
		if _, err := b.DB.NetworkConnection.Create().SetUserID(u.ID).SetPeerInstanceURL(origin).SetPeerUserEmail("x@example.com").
			SetDirection(networkconnection.DirectionInbound).SetStatus(status).Save(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 12 {
		link(b.SignUp(fmt.Sprintf("user%02d", i)), a.URL, networkconnection.StatusActive)
	}
	link(b.SignUp("carol"), "https://c.example", networkconnection.StatusActive)
	link(b.SignUp("dan"), a.URL, networkconnection.StatusPending)
	b.SignUp("erin")
	// A private profile is not the network's to see; a network one is
	// (RULINGS "Who a peer's mention search sees").
	for name, visibility := range map[string]string{"fay": "private", "gus": "network"} {
		u := b.SignUp(name)
		link(u, a.URL, networkconnection.StatusActive)
		servertest.WantStatus(t, u.Session.Do(http.MethodPatch, "/api/v2/settings", map[string]any{"profileVisibility": visibility}), http.StatusOK)
	}
	token := tokenFor(t, a, aID)
	search := func(prefix string) []string {
		t.Helper()
		var names []string
		for _, u := range list(t, b.Anonymous().Do(http.MethodGet, "/api/federation/mentions?prefix="+prefix, nil, "X-Federation-Token", token), "users") {
			if u["id"] == "" || u["name"] == "" {
				t.Fatalf("user without id or name: %v", u)
			}
			names = append(names, u["username"].(string))
		}
		return names
	}
	if got := search(""); len(got) != 10 || got[0] != "bob" || got[1] != "gus" || got[9] != "user07" {
		t.Fatalf("first ten: %v", got)
	}
	if got := search("USER1"); strings.Join(got, ",") != "user10,user11" {
		t.Fatalf("prefix user1: %v", got)
	}
	for _, hidden := range []string{"carol", "dan", "erin", "fay"} {
		if got := search(hidden); len(got) != 0 {
			t.Fatalf("%s is visible: %v", hidden, got)
		}
	}
	servertest.WantError(t, b.Anonymous().Do(http.MethodGet, "/api/federation/mentions?prefix=b", nil), http.StatusUnauthorized)
	if n := b.audited(t, federationauditlog.DirectionInbound, "/api/federation/mentions"); n != 7 {
		t.Fatalf("B's audited mention searches: %d", n)
	}

	// A's chat mentions list B's user, under people, as user@host.
	res := a.user.Session.Do(http.MethodGet, "/api/chat/mentions?type=people&q=bo", nil)
	found := false
	for _, m := range mentions(t, res) {
		if m["id"] == aID && m["name"] == "Bob" && m["subtitle"] == "bob@"+host(b.URL) && m["type"] == "person" {
			found = true
		}
	}
	if !found {
		t.Fatalf("A's people: %s", res.Body)
	}
	// Another account on A does not see A's connection.
	if got := mentions(t, a.SignUp("zed").Session.Do(http.MethodGet, "/api/chat/mentions?type=people&q=bo", nil)); len(got) != 0 {
		t.Fatalf("zed sees %v", got)
	}
}

// TestPatternsPublishedAndLearned: RULINGS "The operator network" (GET|POST
// /api/federation/patterns, written by the operator, read by peers; each
// side keeps what it learns). The one path serves both: a federation token
// makes it the peer's read (docs/decisions.md), audited; the operator's
// own reads are not.
func TestPatternsPublishedAndLearned(t *testing.T) {
	t.Parallel()
	a, b := newInstance(t, "alice", on()), newInstance(t, "bob", on())
	aID, bID := connected(t, a, b)
	// Fetched on connect: B, accepting, learned A's (none published yet).
	if got := list(t, b.user.Session.Do(http.MethodGet, "/api/federation/peer-patterns", nil), "peers"); len(got) != 1 ||
		got[0]["connectionId"] != bID || len(got[0]["patterns"].(map[string]any)["skills"].([]any)) != 0 {
		t.Fatalf("B learned on accept: %v", got)
	}
	patterns := map[string]any{"taskTypes": []string{"research", "review"}, "skills": []string{"Go", "SQL", "go"},
		"maxConcurrent": 3, "typicalTurnaroundHours": 24}
	res := b.user.Session.Do(http.MethodPost, "/api/federation/patterns", patterns)
	servertest.WantStatus(t, res, http.StatusOK)
	mine := object(t, res, "patterns")
	if fmt.Sprint(mine["skills"]) != "[Go SQL]" || mine["maxConcurrent"] != float64(3) || mine["typicalTurnaroundHours"] != float64(24) {
		t.Fatalf("B's patterns: %v", mine)
	}
	key := b.user.NewKey("assistant", "network")
	if got := object(t, b.WithKey(key).Do(http.MethodGet, "/api/federation/patterns", nil), "patterns"); fmt.Sprint(got["taskTypes"]) != "[research review]" {
		t.Fatalf("B's patterns by key: %v", got)
	}
	servertest.WantError(t, b.WithKey(b.user.NewKey("q", "queue")).Do(http.MethodGet, "/api/federation/patterns", nil), http.StatusForbidden)
	servertest.WantError(t, b.Anonymous().Do(http.MethodGet, "/api/federation/patterns", nil), http.StatusUnauthorized)
	// A has published nothing: its own read is empty, not B's.
	if got := object(t, a.user.Session.Do(http.MethodGet, "/api/federation/patterns", nil), "patterns"); len(got["skills"].([]any)) != 0 {
		t.Fatalf("A's own patterns: %v", got)
	}

	// A learns B's on demand and keeps them.
	res = a.user.Session.Do(http.MethodPost, "/api/federation/connections/"+aID+"/patterns", map[string]any{})
	servertest.WantStatus(t, res, http.StatusOK)
	peer := object(t, res, "peer")
	if peer["connectionId"] != aID || peer["peer"] != "bob@"+host(b.URL) || fmt.Sprint(peer["patterns"].(map[string]any)["skills"]) != "[Go SQL]" {
		t.Fatalf("learned: %v", peer)
	}
	if got := list(t, a.user.Session.Do(http.MethodGet, "/api/federation/peer-patterns", nil), "peers"); len(got) != 1 || got[0]["connectionId"] != aID {
		t.Fatalf("A's peers' patterns: %v", got)
	}
	servertest.WantError(t, a.SignUp("eve").Session.Do(http.MethodPost, "/api/federation/connections/"+aID+"/patterns", map[string]any{}), http.StatusNotFound)

	// The peer's read over REST: B's token at A answers A's (empty); a
	// token of no connection is 401, never the operator's own answer.
	res = a.Anonymous().Do(http.MethodGet, "/api/federation/patterns", nil, "X-Federation-Token", tokenFor(t, b, bID))
	if got := object(t, res, "patterns"); len(got["skills"].([]any)) != 0 {
		t.Fatalf("A's patterns read by B: %v", got)
	}
	servertest.WantError(t, a.user.Session.Do(http.MethodGet, "/api/federation/patterns", nil, "X-Federation-Token", "sbf_wrong"), http.StatusUnauthorized)
	if n := b.audited(t, federationauditlog.DirectionInbound, getPatternsRPC); n != 1 {
		t.Fatalf("B's audited pattern reads over Connect: %d", n)
	}
	if n := b.audited(t, federationauditlog.DirectionInbound, "/api/federation/patterns"); n != 0 {
		t.Fatalf("B's own reads were audited: %d", n)
	}
	if n := a.audited(t, federationauditlog.DirectionInbound, "/api/federation/patterns"); n != 2 {
		t.Fatalf("A's audited peer reads: %d", n)
	}
	if n := a.audited(t, federationauditlog.DirectionOutbound, getPatternsRPC); n != 1 {
		t.Fatalf("A's audited fetch: %d", n)
	}

	// Off: the peer's read is 403.
	servertest.WantStatus(t, a.user.Session.Do(http.MethodPut, "/api/admin/federation/settings", map[string]any{"enabled": false}), http.StatusOK)
	servertest.WantError(t, a.Anonymous().Do(http.MethodGet, "/api/federation/patterns", nil, "X-Federation-Token", tokenFor(t, b, bID)), http.StatusForbidden)
}

// TestPatternsRefreshDaily: RULINGS "The operator network" (each side keeps
// its peers' patterns, fetched on connect and daily): the requester, which
// did not fetch on connect, learns them on the loop's next pass (hourly on
// the injected clock), and learns a change once its copy is a day old.
func TestPatternsRefreshDaily(t *testing.T) {
	t.Parallel()
	a, b := newInstance(t, "alice", on()), newInstance(t, "bob", on())
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPost, "/api/federation/patterns", map[string]any{"skills": []string{"go"}}), http.StatusOK)
	connected(t, a, b)
	// skills answers A's kept copy of B's skills once the loop has written
	// one matching want; each try moves A's clock on by step, so the loop
	// wakes whether or not it was already waiting when the test began.
	learned := func(want string, step time.Duration) {
		t.Helper()
		servertest.WaitFor(t, "A to learn "+want, func() bool {
			a.Clock.Advance(step)
			got := list(t, a.user.Session.Do(http.MethodGet, "/api/federation/peer-patterns", nil), "peers")
			return len(got) == 1 && fmt.Sprint(got[0]["patterns"].(map[string]any)["skills"]) == want
		})
	}
	learned("[go]", time.Hour)
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPost, "/api/federation/patterns", map[string]any{"skills": []string{"rust"}}), http.StatusOK)
	learned("[rust]", 25*time.Hour)
}

// TestJobsPostedMatchedAndClosed: RULINGS "The operator network" (Jobs,
// Cross-instance reads) over three instances: A posts a job to all its
// connections and another to B alone; B and C list them as received and
// read what is shared with them; B's declared capabilities make the match
// rank the fitting job first; closing reaches the peers.
func TestJobsPostedMatchedAndClosed(t *testing.T) {
	t.Parallel()
	a, b, c := newInstance(t, "alice", on()), newInstance(t, "bob", on()), newInstance(t, "carol", on())
	abID, baID := connected(t, a, b)
	_, caID := connected(t, a, c)

	res := a.user.Session.Do(http.MethodPost, "/api/federation/jobs-board", map[string]any{"title": "Go service review",
		"description": "Review a Go service on PostgreSQL", "taskType": "technical", "urgency": "high", "compensation": "500 EUR",
		"requiredSkills": []string{"Go", "PostgreSQL"}, "estimatedHours": 6})
	servertest.WantStatus(t, res, http.StatusCreated)
	fit := object(t, res, "job")
	if d := list(t, res, "deliveries"); len(d) != 2 || d[0]["delivered"] != true || d[1]["delivered"] != true {
		t.Fatalf("deliveries: %s", res.Body)
	}
	if fit["origin"] != "posted" || fit["status"] != "open" || len(fit["connectionIds"].([]any)) != 2 {
		t.Fatalf("posted: %v", fit)
	}
	res = a.WithKey(a.user.NewKey("assistant", "network")).Do(http.MethodPost, "/api/federation/jobs-board", map[string]any{
		"title": "Illustrate a deck", "description": "Slides", "taskType": "creative",
		"requiredSkills": []string{"go", "rust", "k8s"}, "connectionIds": []string{abID}})
	servertest.WantStatus(t, res, http.StatusCreated)
	weak := object(t, res, "job")
	servertest.WantError(t, a.SignUp("eve").Session.Do(http.MethodPost, "/api/federation/jobs-board", map[string]any{
		"title": "x", "description": "y", "connectionIds": []string{abID}}), http.StatusNotFound)

	received := list(t, b.user.Session.Do(http.MethodGet, "/api/federation/jobs-board?origin=received", nil), "jobs")
	if len(received) != 2 || received[1]["title"] != "Go service review" || received[1]["from"] != "alice@"+host(a.URL) ||
		received[1]["connectionId"] != baID || received[1]["urgency"] != "high" || received[1]["compensation"] != "500 EUR" {
		t.Fatalf("B's received: %v", received)
	}
	if got := list(t, c.user.Session.Do(http.MethodGet, "/api/federation/jobs-board", nil), "jobs"); len(got) != 1 {
		t.Fatalf("C's board: %v", got)
	}
	if got := list(t, a.user.Session.Do(http.MethodGet, "/api/federation/jobs-board?origin=posted", nil), "jobs"); len(got) != 2 {
		t.Fatalf("A's posted: %v", got)
	}
	// What each peer reads at A: the open jobs shared with its connection.
	shared := func(in *instance, id string) int {
		t.Helper()
		return len(list(t, a.Anonymous().Do(http.MethodGet, "/api/federation/jobs", nil, "X-Federation-Token", tokenFor(t, in, id)), "jobs"))
	}
	if shared(b, baID) != 2 || shared(c, caID) != 1 {
		t.Fatalf("shared: B %d, C %d", shared(b, baID), shared(c, caID))
	}

	// B's capabilities rank the fitting job first.
	res = b.user.Session.Do(http.MethodPost, "/api/economy/capabilities", map[string]any{"taskType": "technical",
		"skills": []string{"go", "postgresql"}, "description": "Backend reviews", "pricingModel": "hourly", "price": 120, "currency": "eur"})
	servertest.WantStatus(t, res, http.StatusCreated)
	capID := object(t, res, "capability")["id"].(string)
	matches := list(t, b.user.Session.Do(http.MethodGet, "/api/economy/capabilities/match", nil), "matches")
	if len(matches) != 2 || matches[0]["job"].(map[string]any)["title"] != "Go service review" || matches[0]["score"] != float64(1) ||
		matches[0]["capabilityId"] != capID || matches[1]["job"].(map[string]any)["title"] != "Illustrate a deck" {
		t.Fatalf("matches: %v", matches)
	}

	// Closing reaches the peers; the closed job leaves the match and the
	// shared list.
	servertest.WantError(t, a.SignUp("fay").Session.Do(http.MethodPost, "/api/federation/jobs-board/"+fit["id"].(string)+"/close", map[string]any{}), http.StatusNotFound)
	res = a.user.Session.Do(http.MethodPost, "/api/federation/jobs-board/"+fit["id"].(string)+"/close", map[string]any{})
	servertest.WantStatus(t, res, http.StatusOK)
	if got := object(t, res, "job"); got["status"] != "closed" || got["closedAt"] == nil {
		t.Fatalf("closed: %v", got)
	}
	if got := list(t, b.user.Session.Do(http.MethodGet, "/api/federation/jobs-board?status=closed", nil), "jobs"); len(got) != 1 || got[0]["title"] != "Go service review" {
		t.Fatalf("B's closed: %v", got)
	}
	matches = list(t, b.user.Session.Do(http.MethodGet, "/api/economy/capabilities/match", nil), "matches")
	if len(matches) != 1 || matches[0]["job"].(map[string]any)["title"] != weak["title"] {
		t.Fatalf("matches after closing: %v", matches)
	}
	if shared(c, caID) != 0 {
		t.Fatal("C still reads the closed job")
	}
	// A received job is its poster's to close; another account's
	// capability is 404; removing one's own leaves none.
	servertest.WantError(t, b.user.Session.Do(http.MethodPost, "/api/federation/jobs-board/"+received[0]["id"].(string)+"/close", map[string]any{}), http.StatusBadRequest)
	servertest.WantError(t, b.SignUp("gus").Session.Do(http.MethodDelete, "/api/economy/capabilities/"+capID, nil), http.StatusNotFound)
	servertest.WantStatus(t, b.user.Session.Do(http.MethodDelete, "/api/economy/capabilities/"+capID, nil), http.StatusOK)
	if got := list(t, b.user.Session.Do(http.MethodGet, "/api/economy/capabilities", nil), "capabilities"); len(got) != 0 {
		t.Fatalf("capabilities left: %v", got)
	}
	// Every delivery audited: two posts and a close reached B, a post and
	// a close reached C.
	if n := b.audited(t, federationauditlog.DirectionInbound, receiveJobPath); n != 3 {
		t.Fatalf("B's audited jobs: %d", n)
	}
	if n := c.audited(t, federationauditlog.DirectionInbound, receiveJobPath); n != 2 {
		t.Fatalf("C's audited jobs: %d", n)
	}
	if n := a.audited(t, federationauditlog.DirectionOutbound, receiveJobPath); n != 5 {
		t.Fatalf("A's audited deliveries: %d", n)
	}
	if n := a.audited(t, federationauditlog.DirectionInbound, "/api/federation/jobs"); n != 3 {
		t.Fatalf("A's audited shared reads: %d", n)
	}
}

// TestExchangeBadInputWritesNothing: RULINGS "Input at the boundary" on the
// exchange's routes: NUL, invalid UTF-8 and over-long fields are 400 and
// nothing is written on either side.
func TestExchangeBadInputWritesNothing(t *testing.T) {
	t.Parallel()
	a, b := newInstance(t, "alice", on()), newInstance(t, "bob", on())
	aID, _ := connected(t, a, b)
	token := tokenFor(t, a, aID)
	s := a.user.Session
	cases := []struct {
		name string
		call func() *servertest.Response
	}{
		{"notify NUL", func() *servertest.Response {
			return s.Do(http.MethodPost, "/api/federation/notify", map[string]any{"connectionId": aID, "type": "mention", "title": "a\x00b"})
		}},
		{"notify invalid UTF-8", func() *servertest.Response {
			return s.Do(http.MethodPost, "/api/federation/notify", []byte(`{"connectionId":"`+aID+`","type":"mention","title":"`+"\xff\xfe"+`"}`))
		}},
		{"notify over-long title", func() *servertest.Response {
			return s.Do(http.MethodPost, "/api/federation/notify", map[string]any{"connectionId": aID, "type": "mention", "title": strings.Repeat("t", 501)})
		}},
		{"notify NUL in metadata", func() *servertest.Response {
			return s.Do(http.MethodPost, "/api/federation/notify", map[string]any{"connectionId": aID, "type": "mention", "title": "t",
				"metadata": map[string]any{"k": "v\x00"}})
		}},
		{"notify over-long metadata", func() *servertest.Response {
			return s.Do(http.MethodPost, "/api/federation/notify", map[string]any{"connectionId": aID, "type": "mention", "title": "t",
				"metadata": map[string]any{"k": strings.Repeat("v", 10_001)}})
		}},
		{"peer notification NUL", func() *servertest.Response {
			return b.Anonymous().Do(http.MethodPost, "/api/federation/notifications", map[string]any{"type": "mention", "title": "a\x00"},
				"X-Federation-Token", token)
		}},
		{"job NUL", func() *servertest.Response {
			return s.Do(http.MethodPost, "/api/federation/jobs-board", map[string]any{"title": "t", "description": "d\x00"})
		}},
		{"job over-long skill", func() *servertest.Response {
			return s.Do(http.MethodPost, "/api/federation/jobs-board", map[string]any{"title": "t", "description": "d",
				"requiredSkills": []string{strings.Repeat("s", 101)}})
		}},
		{"job invalid UTF-8", func() *servertest.Response {
			return s.Do(http.MethodPost, "/api/federation/jobs-board", []byte(`{"title":"`+"\xc3\x28"+`","description":"d"}`))
		}},
		{"peer job NUL", func() *servertest.Response {
			return b.Anonymous().Do(http.MethodPost, "/api/federation/jobs", map[string]any{"job": map[string]any{"id": "j1", "title": "t\x00"}},
				"X-Federation-Token", token)
		}},
		{"peer job over-long title", func() *servertest.Response {
			return b.Anonymous().Do(http.MethodPost, "/api/federation/jobs", map[string]any{"job": map[string]any{"id": "j1", "title": strings.Repeat("t", 501)}},
				"X-Federation-Token", token)
		}},
		{"peer job unknown task type", func() *servertest.Response {
			return b.Anonymous().Do(http.MethodPost, "/api/federation/jobs", map[string]any{"job": map[string]any{"id": "j1", "title": "t", "taskType": "painting"}},
				"X-Federation-Token", token)
		}},
		{"capability over-long description", func() *servertest.Response {
			return s.Do(http.MethodPost, "/api/economy/capabilities", map[string]any{"taskType": "review", "description": strings.Repeat("d", 100001)})
		}},
		{"capability NUL skill", func() *servertest.Response {
			return s.Do(http.MethodPost, "/api/economy/capabilities", map[string]any{"taskType": "review", "skills": []string{"a\x00"}})
		}},
		{"patterns over-long skill", func() *servertest.Response {
			return s.Do(http.MethodPost, "/api/federation/patterns", map[string]any{"skills": []string{strings.Repeat("s", 101)}})
		}},
		{"patterns NUL", func() *servertest.Response {
			return s.Do(http.MethodPost, "/api/federation/patterns", map[string]any{"taskTypes": []string{"r\x00"}})
		}},
	}
	for _, c := range cases {
		servertest.WantError(t, c.call(), http.StatusBadRequest)
		n := a.notifications(t) + b.notifications(t) + a.jobs(t) + b.jobs(t)
		for _, in := range []*instance{a, b} {
			caps, _ := in.DB.ProviderCapability.Query().Count(context.Background())
			pats, _ := in.DB.WorkPattern.Query().Count(context.Background())
			n += caps + pats
		}
		if n != 0 {
			t.Fatalf("%s: %d rows written", c.name, n)
		}
	}
}
