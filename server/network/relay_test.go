package network_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	"github.com/switchboard-hq/switchboard/ent/federationauditlog"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/ent/relay"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// relayPair is two instances on loopback, A's alice connected to B's bob
// (active on both sides), with the federation limit raised so a test may
// send many relays.
type relayPair struct {
	a, b         *instance
	connA, connB string
	// tokenAtB is what A presents at B; tokenAtA what B presents at A.
	tokenAtB, tokenAtA string
}

func newRelayPair(t *testing.T, aOpts ...servertest.Option) *relayPair {
	t.Helper()
	limits := servertest.WithLimits(gate.Limits{PerKey: 100000, Auth: 100000, Heavy: 100000, Federation: 100000})
	a := newInstance(t, "alice", on(), append([]servertest.Option{servertest.WithPrivateEndpoints(), limits}, aOpts...)...)
	b := newInstance(t, "bob", on(), servertest.WithPrivateEndpoints(), limits)
	servertest.WantStatus(t, connectTo(t, a, b, "bob@example.com"), http.StatusCreated)
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPost, "/api/federation/connections/"+b.only(t).ID+"/accept",
		map[string]any{}), http.StatusOK)
	p := &relayPair{a: a, b: b, connA: a.only(t).ID, connB: b.only(t).ID}
	p.tokenAtB, p.tokenAtA = a.peerToken(t, a.only(t)), b.peerToken(t, b.only(t))
	return p
}

// send is A's operator sending a relay to B.
func (p *relayPair) send(t *testing.T, body map[string]any) *servertest.Response {
	t.Helper()
	body["connectionId"] = p.connA
	return p.a.user.Session.Do(http.MethodPost, "/api/federation/relays", body)
}

// direct is a relay posted straight to B's peer route with A's token.
func (p *relayPair) direct(path string, body any) *servertest.Response {
	return p.b.Anonymous().Do(http.MethodPost, path, body, "X-Federation-Token", p.tokenAtB)
}

// sentRelay is A's copy of a relay.
func (p *relayPair) sentRelay(t *testing.T, id string) map[string]any {
	t.Helper()
	res := p.a.user.Session.Do(http.MethodGet, "/api/federation/relays/"+id, nil)
	servertest.WantStatus(t, res, http.StatusOK)
	return object(t, res, "relay")
}

// waitState waits until A's copy of relay id is in state.
// approveThenBlock has B approve its item for relay id, then (a second
// later on B's clock) block it "waiting on legal"; A sees each state.
func (p *relayPair) approveThenBlock(t *testing.T, itemID, id string) {
	t.Helper()
	b := p.b.user.Session
	servertest.WantStatus(t, b.Do(http.MethodPost, "/api/queue/confirm", map[string]any{"id": itemID, "action": "approve"}), http.StatusOK)
	p.waitState(t, id, "accepted")
	p.b.Clock.Advance(time.Second)
	servertest.WantStatus(t, b.Do(http.MethodPost, "/api/v2/queue/"+itemID+"/result",
		map[string]any{"result": "waiting on legal", "status": "blocked"}), http.StatusOK)
	if got := p.waitState(t, id, "blocked"); got["reason"] != "waiting on legal" {
		t.Fatalf("blocked: %v", got)
	}
}

func (p *relayPair) waitState(t *testing.T, id, state string) map[string]any {
	t.Helper()
	var got map[string]any
	servertest.WaitFor(t, "relay "+id+" "+state+" at the sender", func() bool {
		got = p.sentRelay(t, id)
		return got["state"] == state
	})
	return got
}

