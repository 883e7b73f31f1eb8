package network_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/federationauditlog"
	"github.com/switchboard-hq/switchboard/ent/relay"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The shared reads' tests: RULINGS "The operator network: connections and
// relays" (Cross-instance reads: reputation, entity-search, the
// trust-gated federation/mcp) over real servers with their own databases.

// completedAtB sends a request relay from A to B and has B's operator
// approve and finish it: A's relay id.
func completedAtB(t *testing.T, p *relayPair, subject string) string {
	t.Helper()
	res := p.send(t, map[string]any{"subject": subject, "intent": "assign_task", "type": "request"})
	servertest.WantStatus(t, res, http.StatusOK)
	id := object(t, res, "relay")["id"].(string)
	it := relayItem(t, p.b, id)
	b := p.b.user.Session
	servertest.WantStatus(t, b.Do(http.MethodPost, "/api/queue/confirm", map[string]any{"id": it, "action": "approve"}), http.StatusOK)
	servertest.WantStatus(t, b.Do(http.MethodPost, "/api/v2/queue/"+it+"/result", map[string]any{"result": "done"}), http.StatusOK)
	return id
}

// relayItem is the queue item B made of A's relay id.
func relayItem(t *testing.T, in *instance, relayID string) string {
	t.Helper()
	r, err := in.DB.Relay.Query().Where(relay.RelayID(relayID), relay.DirectionEQ(relay.DirectionInbound)).Only(context.Background())
	if err != nil || r.ItemID == nil {
		t.Fatalf("relay %s at the recipient: %v %v", relayID, r, err)
	}
	return *r.ItemID
}

