package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// networkArgs switch the operator network on for loopback peers (RULINGS
// "The operator network: connections and relays": --federation, and
// --federation-allow-private admits http:// and private addresses).
var networkArgs = []string{"--federation", "--federation-allow-private"}

// TestThreeInstanceNetwork: the operator network between three processes,
// each with its own database (issue 15's three-instance test): A asks B,
// B's request is pending until B accepts, then both are active; C
// auto-accepts A, whose origin is on C's allowlist, so A↔C is active at
// once; a task relay from A goes through its whole life at B and back
// (relayLifecycle); a handshake whose fromInstanceUrl cannot sign the nonce
// records nothing.
func TestThreeInstanceNetwork(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	// A's instance key is the test's, so the test can present A's token as
	// A does (the duplicate relay below).
	aKey := make([]byte, secrets.KeySize)
	_, _ = rand.Read(aKey)
	keyFile := filepath.Join(t.TempDir(), "a.key")
	if err := os.WriteFile(keyFile, []byte(base64.StdEncoding.EncodeToString(aKey)), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startInstance(t, bin, "a", append([]string{"--secret-key-file", keyFile}, networkArgs...)...)
	// B retries its acks for longer than A takes to restart (A is down
	// when one is due), in four attempts: a fifth failure would open the
	// target's breaker for a minute.
	b := startInstance(t, bin, "b", append([]string{"--federation-retry-schedule", "2s,8s,30s"}, networkArgs...)...)
	c := startInstance(t, bin, "c", append([]string{"--federation-allowlist", a.base}, networkArgs...)...)
	must(t, c.owner, http.StatusOK, http.MethodPut, "/api/federation/preferences", `{"autoAccept":true}`)

	// A → B: pending on both sides until B accepts.
	res := must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/federation/connect",
		`{"peerInstanceUrl":"`+b.base+`","peerUserEmail":"owner@b.example","message":"work together?"}`)
	toB := res["connection"].(map[string]any)
	if toB["status"] != "pending" || toB["direction"] != "outbound" {
		t.Fatalf("A's request to B: %v", toB)
	}
	pending := connections(t, b, "pending")
	if len(pending) != 1 || pending[0]["peerUserEmail"] != "owner@a.example" || pending[0]["direction"] != "inbound" {
		t.Fatalf("B's pending requests: %v", pending)
	}
	must(t, b.owner, http.StatusOK, http.MethodPost, "/api/federation/connections/"+pending[0]["id"].(string)+"/accept", `{}`)
	for _, in := range []*instance{a, b} {
		if got := connections(t, in, "active"); len(got) != 1 || got[0]["status"] != "active" {
			t.Fatalf("%s after B accepted: %v", in.name, got)
		}
	}
	// The key's list (network scope) shows the active connection too.
	if got := must(t, b.key, http.StatusOK, http.MethodGet, "/api/v2/connections", "")["connections"].([]any); len(got) != 1 {
		t.Fatalf("B's active connections by key: %v", got)
	}

	// A → C: active at once (C auto-accepts, A is on C's allowlist).
	res = must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/federation/connect",
		`{"peerInstanceUrl":"`+c.base+`","peerUserEmail":"owner@c.example"}`)
	if got := res["connection"].(map[string]any)["status"]; got != "active" {
		t.Fatalf("A's request to C: %v", res)
	}
	if got := connections(t, c, "active"); len(got) != 1 || got[0]["peerUserEmail"] != "owner@a.example" {
		t.Fatalf("C's connections: %v", got)
	}
	if got := connections(t, a, "active"); len(got) != 2 {
		t.Fatalf("A's active connections: %v", got)
	}

	relayLifecycle(t, bin, a, b, connectionTo(t, a, b.base), aKey)

	// A caller that cannot sign the nonce with the token it offers: 404 on
	// B, as for an unknown user, and B records nothing.
	impostor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"nonce": r.URL.Query().Get("nonce"), "signature": "not-the-hmac"})
	}))
	defer impostor.Close()
	anon := newClient(t, b.base)
	must(t, anon, http.StatusNotFound, http.MethodPost, "/api/v2/connections",
		`{"fromInstanceUrl":"`+impostor.URL+`","fromUserEmail":"eve@evil.example","fromUserName":"Eve","toUserEmail":"owner@b.example",`+
			`"federationToken":"sbf_forged0123456789","connectionId":"forged"}`)
	if got := connections(t, b, "all"); len(got) != 1 {
		t.Fatalf("B's connections after the unverified handshake: %v", got)
	}
}

