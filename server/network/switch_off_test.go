package network_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/federationauditlog"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// peerCall is one call to a peer route of the operator network: its REST
// path (and query), or a Connect procedure, with a body that the route
// takes when the network is on.
type peerCall struct {
	method, path string
	body         map[string]any
	token        bool // presents X-Federation-Token
	// on is the answer with the network on (the REST calls are made again
	// then, to show the body and token were good).
	on int
}

// held is what B keeps that a peer route could change: the rows of every
// table those routes write, B's connection as stored, the relay B sent and
// B's linked card's change log.
func held(t *testing.T, b *instance, bCard string) string {
	t.Helper()
	ctx := context.Background()
	count := func(n int, err error) int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	conns := b.connections(t)
	var row string
	for _, c := range conns {
		row += fmt.Sprintf("%s %s %s %v %s %s %s;", c.ID, c.Status, c.TrustLevel, deref(c.TokenHash),
			deref(c.PeerTokenSealed), deref(c.PeerConnectionID), c.UpdatedAt)
	}
	k, err := b.DB.Card.Query().Where(card.ID(bCard)).Only(ctx)
	if err != nil {
		t.Fatal(err)
	}
	relays, err := b.DB.Relay.Query().All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var states string
	for _, r := range relays {
		states += fmt.Sprintf("%s %s %s %v;", r.ID, r.State, r.UpdatedAt, r.Rating)
	}
	return fmt.Sprintf("connections %d [%s]\nrelays %d [%s]\nitems %d cards %d notifications %d jobs %d activity %d messages %d outbox %d\ncard %s %s",
		len(conns), row, len(relays), states,
		count(b.DB.QueueItem.Query().Count(ctx)), count(b.DB.Card.Query().Count(ctx)),
		count(b.DB.Notification.Query().Count(ctx)), count(b.DB.Job.Query().Count(ctx)),
		count(b.DB.ActivityEntry.Query().Count(ctx)), count(b.DB.ChatMessage.Query().Count(ctx)),
		count(b.DB.WebhookDelivery.Query().Count(ctx)), k.UpdatedAt, k.ChangeLog)
}