func items(t *testing.T, in *instance) []*ent.QueueItem {
	t.Helper()
	rows, err := in.DB.QueueItem.Query().Where(queueitem.UserID(in.user.ID)).Order(ent.Asc(queueitem.FieldCreatedAt), ent.Asc(queueitem.FieldID)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func comms(t *testing.T, in *instance, typ string) []*ent.ChatMessage {
	t.Helper()
	rows, err := in.DB.ChatMessage.Query().Where(chatmessage.UserID(in.user.ID), chatmessage.MetadataType(typ)).
		Order(ent.Asc(chatmessage.FieldCreatedAt), ent.Asc(chatmessage.FieldID)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// pushes is a loopback push-webhook receiver that checks each signature.
type pushes struct {
	mu  sync.Mutex
	got []map[string]any
}

func (p *pushes) states(event string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, b := range p.got {
		if b["event"] == event {
			out = append(out, b["data"].(map[string]any)["state"].(string))
		}
	}
	return out
}

func receivePushes(t *testing.T, in *instance) *pushes {
	t.Helper()
	const secret = "a-long-enough-secret"
	p := &pushes{}
	recv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		if r.Header.Get("X-Switchboard-Signature") != "sha256="+hex.EncodeToString(mac.Sum(nil)) {
			t.Errorf("bad signature on %s", body)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Errorf("push body %s: %v", body, err)
		}
		p.mu.Lock()
		p.got = append(p.got, m)
		p.mu.Unlock()
	}))
	recv.Config.ReadHeaderTimeout = 10 * time.Second
	recv.Start()
	t.Cleanup(recv.Close)
	servertest.WantStatus(t, in.user.Session.Do(http.MethodPatch, "/api/v2/settings", map[string]any{
		"serviceKeys": []map[string]any{{"service": "webhook_push", "url": recv.URL, "secret": secret}},
	}), http.StatusOK)
	return p
}

// TestRelayTaskLifecycle: RULINGS "The operator network: connections and
// relays" (Relays; Relay state, forward only) and document 2 "Relay"
// (the new-task and duplicate answers), "Events" (relay-ack,
// relay.state_changed). A task relay lands in B's queue pending with the
// requester and a card even with B's auto-approve on; the same relay again
// is a duplicate; B's approve, block (reason), unblock and complete (result)
// reach A as accepted, blocked, accepted, completed, each with a comms
// message, relay_responded activity and a signed push; a rejected relay is
// declined; a replayed older ack changes nothing.
func TestRelayTaskLifecycle(t *testing.T) {
	t.Parallel()
	p := newRelayPair(t)
	hooks := receivePushes(t, p.a)
	servertest.WantStatus(t, p.b.user.Session.Do(http.MethodPatch, "/api/v2/settings",
		map[string]any{"queueAutoApprove": true}), http.StatusOK)

	res := p.send(t, map[string]any{"subject": "Review the Q3 plan", "intent": "assign_task", "type": "request",
		"priority": "normal", "payload": map[string]any{"description": "Two pages, by Friday"}})
	servertest.WantStatus(t, res, http.StatusOK)
	ans, sent := object(t, res, "answer"), object(t, res, "relay")
	id := sent["id"].(string)
	if ans["success"] != true || ans["task"] != true || ans["relayId"] != id || ans["cardId"] == nil || ans["message"] == nil {
		t.Fatalf("B's answer: %v", ans)
	}
	if sent["state"] != "delivered" || sent["direction"] != "outbound" || sent["peer"] != "bob@"+host(p.b.URL) {
		t.Fatalf("A's copy: %v", sent)
	}
	if p.a.activity(t, "relay_sent") != 1 {
		t.Fatal("relay_sent not written")
	}
	list := items(t, p.b)
	if len(list) != 1 {
		t.Fatalf("B's queue: %d items", len(list))
	}
	it := list[0]
	if it.Status != queueitem.StatusPendingConfirmation || it.TaskOrigin != queueitem.TaskOriginFederation ||
		it.Priority != queueitem.PriorityMedium || deref(it.RequesterEmail) != "alice@example.com" ||
		deref(it.SourceInstanceName) == "" || deref(it.CardID) != ans["cardId"] || deref(it.Description) != "Two pages, by Friday" {
		t.Fatalf("B's item: %+v", it)
	}

	// Idempotent on the sender's relay id, at either path.
	dup := p.direct("/api/federation/relay", map[string]any{"relayId": id, "subject": "Review the Q3 plan"})
	servertest.WantStatus(t, dup, http.StatusOK)
	if body := dup.JSON(t); body["duplicate"] != true || body["relayId"] != id || body["task"] != nil {
		t.Fatalf("duplicate: %s", dup.Body)
	}
	dup = p.direct("/api/v2/relay", map[string]any{"relayId": id, "subject": "Review the Q3 plan"})
	servertest.WantStatus(t, dup, http.StatusOK)
	if body := dup.JSON(t); body["duplicate"] != true || body["relayId"] != id || body["task"] != nil {
		t.Fatalf("duplicate at /api/v2/relay: %s", dup.Body)
	}
	if len(items(t, p.b)) != 1 {
		t.Fatal("a duplicate made another item")
	}

	// B's clock moves a second between changes, as time does: acks of
	// accepted and blocked are ordered by when they happened.
	b := p.b.user.Session
	p.approveThenBlock(t, it.ID, id)
	p.b.Clock.Advance(time.Second)
	servertest.WantStatus(t, b.Do(http.MethodPost, "/api/v2/queue/"+it.ID+"/status", map[string]any{"status": "ready"}), http.StatusOK)
	if got := p.waitState(t, id, "accepted"); got["reason"] != nil {
		t.Fatalf("unblocked keeps the reason: %v", got)
	}
	p.b.Clock.Advance(time.Second)
	servertest.WantStatus(t, b.Do(http.MethodPost, "/api/v2/queue/"+it.ID+"/result",
		map[string]any{"result": "Reviewed: ship it"}), http.StatusOK)
	if got := p.waitState(t, id, "completed"); got["result"] != "Reviewed: ship it" {
		t.Fatalf("completed: %v", got)
	}
	if n := len(comms(t, p.a, "relay_state_changed")); n != 4 {
		t.Fatalf("A's comms messages: %d, want 4", n)
	}
	if n := p.a.activity(t, "relay_responded"); n != 4 {
		t.Fatalf("A's relay_responded: %d, want 4", n)
	}
	servertest.WaitFor(t, "four signed relay.state_changed pushes", func() bool {
		return len(hooks.states("relay.state_changed")) == 4
	})
	if got := strings.Join(hooks.states("relay.state_changed"), ","); got != "accepted,blocked,accepted,completed" {
		t.Fatalf("pushes: %s", got)
	}

	// A replayed older ack changes nothing: the relay stays completed.
	old := p.a.Anonymous().Do(http.MethodPost, "/api/federation/relay-ack", map[string]any{"relayId": id, "state": "accepted",
		"occurredAt": p.a.Clock.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}, "X-Federation-Token", p.tokenAtA)
	servertest.WantStatus(t, old, http.StatusOK)
	if body := old.JSON(t); body["applied"] != false || body["state"] != "completed" {
		t.Fatalf("replayed ack: %s", old.Body)
	}
	if got := p.sentRelay(t, id); got["state"] != "completed" || p.a.activity(t, "relay_responded") != 4 {
		t.Fatalf("after the replay: %v", got)
	}

	// B rejects another, sent with A's key (scope network): declined.
	res = p.a.WithKey(p.a.user.NewKey("assistant", "network")).Do(http.MethodPost, "/api/federation/relays",
		map[string]any{"connectionId": p.connA, "subject": "Also this", "intent": "get_info"})
	servertest.WantStatus(t, res, http.StatusOK)
	second := object(t, res, "relay")["id"].(string)
	other := items(t, p.b)[1]
	servertest.WantStatus(t, b.Do(http.MethodPost, "/api/queue/confirm", map[string]any{"id": other.ID, "action": "reject"}), http.StatusOK)
	p.waitState(t, second, "declined")

	// RULINGS "Federation" (audit): every call between the two is audited on
	// both sides: the relays (Connect, from A's sends, by session and by
	// key), the duplicates this test posted itself (REST, one at each path,
	// audited where they arrived) and the acks (the outbox's attempts).
	if in, out := p.b.audited(t, federationauditlog.DirectionInbound, "/switchboard.v1.NetworkRelayPeerService/ReceiveRelay"),
		p.a.audited(t, federationauditlog.DirectionOutbound, "/switchboard.v1.NetworkRelayPeerService/ReceiveRelay"); in != 2 || out != 2 {
		t.Fatalf("relays audited: B inbound %d, A outbound %d", in, out)
	}
	servertest.WaitFor(t, "the duplicates audited", func() bool {
		return p.b.audited(t, federationauditlog.DirectionInbound, "/api/federation/relay") == 1 &&
			p.b.audited(t, federationauditlog.DirectionInbound, "/api/v2/relay") == 1
	})
	// The outbox's acks go to AckRelay's procedure (B learned at the
	// handshake that A speaks Connect); the replay above took the REST route.
	ack := switchboardv1connect.NetworkRelayPeerServiceAckRelayProcedure
	servertest.WaitFor(t, "the acks audited on both sides", func() bool {
		return p.a.audited(t, federationauditlog.DirectionInbound, ack) == 5 &&
			p.a.audited(t, federationauditlog.DirectionInbound, "/api/federation/relay-ack") == 1 &&
			p.b.audited(t, federationauditlog.DirectionOutbound, ack) == 5
	})

	// B's own copies follow the queue.
	rows, err := p.b.DB.Relay.Query().Where(relay.DirectionEQ(relay.DirectionInbound)).Order(ent.Asc(relay.FieldCreatedAt), ent.Asc(relay.FieldID)).All(context.Background())
	if err != nil || len(rows) != 2 || rows[0].State != relay.StateCompleted || rows[1].State != relay.StateDeclined {
		t.Fatalf("B's relays: %v %v", rows, err)
	}
	// A's list by thread and by state.
	res = p.a.user.Session.Do(http.MethodGet, "/api/federation/relays?state=declined", nil)
	if l := res.JSON(t)["relays"].([]any); len(l) != 1 || l[0].(map[string]any)["id"] != second {
		t.Fatalf("declined list: %s", res.Body)
	}
	res = p.a.user.Session.Do(http.MethodGet, "/api/federation/relays?threadId="+id, nil)
	if l := res.JSON(t)["relays"].([]any); len(l) != 1 {
		t.Fatalf("thread list: %s", res.Body)
	}
}

// TestRelayAckRetriedWhileSenderDown: RULINGS "The operator network" (each
// change goes back through the outbox) and document 2 "Outbound delivery
// retry": A refuses B's ack while A's network is off (403, as an instance
// that is down fails an attempt); B retries on the short schedule on its
// injected clock and A shows the state once it is back, applied once.
func TestRelayAckRetriedWhileSenderDown(t *testing.T) {
	t.Parallel()
	p := newRelayPair(t)
	res := p.send(t, map[string]any{"subject": "Book the venue", "intent": "schedule"})
	servertest.WantStatus(t, res, http.StatusOK)
	id := object(t, res, "relay")["id"].(string)
	it := items(t, p.b)[0]

	servertest.WantStatus(t, p.a.user.Session.Do(http.MethodPut, "/api/admin/federation/settings", map[string]any{"enabled": false}), http.StatusOK)
	servertest.WantStatus(t, p.b.user.Session.Do(http.MethodPost, "/api/queue/confirm", map[string]any{"id": it.ID, "action": "approve"}), http.StatusOK)
	servertest.WaitFor(t, "the first attempt failed", func() bool {
		row, err := p.b.DB.WebhookDelivery.Query().Only(context.Background())
		return err == nil && row.Attempts == 1 && row.LastStatus != nil && *row.LastStatus == http.StatusForbidden
	})
	if got := p.sentRelay(t, id); got["state"] != "delivered" {
		t.Fatalf("A while down: %v", got)
	}
	servertest.WantStatus(t, p.a.user.Session.Do(http.MethodPut, "/api/admin/federation/settings", map[string]any{"enabled": true}), http.StatusOK)
	p.b.Clock.Advance(31 * time.Second)
	p.waitState(t, id, "accepted")
	servertest.WaitFor(t, "the retry delivered", func() bool {
		row, err := p.b.DB.WebhookDelivery.Query().Only(context.Background())
		return err == nil && row.Attempts == 2 && row.DeliveredAt != nil
	})
	if n := p.a.activity(t, "relay_responded"); n != 1 {
		t.Fatalf("applied %d times", n)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestRelayApprovalWidget: RULINGS "The operator network" (request_approval
// items carry an approve/decline widget whose response acks the relay) and
// the widget-response route of issue 9, which now takes a relayId: approve
// completes the relay at the sender, decline declines another.
func TestRelayApprovalWidget(t *testing.T) {
	t.Parallel()
	p := newRelayPair(t)
	ids := make([]string, 2)
	for i := range ids {
		res := p.send(t, map[string]any{"subject": "Sign the contract", "intent": "request_approval"})
		servertest.WantStatus(t, res, http.StatusOK)
		ids[i] = object(t, res, "relay")["id"].(string)
	}
	rows, err := p.b.DB.Relay.Query().Order(ent.Asc(relay.FieldCreatedAt), ent.Asc(relay.FieldID)).All(context.Background())
	if err != nil || len(rows) != 2 {
		t.Fatalf("B's relays: %v %v", rows, err)
	}
	answerWidget := func(relayID, action string) {
		t.Helper()
		servertest.WantStatus(t, p.b.user.Session.Do(http.MethodPost, "/api/relays/widget-response", map[string]any{
			"relayId": relayID, "widgetId": "relay-approval", "widgetItemId": "decision", "action": action}), http.StatusOK)
	}
	answerWidget(rows[0].ID, "approve")
	p.waitState(t, ids[0], "completed")
	answerWidget(rows[1].ID, "decline")
	p.waitState(t, ids[1], "declined")
	if n := len(items(t, p.b)); n != 1 {
		t.Fatalf("B's items after approve and decline: %d, want the approved one", n)
	}
	// Another account's relay is 404 at the widget route.
	carol := p.b.SignUp("carol")
	servertest.WantError(t, carol.Session.Do(http.MethodPost, "/api/relays/widget-response", map[string]any{
		"relayId": rows[0].ID, "widgetId": "relay-approval", "action": "approve"}), http.StatusNotFound)
}

// outboxRows are the instance's outbox rows of one event, oldest first.
func outboxRows(t *testing.T, in *instance, event string) []*ent.WebhookDelivery {
	t.Helper()
	rows, err := in.DB.WebhookDelivery.Query().Where(webhookdelivery.Event(event)).
		Order(ent.Asc(webhookdelivery.FieldCreatedAt), ent.Asc(webhookdelivery.FieldID)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestReplayedOlderAckWhileBlocked: RULINGS "The operator network" (Relay
// state, forward only: the sender applies a change only if it moves
// forward) and docs/decisions.md (accepted ⇄ blocked applies only when its
// occurredAt is after the last applied change). The relay is accepted, then
// blocked at the sender through B's real moves; B's earlier accepted ack,
// re-delivered as B's outbox sent it (its older occurredAt), leaves A
// blocked with its reason: no comms message, no relay_responded, no
// relay.state_changed push more.
func TestReplayedOlderAckWhileBlocked(t *testing.T) {
	t.Parallel()
	p := newRelayPair(t)
	hooks := receivePushes(t, p.a)
	res := p.send(t, map[string]any{"subject": "Draft the contract", "intent": "assign_task"})
	servertest.WantStatus(t, res, http.StatusOK)
	id := object(t, res, "relay")["id"].(string)
	it := items(t, p.b)[0]
	p.approveThenBlock(t, it.ID, id)
	servertest.WaitFor(t, "two relay.state_changed pushes", func() bool {
		return len(hooks.states("relay.state_changed")) == 2
	})

	// B's accepted ack as its outbox delivered it.
	var accepted []byte
	for _, row := range outboxRows(t, p.b, network.EventRelayAck) {
		var body map[string]any
		if err := json.Unmarshal([]byte(row.Payload), &body); err != nil {
			t.Fatal(err)
		}
		if body["state"] == "accepted" {
			if accepted != nil || row.DeliveredAt == nil {
				t.Fatalf("B's accepted acks: %s", row.Payload)
			}
			accepted = []byte(row.Payload)
		}
	}
	if accepted == nil {
		t.Fatal("no accepted ack in B's outbox")
	}
	replay := p.a.Anonymous().Do(http.MethodPost, network.AckPath, accepted, "X-Federation-Token", p.tokenAtA)
	servertest.WantStatus(t, replay, http.StatusOK)
	if body := replay.JSON(t); body["applied"] != false || body["state"] != "blocked" {
		t.Fatalf("the replayed accepted ack: %s", replay.Body)
	}
	if got := p.sentRelay(t, id); got["state"] != "blocked" || got["reason"] != "waiting on legal" {
		t.Fatalf("A after the replay: %v", got)
	}
	if n := len(comms(t, p.a, "relay_state_changed")); n != 2 {
		t.Fatalf("A's comms messages: %d, want 2", n)
	}
	if n := p.a.activity(t, "relay_responded"); n != 2 {
		t.Fatalf("A's relay_responded: %d, want 2", n)
	}
	// The pushes A enqueued are the two of the real moves, both delivered
	// (a row is marked once its receiver has answered, so after the hook saw
	// it).
	servertest.WaitFor(t, "A's two relay.state_changed rows delivered", func() bool {
		rows := outboxRows(t, p.a, webhooks.EventRelayStateChanged)
		return len(rows) == 2 && rows[0].DeliveredAt != nil && rows[1].DeliveredAt != nil
	})
	if n := len(outboxRows(t, p.a, webhooks.EventRelayStateChanged)); n != 2 {
		t.Fatalf("A's relay.state_changed rows: %d, want 2", n)
	}
	if got := strings.Join(hooks.states("relay.state_changed"), ","); got != "accepted,blocked" {
		t.Fatalf("pushes: %s", got)
	}
	// The replay was heard (and audited) all the same.
	servertest.WaitFor(t, "the acks audited at A", func() bool {
		return p.a.audited(t, federationauditlog.DirectionInbound, network.AckPath) == 1 &&
			p.a.audited(t, federationauditlog.DirectionInbound, switchboardv1connect.NetworkRelayPeerServiceAckRelayProcedure) == 2
	})
}