// connections lists an instance owner's connections of a status.
func connections(t *testing.T, in *instance, status string) []map[string]any {
	t.Helper()
	var out []map[string]any
	list, _ := must(t, in.owner, http.StatusOK, http.MethodGet, "/api/federation/connections?status="+status, "")["connections"].([]any)
	for _, c := range list {
		out = append(out, c.(map[string]any))
	}
	return out
}

// connectionTo is from's active connection with the instance at base.
func connectionTo(t *testing.T, from *instance, base string) string {
	t.Helper()
	for _, c := range connections(t, from, "active") {
		if c["peerInstanceUrl"] == base {
			return c["id"].(string)
		}
	}
	t.Fatalf("%s has no active connection with %s", from.name, base)
	return ""
}

// relayLifecycle: issue 15's relay acceptance across processes (RULINGS
// "The operator network: connections and relays", Relays and Relay state;
// document 2 "Events", relay-ack and relay.state_changed). A task relay
// from A, sent with A's card, lands pending in B's queue even with B's
// auto-approve on, with A as the requester and a card linked to A's; B
// approves, blocks (with a reason) and unblocks it, and A's relay follows;
// A is down when B completes it, B's outbox row for that ack records the
// failed attempt, B retries on its short schedule and A shows completed with
// the result once it is back (the row delivered after two attempts or more);
// each change is a comms message, a relay_responded entry and a signed
// relay.state_changed push on A; a replayed older ack changes nothing; B's
// card move reaches A's card's change log and A's next briefing; a rejected
// relay is declined, and told as the other changes are.
func relayLifecycle(t *testing.T, bin string, a, b *instance, connB string, aKey []byte) {
	t.Helper()
	pushes := receiveSignedPushes(t, a)
	must(t, b.key, http.StatusOK, http.MethodPatch, "/api/v2/settings", `{"queueAutoApprove":true}`)
	aCard := must(t, a.key, http.StatusCreated, http.MethodPost, "/api/v2/kanban", `{"title":"Q3 plan","status":"leads"}`)["card"].(map[string]any)["id"].(string)

	sent := must(t, a.key, http.StatusOK, http.MethodPost, "/api/federation/relays",
		`{"connectionId":"`+connB+`","type":"request","intent":"assign_task","subject":"Review the Q3 plan","priority":"normal","cardId":"`+aCard+`","payload":{"description":"Two pages"}}`)
	answer := sent["answer"].(map[string]any)
	if answer["task"] != true || answer["cardId"] == nil {
		t.Fatalf("the relay's answer: %v", sent)
	}
	relayID := sent["relay"].(map[string]any)["id"].(string)
	items := must(t, b.key, http.StatusOK, http.MethodGet, "/api/v2/queue?status=pending_confirmation", "")["data"].(map[string]any)["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("B's pending items: %v", items)
	}
	item := items[0].(map[string]any)
	if item["title"] != "Review the Q3 plan" || item["requesterEmail"] != "owner@a.example" || item["cardId"] != answer["cardId"] {
		t.Fatalf("B's item: %v", item)
	}
	// The same relay again, as A's retry would send it (A's token to B):
	// duplicate, and no second item.
	code, dup := newClient(t, b.base).do(http.MethodPost, "/api/federation/relay",
		`{"relayId":"`+relayID+`","subject":"Review the Q3 plan"}`, "X-Federation-Token", peerToken(t, a, connB, aKey))
	if code != http.StatusOK || dup["duplicate"] != true || dup["relayId"] != relayID || dup["task"] != nil {
		t.Fatalf("the same relay again: %d %v", code, dup)
	}
	if again := must(t, b.key, http.StatusOK, http.MethodGet, "/api/v2/queue?status=pending_confirmation", "")["data"].(map[string]any)["items"].([]any); len(again) != 1 {
		t.Fatalf("B's pending items after the duplicate: %v", again)
	}
	itemPath := "/api/v2/queue/" + item["id"].(string)
	state := func(want string) map[string]any {
		t.Helper()
		var got map[string]any
		within(t, 60*time.Second, "A's relay "+want, func() bool {
			got = must(t, a.key, http.StatusOK, http.MethodGet, "/api/federation/relays/"+relayID, "")["relay"].(map[string]any)
			return got["state"] == want
		})
		return got
	}

	must(t, b.key, http.StatusOK, http.MethodPost, itemPath+"/confirm", `{"action":"approve"}`)
	state("accepted")
	must(t, b.key, http.StatusOK, http.MethodPost, itemPath+"/result", `{"result":"waiting on legal","status":"blocked"}`)
	if got := state("blocked"); got["reason"] != "waiting on legal" {
		t.Fatalf("blocked: %v", got)
	}
	must(t, b.key, http.StatusOK, http.MethodPost, itemPath+"/status", `{"status":"ready"}`)
	state("accepted")

	// A's own pushes so far are out before it is killed: a push A had
	// claimed when it died waits out its claim's lease (webhooks.Lease, five
	// minutes), which is A's outbox and not what this part is about.
	within(t, 15*time.Second, "three signed relay.state_changed pushes on A", func() bool {
		return len(pushes.states()) == 3
	}, func() string { return strings.Join(pushes.states(), ",") })

	// A is down when B's completed ack is due: B's outbox row for it shows
	// the failed attempt (nothing answered, no status) before A is back.
	a.stop(t)
	must(t, b.key, http.StatusOK, http.MethodPost, itemPath+"/result", `{"result":"Reviewed: ship it"}`)
	var failed *ent.WebhookDelivery
	within(t, 15*time.Second, "B's completed ack failed while A is down", func() bool {
		failed = ackRow(t, b, relayID, "completed")
		return failed != nil && failed.Attempts >= 1
	})
	if failed.Status != webhookdelivery.StatusPending || failed.DeliveredAt != nil || failed.LastStatus != nil ||
		failed.LastError == nil || *failed.LastError == "" {
		t.Fatalf("B's ack after its first attempt with A down: %+v", failed)
	}
	a.start(t, bin)
	if got := state("completed"); got["result"] != "Reviewed: ship it" {
		t.Fatalf("completed: %v", got)
	}
	// Delivered by a retry: at least one attempt failed, the last got 200.
	// A applies the ack before B's dispatcher records A's answer: wait for
	// B's row to say delivered.
	var row *ent.WebhookDelivery
	within(t, 15*time.Second, "B's completed ack recorded as delivered", func() bool {
		row = ackRow(t, b, relayID, "completed")
		return row.Status == webhookdelivery.StatusDelivered
	}, func() string {
		return fmt.Sprintf("attempts %d, status %s, last status %v", row.Attempts, row.Status, row.LastStatus)
	})
	if row.Attempts < 2 || row.LastStatus == nil || *row.LastStatus != http.StatusOK {
		t.Fatalf("B's completed ack once A is back: attempts %d, status %s, last status %v", row.Attempts, row.Status, row.LastStatus)
	}
	within(t, 15*time.Second, "four signed relay.state_changed pushes on A", func() bool {
		return len(pushes.states()) == 4
	}, func() string { return strings.Join(pushes.states(), ",") })
	if got := strings.Join(pushes.states(), ","); got != "accepted,blocked,accepted,completed" {
		t.Fatalf("A's pushes: %s", got)
	}
	responded, messages := relayTrail(t, a)
	if responded != 4 || messages != 4 {
		t.Fatalf("A's relay_responded entries %d and comms messages %d, want 4 each", responded, messages)
	}

	// B's outbox sends its blocked ack again (put back due; B's next
	// outbox row, its card move below, wakes the dispatcher): A applies
	// nothing.
	replayed := replayDelivery(t, b, relayID, `"state":"blocked"`)

	// B moves its card: A's linked card hears it, and A's next briefing
	// shows it as a digest.
	must(t, b.key, http.StatusOK, http.MethodPut, "/api/v2/kanban/"+answer["cardId"].(string), `{"status":"proposal"}`)
	within(t, 15*time.Second, "B's card move in A's change log", func() bool {
		log, _ := must(t, a.key, http.StatusOK, http.MethodGet, "/api/v2/kanban/"+aCard, "")["card"].(map[string]any)["changeLog"].([]any)
		return len(log) == 1
	})
	briefing := must(t, a.owner, http.StatusOK, http.MethodGet, "/api/federation/briefing", "")
	digest, _ := briefing["linkedCardChanges"].([]any)
	if len(digest) != 1 || digest[0].(map[string]any)["id"] != aCard {
		t.Fatalf("A's briefing digest: %v", briefing["linkedCardChanges"])
	}

	within(t, 15*time.Second, "the replayed ack delivered again", func() bool {
		row := deliveryOn(t, b, replayed)
		return row.Status == webhookdelivery.StatusDelivered && row.LastStatus != nil && *row.LastStatus == http.StatusOK
	})
	if got := must(t, a.key, http.StatusOK, http.MethodGet, "/api/federation/relays/"+relayID, "")["relay"].(map[string]any); got["state"] != "completed" {
		t.Fatalf("after the replayed ack: %v", got)
	}
	if responded, _ := relayTrail(t, a); responded != 4 {
		t.Fatalf("the replayed ack was applied: %d relay_responded entries", responded)
	}

	// B rejects another: declined at A.
	sent = must(t, a.key, http.StatusOK, http.MethodPost, "/api/federation/relays",
		`{"connectionId":"`+connB+`","type":"request","intent":"get_info","subject":"Also this"}`)
	relayID = sent["relay"].(map[string]any)["id"].(string)
	items = must(t, b.key, http.StatusOK, http.MethodGet, "/api/v2/queue?status=pending_confirmation", "")["data"].(map[string]any)["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("B's pending items: %v", items)
	}
	must(t, b.key, http.StatusOK, http.MethodPost, "/api/v2/queue/"+items[0].(map[string]any)["id"].(string)+"/confirm", `{"action":"reject"}`)
	state("declined")
	// The fifth change is told as the other four: a comms message, a
	// relay_responded entry and a signed push on A.
	within(t, 15*time.Second, "five signed relay.state_changed pushes on A", func() bool {
		return len(pushes.states()) == 5
	}, func() string { return strings.Join(pushes.states(), ",") })
	if got := strings.Join(pushes.states(), ","); got != "accepted,blocked,accepted,completed,declined" {
		t.Fatalf("A's pushes: %s", got)
	}
	if responded, messages := relayTrail(t, a); responded != 5 || messages != 5 {
		t.Fatalf("A's relay_responded entries %d and comms messages %d after the decline, want 5 each", responded, messages)
	}
}