// TestEveryPeerRouteForbiddenWhileOff: RULINGS "The operator network:
// connections and relays" (while off, every peer endpoint answers 403) and
// document 2 "Instance federation" and "Other cross-instance endpoints"
// (the routes). B's admin turns the network off; every peer route mounted
// (federation.InboundPaths: the handshake, connect/accept, removal,
// rotation, the relay at both paths, relay-ack, notifications, mentions,
// entity-search, reputation, patterns, jobs both ways, mcp, card-status),
// on REST and on its Connect procedure, each with A's valid token where it
// takes one and a body it takes, answers 403 and writes nothing (decline is
// the operator's route: a decline is not told to the peer). Each refusal is
// audited as a 403. Switched on again, the same REST calls succeed.
func TestEveryPeerRouteForbiddenWhileOff(t *testing.T) {
	t.Parallel()
	limits := servertest.WithLimits(gate.Limits{PerKey: 100000, Auth: 100000, Heavy: 100000, Federation: 100000})
	a := newInstance(t, "alice", on(), servertest.WithPrivateEndpoints(), limits)
	b := newInstance(t, "bob", on(), servertest.WithPrivateEndpoints(), limits)
	// B asks A, so that B holds the outbound request connect/accept
	// confirms; A accepts.
	servertest.WantStatus(t, connectTo(t, b, a, "alice@example.com"), http.StatusCreated)
	servertest.WantStatus(t, a.user.Session.Do(http.MethodPost, "/api/federation/connections/"+a.only(t).ID+"/accept",
		map[string]any{}), http.StatusOK)
	connA, connB := a.only(t).ID, b.only(t).ID
	tokenAtB, tokenAtA := a.peerToken(t, a.only(t)), b.peerToken(t, b.only(t))
	// B trusts A: the tool call's condition.
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPatch, "/api/federation/connections/"+connB,
		map[string]any{"trustLevel": "trusted"}), http.StatusOK)
	// A's card sent to B as a request, which B completes: linked cards on
	// both sides and a completed relay for A to rate.
	servertest.WantStatus(t, a.user.Session.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Shared plan", "status": "leads"}),
		http.StatusCreated)
	aCard, err := a.DB.Card.Query().Where(card.Title("Shared plan")).Only(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res := a.user.Session.Do(http.MethodPost, "/api/federation/relays", map[string]any{"connectionId": connA, "subject": "Shared plan",
		"intent": "assign_task", "type": "request", "cardId": aCard.ID})
	bCard, _ := answer(t, res)["cardId"].(string)
	rated := object(t, res, "relay")["id"].(string)
	item := relayItem(t, b, rated)
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPost, "/api/queue/confirm", map[string]any{"id": item, "action": "approve"}), http.StatusOK)
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPost, "/api/v2/queue/"+item+"/result", map[string]any{"result": "done"}), http.StatusOK)
	// B's relay to A, which an ack from A moves.
	res = b.user.Session.Do(http.MethodPost, "/api/federation/relays", map[string]any{"connectionId": connB, "subject": "Sent by Bob", "intent": "get_info"})
	servertest.WantStatus(t, res, http.StatusOK)
	sentByB := object(t, res, "relay")["id"].(string)
	servertest.WaitFor(t, "B's outbox delivered", func() bool {
		n, err := b.DB.WebhookDelivery.Query().Where(webhookdelivery.StatusNEQ(webhookdelivery.StatusDelivered)).Count(context.Background())
		return err == nil && n == 0
	})

	handshake := map[string]any{"fromInstanceUrl": a.URL, "fromUserEmail": "dan@example.com", "fromUserName": "Dan",
		"toUserEmail": "bob@example.com", "federationToken": "sbf_offered-by-dan", "connectionId": "c-off"}
	confirm := map[string]any{"connectionId": connB, "federationToken": tokenAtA, "peerConnectionId": connA}
	rotate := map[string]any{"federationToken": tokenAtA}
	ack := map[string]any{"relayId": sentByB, "state": "accepted"}
	notify := map[string]any{"type": "mention", "title": "While off"}
	rating := map[string]any{"relayId": rated, "rating": 5, "feedback": "Quick and right"}
	job := map[string]any{"job": map[string]any{"id": "j-off", "title": "Paint the fence"}}
	tool := map[string]any{"tool": "mode_get"}
	status := map[string]any{"cardId": aCard.ID, "externalCardId": bCard, "newStatus": "active", "newPriority": "high", "changeLog": "while off"}
	relayBody := func(id string) map[string]any {
		return map[string]any{"relayId": id, "subject": "While off", "intent": "get_info"}
	}
	rest := []peerCall{
		{http.MethodPost, "/api/v2/connections", handshake, false, http.StatusNotFound}, // on: Dan's token does not verify
		{http.MethodPost, "/api/federation/connect/accept", confirm, true, http.StatusOK},
		{http.MethodPost, "/api/federation/connections/rotate", rotate, true, http.StatusOK},
		{http.MethodPost, "/api/v2/relay", relayBody("off-1"), true, http.StatusOK},
		{http.MethodPost, "/api/federation/relay", relayBody("off-2"), true, http.StatusOK},
		{http.MethodPost, "/api/federation/relay-ack", ack, true, http.StatusOK},
		{http.MethodPost, "/api/federation/notifications", notify, true, http.StatusOK},
		{http.MethodGet, "/api/federation/mentions?prefix=b", nil, true, http.StatusOK},
		{http.MethodGet, "/api/federation/entity-search?q=plan", nil, true, http.StatusOK},
		{http.MethodPost, "/api/federation/reputation", rating, true, http.StatusOK},
		{http.MethodGet, "/api/federation/patterns", nil, true, http.StatusOK},
		{http.MethodGet, "/api/federation/jobs", nil, true, http.StatusOK},
		{http.MethodPost, "/api/federation/jobs", job, true, http.StatusOK},
		{http.MethodPost, "/api/federation/mcp", tool, true, http.StatusOK},
		{http.MethodPost, "/api/federation/card-status", status, true, http.StatusOK},
		{http.MethodPost, "/api/federation/connections/remove", map[string]any{}, true, http.StatusOK}, // last: the connection goes
	}
	connectCalls := []peerCall{
		{http.MethodPost, switchboardv1connect.NetworkPeerServiceReceiveConnectionProcedure, handshake, false, 0},
		{http.MethodPost, switchboardv1connect.NetworkPeerServiceConfirmConnectionProcedure, confirm, true, 0},
		{http.MethodPost, switchboardv1connect.NetworkPeerServiceReplacePeerTokenProcedure, rotate, true, 0},
		{http.MethodPost, switchboardv1connect.NetworkPeerServiceDropConnectionProcedure, map[string]any{}, true, 0},
		{http.MethodPost, switchboardv1connect.NetworkRelayPeerServiceReceiveRelayProcedure, relayBody("off-3"), true, 0},
		{http.MethodPost, switchboardv1connect.NetworkRelayPeerServiceAckRelayProcedure, ack, true, 0},
		{http.MethodPost, switchboardv1connect.NetworkExchangePeerServiceReceiveNotificationProcedure, notify, true, 0},
		{http.MethodPost, switchboardv1connect.NetworkExchangePeerServiceSearchNetworkMentionsProcedure, map[string]any{"prefix": "b"}, true, 0},
		{http.MethodPost, switchboardv1connect.NetworkExchangePeerServiceReceiveJobProcedure, job, true, 0},
		{http.MethodPost, switchboardv1connect.NetworkExchangePeerServiceListSharedJobsProcedure, map[string]any{}, true, 0},
		{http.MethodPost, switchboardv1connect.NetworkExchangeServiceGetPatternsProcedure, map[string]any{}, true, 0},
		{http.MethodPost, switchboardv1connect.NetworkSharePeerServiceRateRelayProcedure, rating, true, 0},
		{http.MethodPost, switchboardv1connect.NetworkSharePeerServiceSearchSharedEntitiesProcedure, map[string]any{"q": "plan"}, true, 0},
		{http.MethodPost, switchboardv1connect.NetworkSharePeerServiceCallSharedToolProcedure, tool, true, 0},
		{http.MethodPost, switchboardv1connect.NetworkSharePeerServiceReceiveCardStatusProcedure, status, true, 0},
	}
	do := func(c peerCall) *servertest.Response {
		t.Helper()
		var body any
		if c.body != nil {
			body = c.body
		}
		if c.token {
			return b.Anonymous().Do(c.method, c.path, body, "X-Federation-Token", tokenAtB)
		}
		return b.Anonymous().Do(c.method, c.path, body)
	}
	endpoint := func(c peerCall) string { p, _, _ := strings.Cut(c.path, "?"); return p }
	refused := func(path string) int {
		t.Helper()
		n, err := b.DB.FederationAuditLog.Query().Where(federationauditlog.DirectionEQ(federationauditlog.DirectionInbound),
			federationauditlog.Endpoint(path), federationauditlog.StatusCode(http.StatusForbidden)).Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	servertest.WantStatus(t, b.user.Session.Do(http.MethodPut, "/api/admin/federation/settings", map[string]any{"enabled": false}), http.StatusOK)
	before := held(t, b, bCard)
	for _, c := range rest {
		res := do(c)
		servertest.WantErrorContaining(t, res, http.StatusForbidden, "the operator network is off")
		if got := held(t, b, bCard); got != before {
			t.Fatalf("%s %s while off wrote:\n%s\nwas:\n%s", c.method, c.path, got, before)
		}
	}
	for _, c := range connectCalls {
		res := do(c)
		servertest.WantStatus(t, res, http.StatusForbidden)
		if body := res.JSON(t); body["code"] != "permission_denied" || !strings.Contains(fmt.Sprint(body["message"]), "the operator network is off") {
			t.Fatalf("%s while off: %s", c.path, res.Body)
		}
		if got := held(t, b, bCard); got != before {
			t.Fatalf("%s while off wrote:\n%s\nwas:\n%s", c.path, got, before)
		}
	}
	// Each refusal is audited, as a 403, at its own endpoint (jobs has two
	// methods on one path).
	want := map[string]int{}
	for _, c := range append(append([]peerCall{}, rest...), connectCalls...) {
		want[endpoint(c)]++
	}
	for path, n := range want {
		servertest.WaitFor(t, fmt.Sprintf("%s audited as refused %d times", path, n), func() bool { return refused(path) == n })
	}

	// Switched on, the same REST calls are taken: the body and token were
	// good, the switch alone refused them.
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPut, "/api/admin/federation/settings", map[string]any{"enabled": true}), http.StatusOK)
	for _, c := range rest {
		if res := do(c); res.Status != c.on {
			t.Fatalf("%s %s with the network on: %d %s", c.method, c.path, res.Status, res.Body)
		}
	}
	if got := held(t, b, bCard); got == before {
		t.Fatal("the calls with the network on wrote nothing")
	}
	if len(b.connections(t)) != 0 || b.rated(t) != 1 || b.notifications(t) != 1 || b.jobs(t) != 1 {
		t.Fatalf("with the network on: connections %d, ratings %d, notifications %d, jobs %d",
			len(b.connections(t)), b.rated(t), b.notifications(t), b.jobs(t))
	}
}
