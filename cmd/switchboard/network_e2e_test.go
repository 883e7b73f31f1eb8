package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// networkArgs switch the operator network on for loopback peers (RULINGS
// "The operator network: connections and relays": --federation, and
// --federation-allow-private admits http:// and private addresses).
var networkArgs = []string{"--federation", "--federation-allow-private"}

// TestThreeInstanceNetwork: the operator network's handshake between three
// processes, each with its own database (issue 15's three-instance test,
// connections): A asks B, B's request is pending until B accepts, then both
// are active; C auto-accepts A, whose origin is on C's allowlist, so A↔C is
// active at once; a task relay from A lands pending in B's queue and B's
// approval comes back to A as the relay's state; a handshake whose
// fromInstanceUrl cannot sign the nonce records nothing.
func TestThreeInstanceNetwork(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	a := startInstance(t, bin, "a", networkArgs...)
	b := startInstance(t, bin, "b", networkArgs...)
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

	// A sends B a task relay: it lands in B's queue pending B's
	// confirmation with A as the requester; B approves it, and the relay-ack
	// goes back through B's outbox, so A's relay becomes accepted.
	toBID := connections(t, a, "active")
	var connB string
	for _, c := range toBID {
		if c["peerInstanceUrl"] == b.base {
			connB = c["id"].(string)
		}
	}
	sent := must(t, a.key, http.StatusOK, http.MethodPost, "/api/federation/relays",
		`{"connectionId":"`+connB+`","type":"request","intent":"assign_task","subject":"Review the Q3 plan","priority":"normal","payload":{"pages":2}}`)
	if answer := sent["answer"].(map[string]any); answer["task"] != true || answer["cardId"] == nil {
		t.Fatalf("the relay's answer: %v", sent)
	}
	relayID := sent["relay"].(map[string]any)["id"].(string)
	items := must(t, b.key, http.StatusOK, http.MethodGet, "/api/v2/queue?status=pending_confirmation", "")["data"].(map[string]any)["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["title"] != "Review the Q3 plan" {
		t.Fatalf("B's pending items: %v", items)
	}
	item := items[0].(map[string]any)
	must(t, b.key, http.StatusOK, http.MethodPost, "/api/v2/queue/"+item["id"].(string)+"/confirm", `{"action":"approve"}`)
	within(t, 20*time.Second, "A's relay accepted", func() bool {
		got := must(t, a.key, http.StatusOK, http.MethodGet, "/api/federation/relays/"+relayID, "")["relay"].(map[string]any)
		return got["state"] == "accepted"
	})

	// A caller that cannot sign the nonce with the token it offers: 400 on
	// B, and B records nothing.
	impostor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"nonce": r.URL.Query().Get("nonce"), "signature": "not-the-hmac"})
	}))
	defer impostor.Close()
	anon := newClient(t, b.base)
	must(t, anon, http.StatusBadRequest, http.MethodPost, "/api/v2/connections",
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