func (in *instance) rated(t *testing.T) int {
	t.Helper()
	n, err := in.DB.Relay.Query().Where(relay.RatingNotNil()).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRateRelayOnce: RULINGS "The operator network" (Cross-instance reads,
// Writes: one rating per completed relay; a second is 409). A rates B's
// operator on a relay B completed; the rating counts in B's network
// reputation (docs/decisions.md "The operator network: reputation, shared
// reads and card links (issue 15)"); a relay not completed, another
// connection's relay and a bad body write nothing.
func TestRateRelayOnce(t *testing.T) {
	t.Parallel()
	p := newRelayPair(t)
	c := newInstance(t, "carol", on())
	cID, _ := connected(t, c, p.b)
	id := completedAtB(t, p, "Review the plan")
	rate := func(token string, body map[string]any) *servertest.Response {
		return p.b.Anonymous().Do(http.MethodPost, "/api/federation/reputation", body, "X-Federation-Token", token)
	}

	// Input at the boundary: NUL, invalid UTF-8, over-long and out of range
	// are 400 and write nothing.
	for _, bad := range []map[string]any{
		{"relayId": id, "rating": 4, "feedback": "a\x00b"},
		{"relayId": id, "rating": 4, "feedback": strings.Repeat("x", 100001)},
		{"relayId": id, "rating": 0},
		{"relayId": id, "rating": 6},
		{"rating": 3},
	} {
		servertest.WantError(t, rate(p.tokenAtB, bad), http.StatusBadRequest)
	}
	// Invalid UTF-8 goes raw: encoding/json would repair it.
	servertest.WantError(t, p.b.Anonymous().Do(http.MethodPost, "/api/federation/reputation",
		`{"relayId":"`+id+`","rating":4,"feedback":"`+"\xff\xfe"+`"}`, "X-Federation-Token", p.tokenAtB), http.StatusBadRequest)
	// Another connection's relay id is 404: C never sent it.
	servertest.WantError(t, rate(tokenFor(t, c, cID), map[string]any{"relayId": id, "rating": 5}), http.StatusNotFound)
	servertest.WantError(t, rate(p.tokenAtB, map[string]any{"relayId": "nope", "rating": 5}), http.StatusNotFound)
	servertest.WantError(t, rate("sbf_unknown", map[string]any{"relayId": id, "rating": 5}), http.StatusUnauthorized)
	if p.b.rated(t) != 0 {
		t.Fatal("a refused rating was written")
	}

	res := rate(p.tokenAtB, map[string]any{"relayId": id, "rating": 4, "feedback": "thorough"})
	servertest.WantStatus(t, res, http.StatusOK)
	body := res.JSON(t)
	rep := body["reputation"].(map[string]any)
	if body["relayId"] != id || body["rating"] != float64(4) || rep["average"] != float64(4) || rep["count"] != float64(1) {
		t.Fatalf("rating: %s", res.Body)
	}
	servertest.WantError(t, rate(p.tokenAtB, map[string]any{"relayId": id, "rating": 2}), http.StatusConflict)

	// A second completed relay rated 1: the reputation is the mean.
	second := completedAtB(t, p, "Second")
	res = rate(p.tokenAtB, map[string]any{"relayId": second, "rating": 1})
	servertest.WantStatus(t, res, http.StatusOK)
	if rep := res.JSON(t)["reputation"].(map[string]any); rep["average"] != 2.5 || rep["count"] != float64(2) {
		t.Fatalf("reputation after two: %s", res.Body)
	}
	// A relay not yet completed is not rated.
	res = p.send(t, map[string]any{"subject": "Open", "intent": "get_info", "type": "request"})
	servertest.WantStatus(t, res, http.StatusOK)
	open := object(t, res, "relay")["id"].(string)
	if r := rate(p.tokenAtB, map[string]any{"relayId": open, "rating": 5}); r.Status < 400 || r.Status >= 500 {
		t.Fatalf("an open relay rated: %d %s", r.Status, r.Body)
	}
	if n := p.b.rated(t); n != 2 {
		t.Fatalf("ratings stored: %d", n)
	}
	// RULINGS "Federation" (audit): every call is audited inbound.
	if n := p.b.audited(t, federationauditlog.DirectionInbound, "/api/federation/reputation"); n != 13 {
		t.Fatalf("audited ratings: %d", n)
	}
}

// sharedWorld is B connected to A and to C: A's request relay made a card
// on B's board (linked to A's connection), B sent C a relay with another
// card (linked to C's), and B holds a private card and a contact.
type sharedWorld struct {
	p               *relayPair
	c               *instance
	bToC, cToB      string
	cardC, cardA    string
	privateCard     string
	tokenC, aThread string
}

func newSharedWorld(t *testing.T) *sharedWorld {
	t.Helper()
	p := newRelayPair(t)
	c := newInstance(t, "carol", on())
	cToB, bToC := connected(t, c, p.b)
	w := &sharedWorld{p: p, c: c, bToC: bToC, cToB: cToB, tokenC: tokenFor(t, c, cToB)}
	b := p.b.user.Session
	res := p.send(t, map[string]any{"subject": "Alpha plan from alice", "intent": "assign_task", "type": "request"})
	servertest.WantStatus(t, res, http.StatusOK)
	w.cardA, w.aThread = object(t, res, "answer")["cardId"].(string), object(t, res, "relay")["id"].(string)
	servertest.WantStatus(t, b.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Plan for carol"}), http.StatusCreated)
	servertest.WantStatus(t, b.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Private plan"}), http.StatusCreated)
	servertest.WantStatus(t, b.Do(http.MethodPost, "/api/v2/contacts", map[string]any{"name": "Plan Contact", "email": "pc@example.com"}), http.StatusCreated)
	w.cardC, w.privateCard = w.cardID(t, "Plan for carol"), w.cardID(t, "Private plan")
	servertest.WantStatus(t, b.Do(http.MethodPost, "/api/federation/relays", map[string]any{"connectionId": bToC,
		"subject": "Plan review with carol", "intent": "get_info", "type": "request", "cardId": w.cardC}), http.StatusOK)
	return w
}

func (w *sharedWorld) cardID(t *testing.T, title string) string {
	t.Helper()
	k, err := w.p.b.DB.Card.Query().Where(card.Title(title)).Only(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return k.ID
}

func (w *sharedWorld) search(t *testing.T, token, q string) []map[string]any {
	t.Helper()
	return list(t, w.p.b.Anonymous().Do(http.MethodGet, "/api/federation/entity-search?q="+q, nil, "X-Federation-Token", token), "results")
}

func kinds(rows []map[string]any) string {
	var out []string
	for _, r := range rows {
		out = append(out, r["kind"].(string)+":"+r["title"].(string))
	}
	return strings.Join(out, ",")
}

// TestEntitySearchSharedOnly: RULINGS "The operator network" (Cross-instance
// reads: only the recipient's profile, cards linked to that connection and
// relay threads with it). C sees bob, the card B sent it and their thread;
// never A's card, B's private card or B's contact.
func TestEntitySearchSharedOnly(t *testing.T) {
	t.Parallel()
	w := newSharedWorld(t)
	if got := kinds(w.search(t, w.tokenC, "")); got != "profile:Bob,card:Plan for carol,thread:Plan review with carol" {
		t.Fatalf("all shared with C: %s", got)
	}
	if got := kinds(w.search(t, w.tokenC, "PLAN")); got != "card:Plan for carol,thread:Plan review with carol" {
		t.Fatalf("C's plan: %s", got)
	}
	// A sees its own card (from its relay), not C's.
	if got := kinds(w.search(t, w.p.tokenAtB, "plan")); got != "card:Alpha plan from alice,thread:Alpha plan from alice" {
		t.Fatalf("A's plan: %s", got)
	}
	servertest.WantError(t, w.p.b.Anonymous().Do(http.MethodGet, "/api/federation/entity-search?q=plan", nil), http.StatusUnauthorized)
	servertest.WantError(t, w.p.b.Anonymous().Do(http.MethodGet, "/api/federation/entity-search?q="+strings.Repeat("x", 1001), nil,
		"X-Federation-Token", w.tokenC), http.StatusBadRequest)
	if n := w.p.b.audited(t, federationauditlog.DirectionInbound, "/api/federation/entity-search"); n != 5 {
		t.Fatalf("audited searches: %d", n)
	}
}

// TestSharedToolsTrustedOnly: RULINGS "The operator network" (POST
// /api/federation/mcp only on a trusted connection, only the allowlisted
// tools, each restricted to that connection).
func TestSharedToolsTrustedOnly(t *testing.T) {
	t.Parallel()
	w := newSharedWorld(t)
	call := func(tool string, args map[string]any) *servertest.Response {
		return w.p.b.Anonymous().Do(http.MethodPost, "/api/federation/mcp", map[string]any{"tool": tool, "arguments": args},
			"X-Federation-Token", w.tokenC)
	}
	servertest.WantError(t, call("mode_get", nil), http.StatusForbidden)
	// Only B's operator sets the trust of C's connection.
	servertest.WantStatus(t, w.p.b.user.Session.Do(http.MethodPatch, "/api/federation/connections/"+w.bToC,
		map[string]any{"trustLevel": "trusted"}), http.StatusOK)

	res := call("mode_get", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	if r := res.JSON(t)["result"].(map[string]any); r["mode"] != "cockpit" || len(r["modes"].([]any)) == 0 {
		t.Fatalf("mode_get: %s", res.Body)
	}
	res = call("relay_threads", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	threads := res.JSON(t)["result"].(map[string]any)["threads"].([]any)
	if len(threads) != 1 || threads[0].(map[string]any)["subject"] != "Plan review with carol" {
		t.Fatalf("relay_threads: %s", res.Body)
	}
	tid := threads[0].(map[string]any)["threadId"].(string)
	res = call("relay_thread_list", map[string]any{"threadId": tid})
	servertest.WantStatus(t, res, http.StatusOK)
	if l := res.JSON(t)["result"].(map[string]any)["relays"].([]any); len(l) != 1 {
		t.Fatalf("relay_thread_list: %s", res.Body)
	}
	// A's thread with B is another connection's: 404.
	servertest.WantError(t, call("relay_thread_list", map[string]any{"threadId": w.aThread}), http.StatusNotFound)
	res = call("entity_resolve", map[string]any{"query": "plan"})
	servertest.WantStatus(t, res, http.StatusOK)
	if got := res.JSON(t)["result"].(map[string]any)["results"].([]any); len(got) != 2 || strings.Contains(string(res.Body), "Private") ||
		strings.Contains(string(res.Body), "alice") || strings.Contains(string(res.Body), "Contact") {
		t.Fatalf("entity_resolve: %s", res.Body)
	}
	res = call("job_browse", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	if l := res.JSON(t)["result"].(map[string]any)["jobs"].([]any); len(l) != 0 {
		t.Fatalf("job_browse: %s", res.Body)
	}
	for _, other := range []string{"queue_list", "cards_list", "contacts_search", "briefing_get"} {
		servertest.WantError(t, call(other, nil), http.StatusForbidden)
	}
	// A's connection is known, not trusted.
	servertest.WantError(t, w.p.b.Anonymous().Do(http.MethodPost, "/api/federation/mcp", map[string]any{"tool": "mode_get"},
		"X-Federation-Token", w.p.tokenAtB), http.StatusForbidden)
	servertest.WantError(t, call("mode_get\x00", nil), http.StatusBadRequest)
	if n := w.p.b.audited(t, federationauditlog.DirectionInbound, "/api/federation/mcp"); n != 13 {
		t.Fatalf("audited tool calls: %d", n)
	}
}