// ackRow is in's outbox row of the relay-ack of relayID in state, or nil
// before there is one.
func ackRow(t *testing.T, in *instance, relayID, state string) *ent.WebhookDelivery {
	t.Helper()
	d := openDB(t, in)
	defer d.Close()
	row, err := d.WebhookDelivery.Query().Where(webhookdelivery.Event(network.EventRelayAck),
		webhookdelivery.PayloadContains(`"relayId":"`+relayID+`"`), webhookdelivery.PayloadContains(`"state":"`+state+`"`)).Only(context.Background())
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// relayTrail counts what relay acks left in A's database: relay_responded
// activity and relay_state_changed comms messages.
func relayTrail(t *testing.T, a *instance) (responded, messages int) {
	t.Helper()
	d := openDB(t, a)
	defer d.Close()
	ctx := context.Background()
	responded, err := d.ActivityEntry.Query().Where(activityentry.Action("relay_responded")).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	messages, err = d.ChatMessage.Query().Where(chatmessage.MetadataType("relay_state_changed")).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return responded, messages
}

// signedPushes is a push-webhook receiver (outside the instance: loopback
// HTTP) that checks every signature.
type signedPushes struct {
	mu  sync.Mutex
	got []string
}

func (p *signedPushes) states() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.got)
}

func receiveSignedPushes(t *testing.T, in *instance) *signedPushes {
	t.Helper()
	const secret = "an-e2e-push-secret"
	p := &signedPushes{}
	recv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get(webhooks.HeaderSignature) != webhooks.Sign(secret, body) {
			t.Errorf("bad signature on %s", body)
		}
		var push struct {
			Event string `json:"event"`
			Data  struct {
				State string `json:"state"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &push); err != nil {
			t.Errorf("push %s: %v", body, err)
		}
		if push.Event == "relay.state_changed" {
			p.mu.Lock()
			p.got = append(p.got, push.Data.State)
			p.mu.Unlock()
		}
	}))
	recv.Config.ReadHeaderTimeout = 10 * time.Second
	recv.Start()
	t.Cleanup(recv.Close)
	must(t, in.key, http.StatusOK, http.MethodPatch, "/api/v2/settings",
		`{"serviceKeys":[{"service":"webhook_push","url":"`+recv.URL+`","secret":"`+secret+`"}]}`)
	return p
}

// peerToken is the federation token A presents on connection id, unsealed
// from A's database with A's instance key (bound to the connection as
// server/network seals it).
func peerToken(t *testing.T, a *instance, id string, key []byte) string {
	t.Helper()
	d := openDB(t, a)
	defer d.Close()
	row, err := d.NetworkConnection.Get(context.Background(), id)
	if err != nil || row.PeerTokenSealed == nil {
		t.Fatalf("A's connection %s: %v", id, err)
	}
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	token, err := box.OpenText(*row.PeerTokenSealed, []byte("network-peer-token:"+id))
	if err != nil {
		t.Fatal(err)
	}
	return token
}
