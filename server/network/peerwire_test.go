package network_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/relay"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// restPeer is a peer that implements only the published protocol
// (RULINGS "How one instance calls another"): the documented REST routes
// of the operator network with JSON, and the well-known document, which
// lists protocols (nil: a document from before the field). It keeps just
// enough in memory to answer, and every request it was sent.
type restPeer struct {
	*httptest.Server
	t         *testing.T
	protocols []string
	email     string

	mu   sync.Mutex
	seen []seenCall
	// offered is each connection id's token this peer issued (what the
	// Switchboard presents here); theirs the Switchboard's token it presents.
	offered map[string]string
	theirs  string
	// connID is the Switchboard's id of the connection.
	connID  string
	relays  []map[string]any
	acks    []map[string]any
	dropped bool
}

type seenCall struct{ method, path, contentType string }

func newRESTPeer(t *testing.T, protocols []string) *restPeer {
	t.Helper()
	p := &restPeer{t: t, protocols: protocols, email: "fay@example.org", offered: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+federation.WellKnownPath, p.wellKnown)
	mux.HandleFunc("POST /api/v2/connections", p.receiveConnection)
	mux.HandleFunc("POST /api/federation/connect/accept", p.peerRoute(p.confirm))
	mux.HandleFunc("POST /api/v2/relay", p.peerRoute(p.receiveRelay))
	mux.HandleFunc("POST /api/federation/relay", p.peerRoute(p.receiveRelay))
	mux.HandleFunc("POST /api/federation/relay-ack", p.peerRoute(p.ack))
	mux.HandleFunc("POST /api/federation/connections/remove", p.peerRoute(p.remove))
	mux.HandleFunc("POST /api/federation/connections/rotate", p.peerRoute(p.rotate))
	mux.HandleFunc("GET /api/federation/patterns", p.patterns)
	mux.HandleFunc("POST /api/federation/notifications", p.peerRoute(p.notification))
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen = append(p.seen, seenCall{r.Method, r.URL.Path, r.Header.Get("Content-Type")})
		p.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "sbf_" + hex.EncodeToString(b[:])
}

func (p *restPeer) answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// refuse answers in our REST error shape.
func (p *restPeer) refuse(w http.ResponseWriter, status int, msg string) {
	p.answer(w, status, map[string]any{"success": false, "error": msg})
}

// body reads a JSON body, refusing anything but application/json.
func (p *restPeer) body(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		p.refuse(w, http.StatusUnsupportedMediaType, "JSON only, not "+ct)
		return nil, false
	}
	var m map[string]any
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		p.refuse(w, http.StatusBadRequest, err.Error())
		return nil, false
	}
	return m, true
}

// presented checks the caller presents a token this peer issued.
func (p *restPeer) presented(w http.ResponseWriter, r *http.Request) bool {
	got := r.Header.Get("X-Federation-Token")
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, tok := range p.offered {
		if got != "" && got == tok && !p.dropped {
			return true
		}
	}
	p.refuse(w, http.StatusUnauthorized, "unknown federation token")
	return false
}

// peerRoute is a route a connected Switchboard calls: the token it presents
// must be one this peer issued, then the JSON body; fn runs under the lock
// and answers the status and body.
func (p *restPeer) peerRoute(fn func(m map[string]any) (int, any)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !p.presented(w, r) {
			return
		}
		m, ok := p.body(w, r)
		if !ok {
			return
		}
		p.mu.Lock()
		status, ans := fn(m)
		p.mu.Unlock()
		p.answer(w, status, ans)
	}
}

func (p *restPeer) wellKnown(w http.ResponseWriter, r *http.Request) {
	doc := map[string]any{"name": "rest-only peer", "version": "0.1"}
	if p.protocols != nil {
		doc["protocols"] = p.protocols
	}
	if nonce := r.URL.Query().Get("nonce"); nonce != "" {
		p.mu.Lock()
		tok, ok := p.offered[r.URL.Query().Get("connectionId")]
		p.mu.Unlock()
		if !ok {
			p.refuse(w, http.StatusNotFound, "no such request")
			return
		}
		doc["nonce"], doc["signature"] = nonce, federation.Sign(tok, nonce)
	}
	p.answer(w, http.StatusOK, doc)
}

// receiveConnection takes a Switchboard's request after verifying its
// origin holds the offered token, as the handshake asks.
func (p *restPeer) receiveConnection(w http.ResponseWriter, r *http.Request) {
	m, ok := p.body(w, r)
	if !ok {
		return
	}
	from, _ := m["fromInstanceUrl"].(string)
	tok, _ := m["federationToken"].(string)
	id, _ := m["connectionId"].(string)
	res, err := http.Get(from + federation.WellKnownPath + "?nonce=n1&connectionId=" + url.QueryEscape(id))
	if err != nil {
		p.refuse(w, http.StatusNotFound, "did not verify")
		return
	}
	var v struct{ Nonce, Signature string }
	_ = json.NewDecoder(res.Body).Decode(&v)
	_ = res.Body.Close()
	if v.Nonce != "n1" || v.Signature != federation.Sign(tok, "n1") {
		p.refuse(w, http.StatusNotFound, "did not verify")
		return
	}
	p.mu.Lock()
	p.theirs, p.connID = tok, id
	p.mu.Unlock()
	p.answer(w, http.StatusCreated, map[string]any{"success": true, "connectionId": "fake-in", "status": "pending",
		"userName": "Fay", "instanceName": "rest-only peer", "futureField": "ignored by REST clients"})
}

// confirm is the Switchboard's acceptance of this peer's request.
func (p *restPeer) confirm(m map[string]any) (int, any) {
	p.theirs, _ = m["federationToken"].(string)
	p.connID, _ = m["peerConnectionId"].(string)
	return http.StatusOK, map[string]any{"success": true}
}

func (p *restPeer) receiveRelay(m map[string]any) (int, any) {
	p.relays = append(p.relays, m)
	return http.StatusOK, map[string]any{"success": true, "relayId": m["relayId"], "task": true, "cardId": "fake-card"}
}

func (p *restPeer) ack(m map[string]any) (int, any) {
	p.acks = append(p.acks, m)
	return http.StatusOK, map[string]any{"applied": true, "state": m["state"]}
}

func (p *restPeer) remove(map[string]any) (int, any) {
	p.dropped = true
	return http.StatusOK, map[string]any{"success": true}
}

func (p *restPeer) rotate(m map[string]any) (int, any) {
	p.theirs, _ = m["federationToken"].(string)
	return http.StatusOK, map[string]any{"success": true}
}

// snapshot is what the peer holds now (the test reads it while the peer's
// handlers may write).
type snapshot struct {
	relays         []map[string]any
	theirs, connID string
	dropped        bool
}

func (p *restPeer) now() snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	return snapshot{relays: append([]map[string]any(nil), p.relays...), theirs: p.theirs, connID: p.connID, dropped: p.dropped}
}

// askedBy is sb's operator asking this peer's user to connect.
func (p *restPeer) askedBy(sb *instance) *servertest.Response {
	return sb.user.Session.Do(http.MethodPost, "/api/federation/connect",
		map[string]any{"peerInstanceUrl": p.URL, "peerUserEmail": p.email, "message": "let us work together"})
}

// patterns answers as our REST mirror does, nulls for absent values.
func (p *restPeer) patterns(w http.ResponseWriter, r *http.Request) {
	if !p.presented(w, r) {
		return
	}
	p.answer(w, http.StatusOK, map[string]any{"patterns": map[string]any{"taskTypes": []string{"review"},
		"skills": []string{"go"}, "maxConcurrent": 2, "typicalTurnaroundHours": 4, "updatedAt": nil}})
}

func (p *restPeer) notification(m map[string]any) (int, any) {
	if m["title"] == nil || m["metadata"].(map[string]any)["cardId"] != "c1" {
		return http.StatusBadRequest, map[string]any{"success": false, "error": "title and metadata as an object"}
	}
	return http.StatusOK, map[string]any{"notificationId": "fake-n1"}
}

// call is this peer calling the Switchboard at sb with the token it holds.
func (p *restPeer) call(t *testing.T, sb *instance, path string, body any) *servertest.Response {
	t.Helper()
	p.mu.Lock()
	tok := p.theirs
	p.mu.Unlock()
	return sb.Anonymous().Do(http.MethodPost, path, body, "X-Federation-Token", tok)
}

// wantOnlyREST checks every call the peer was sent is a documented REST
// route or the well-known document, JSON where it has a body, and none a
// Connect procedure.
func (p *restPeer) wantOnlyREST(t *testing.T, want ...string) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	got := map[string]bool{}
	for _, c := range p.seen {
		if strings.HasPrefix(c.path, "/switchboard.") || !(strings.HasPrefix(c.path, "/api/") || c.path == federation.WellKnownPath) {
			t.Errorf("the REST-only peer was sent %s %s (%s)", c.method, c.path, c.contentType)
		}
		if c.method == http.MethodPost && !strings.HasPrefix(c.contentType, "application/json") {
			t.Errorf("%s %s came as %q", c.method, c.path, c.contentType)
		}
		got[c.method+" "+c.path] = true
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("the REST-only peer was never sent %s; it saw %v", w, p.seen)
		}
	}
}

func restPair(t *testing.T, protocols []string) (*instance, *restPeer) {
	t.Helper()
	limits := servertest.WithLimits(gate.Limits{PerKey: 100000, Auth: 100000, Heavy: 100000, Federation: 100000})
	return newInstance(t, "alice", on(), servertest.WithPrivateEndpoints(), limits), newRESTPeer(t, protocols)
}

// TestRESTOnlyPeer: RULINGS "How one instance calls another". A peer whose
// document lists only rest is called on the documented REST routes with
// JSON, and is never sent a Connect procedure: connect (both ways),
// accept, relay (and its answer), ack (both ways), a notification,
// patterns, rotate and remove (each side's) all work against a fake that
// serves nothing else.
func TestRESTOnlyPeer(t *testing.T) {
	t.Parallel()
	sb, peer := restPair(t, []string{"rest"})
	ctx := context.Background()

	// The Switchboard asks; the peer verifies it and accepts.
	res := peer.askedBy(sb)
	servertest.WantStatus(t, res, http.StatusCreated)
	id := object(t, res, "connection")["id"].(string)
	mine := newToken()
	peer.mu.Lock()
	peer.offered = map[string]string{"fake-in": mine}
	peer.mu.Unlock()
	servertest.WantStatus(t, peer.call(t, sb, "/api/federation/connect/accept",
		map[string]any{"connectionId": id, "federationToken": mine, "peerConnectionId": "fake-in"}), http.StatusOK)
	if row := sb.only(t); row.Status != "active" {
		t.Fatalf("after the peer's acceptance: %s", row.Status)
	}

	// A relay goes to the peer's REST route and its answer is read.
	res = sb.user.Session.Do(http.MethodPost, "/api/federation/relays",
		map[string]any{"connectionId": id, "subject": "Review the plan", "intent": "assign_task", "type": "request"})
	servertest.WantStatus(t, res, http.StatusOK)
	if ans := object(t, res, "answer"); ans["success"] != true || ans["task"] != true || ans["cardId"] != "fake-card" {
		t.Fatalf("the peer's answer: %s", res.Body)
	}
	sent := object(t, res, "relay")["id"].(string)
	if got := peer.now().relays; len(got) != 1 || got[0]["relayId"] != sent || got[0]["subject"] != "Review the plan" {
		t.Fatalf("the peer got: %v", got)
	}

	// The peer acks it.
	servertest.WantStatus(t, peer.call(t, sb, "/api/federation/relay-ack", map[string]any{"relayId": sent, "state": "accepted",
		"occurredAt": sb.Clock.Now().UTC().Format(time.RFC3339Nano)}), http.StatusOK)
	if r, err := sb.DB.Relay.Query().Where(relay.RelayID(sent)).Only(ctx); err != nil || r.State != relay.StateAccepted {
		t.Fatalf("the sender's copy after the ack: %v %v", r, err)
	}

	// The peer relays; the Switchboard's approval acks it on the REST route.
	servertest.WantStatus(t, peer.call(t, sb, "/api/v2/relay", map[string]any{"relayId": "fake-r1", "subject": "Draft the memo",
		"type": "request", "intent": "assign_task", "fromUserEmail": peer.email, "toUserEmail": "alice@example.com"}), http.StatusOK)
	list := items(t, sb)
	if len(list) != 1 {
		t.Fatalf("the Switchboard's queue: %d items", len(list))
	}
	servertest.WantStatus(t, sb.user.Session.Do(http.MethodPost, "/api/queue/confirm",
		map[string]any{"id": list[0].ID, "action": "approve"}), http.StatusOK)
	servertest.WaitFor(t, "the Switchboard's ack at the peer", func() bool {
		peer.mu.Lock()
		defer peer.mu.Unlock()
		return len(peer.acks) == 1 && peer.acks[0]["relayId"] == "fake-r1" && peer.acks[0]["state"] == "accepted"
	})

	// A notification through the outbox, answered on the peer's REST route.
	res = sb.user.Session.Do(http.MethodPost, "/api/federation/notify", map[string]any{"connectionId": id,
		"type": "task_assigned", "title": "Review the deck", "metadata": map[string]any{"cardId": "c1"}})
	servertest.WantStatus(t, res, http.StatusOK)
	if res.JSON(t)["notificationId"] == "" {
		t.Fatalf("notification: %s", res.Body)
	}

	// The peer's patterns, read on its REST route (its nulls as absent).
	res = sb.user.Session.Do(http.MethodPost, "/api/federation/connections/"+id+"/patterns", map[string]any{})
	servertest.WantStatus(t, res, http.StatusOK)
	if got := object(t, res, "peer")["patterns"].(map[string]any); got["taskTypes"].([]any)[0] != "review" || got["maxConcurrent"] != float64(2) {
		t.Fatalf("the peer's patterns: %s", res.Body)
	}

	// Rotation: the peer takes the new token, which then works here.
	before := peer.now().theirs
	servertest.WantStatus(t, sb.user.Session.Do(http.MethodPost, "/api/federation/connections/"+id+"/rotate", map[string]any{}), http.StatusOK)
	if after := peer.now().theirs; after == before || after == "" {
		t.Fatal("the peer was not given a new token")
	}
	servertest.WantStatus(t, peer.call(t, sb, "/api/federation/relay-ack", map[string]any{"relayId": sent, "state": "completed",
		"result": "done", "occurredAt": sb.Clock.Now().Add(time.Second).UTC().Format(time.RFC3339Nano)}), http.StatusOK)

	// Removal: the peer is told.
	res = sb.user.Session.Do(http.MethodDelete, "/api/federation/connections/"+id, nil)
	servertest.WantStatus(t, res, http.StatusOK)
	if res.JSON(t)["peerTold"] != true || !peer.now().dropped {
		t.Fatalf("removal: %s (peer dropped: %v)", res.Body, peer.now().dropped)
	}

	// The other way: the peer asks, the Switchboard verifies it and its
	// operator accepts over the peer's REST route.
	theirs := newToken()
	peer.mu.Lock()
	peer.offered, peer.dropped = map[string]string{"fake-out": theirs}, false
	peer.mu.Unlock()
	res = sb.Anonymous().Do(http.MethodPost, "/api/v2/connections", map[string]any{"fromInstanceUrl": peer.URL,
		"fromUserEmail": peer.email, "fromUserName": "Fay", "toUserEmail": "alice@example.com", "federationToken": theirs,
		"connectionId": "fake-out"})
	if res.Status != http.StatusOK && res.Status != http.StatusCreated {
		t.Fatalf("the peer's request: %d %s", res.Status, res.Body)
	}
	in := res.JSON(t)["connectionId"].(string)
	servertest.WantStatus(t, sb.user.Session.Do(http.MethodPost, "/api/federation/connections/"+in+"/accept", map[string]any{}), http.StatusOK)
	if got := peer.now(); got.connID != in || got.theirs == "" {
		t.Fatalf("the peer was not told of the acceptance: %+v", got)
	}

	// The peer rotates its token here: the Switchboard's next call presents
	// the new one (a relay the peer takes); then the peer removes the
	// connection here.
	fresh := newToken()
	servertest.WantStatus(t, peer.call(t, sb, "/api/federation/connections/rotate", map[string]any{"federationToken": fresh}), http.StatusOK)
	peer.mu.Lock()
	peer.offered = map[string]string{"fake-out": fresh}
	peer.mu.Unlock()
	res = sb.user.Session.Do(http.MethodPost, "/api/federation/relays",
		map[string]any{"connectionId": in, "subject": "After the rotation", "intent": "get_info", "type": "request"})
	servertest.WantStatus(t, res, http.StatusOK)
	if got := peer.now().relays; len(got) != 2 || got[1]["subject"] != "After the rotation" {
		t.Fatalf("the peer got: %v", got)
	}
	servertest.WantStatus(t, peer.call(t, sb, "/api/federation/connections/remove", map[string]any{}), http.StatusOK)
	if n := len(sb.connections(t)); n != 0 {
		t.Fatalf("connections left after the peer's removal: %d", n)
	}

	peer.wantOnlyREST(t, "GET "+federation.WellKnownPath, "POST /api/v2/connections", "POST /api/federation/connect/accept",
		"POST /api/v2/relay", "POST /api/federation/relay-ack", "POST /api/federation/connections/rotate",
		"POST /api/federation/connections/remove", "GET /api/federation/patterns",
		"POST /api/federation/notifications")
}

// TestPeerWithoutProtocolsGetsREST: a peer whose document predates the
// protocols field is called over REST.
func TestPeerWithoutProtocolsGetsREST(t *testing.T) {
	t.Parallel()
	sb, peer := restPair(t, nil)
	servertest.WantStatus(t, peer.askedBy(sb), http.StatusCreated)
	peer.wantOnlyREST(t, "GET "+federation.WellKnownPath, "POST /api/v2/connections")
}

// wire records what passes a loopback reverse proxy.
type wire struct {
	mu    sync.Mutex
	calls []seenCall
}

func (w *wire) saw(method, path, contentType string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.calls {
		if c.method == method && c.path == path && c.contentType == contentType {
			return true
		}
	}
	return false
}

// recordingProxy stands before target and records each request's method,
// path and content type.
func recordingProxy(t *testing.T, target string) (*httptest.Server, *wire) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	w := &wire{}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		w.mu.Lock()
		w.calls = append(w.calls, seenCall{r.Method, r.URL.Path, r.Header.Get("Content-Type")})
		w.mu.Unlock()
		rp.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)
	return srv, w
}

// TestSwitchboardsSpeakConnect: between two Switchboards the same run goes
// over Connect, seen on the wire: A reaches B through a recording proxy
// (B answers A's calls there; B calls A back directly): the handshake,
// rotation and removal are Connect binary at the procedures' paths, the
// relay (an outbox row, whose payload is text) Connect JSON at its
// procedure, and B's ack reaches A at AckRelay's procedure.
func TestSwitchboardsSpeakConnect(t *testing.T) {
	t.Parallel()
	limits := servertest.WithLimits(gate.Limits{PerKey: 100000, Auth: 100000, Heavy: 100000, Federation: 100000})
	a := newInstance(t, "alice", on(), servertest.WithPrivateEndpoints(), limits)
	b := newInstance(t, "bob", on(), servertest.WithPrivateEndpoints(), limits)
	proxy, seen := recordingProxy(t, b.URL)

	res := a.user.Session.Do(http.MethodPost, "/api/federation/connect",
		map[string]any{"peerInstanceUrl": proxy.URL, "peerUserEmail": "bob@example.com"})
	servertest.WantStatus(t, res, http.StatusCreated)
	id := object(t, res, "connection")["id"].(string)
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPost, "/api/federation/connections/"+b.only(t).ID+"/accept",
		map[string]any{}), http.StatusOK)
	res = a.user.Session.Do(http.MethodPost, "/api/federation/relays",
		map[string]any{"connectionId": id, "subject": "Review the plan", "intent": "assign_task", "type": "request"})
	servertest.WantStatus(t, res, http.StatusOK)
	sent := object(t, res, "relay")["id"].(string)
	list := items(t, b)
	if len(list) != 1 {
		t.Fatalf("B's queue: %d items", len(list))
	}
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPost, "/api/queue/confirm",
		map[string]any{"id": list[0].ID, "action": "approve"}), http.StatusOK)
	servertest.WaitFor(t, "B's ack at A", func() bool {
		r, err := a.DB.Relay.Query().Where(relay.RelayID(sent)).Only(context.Background())
		return err == nil && r.State == relay.StateAccepted
	})
	servertest.WantStatus(t, a.user.Session.Do(http.MethodPost, "/api/federation/connections/"+id+"/rotate", map[string]any{}), http.StatusOK)
	res = a.user.Session.Do(http.MethodDelete, "/api/federation/connections/"+id, nil)
	servertest.WantStatus(t, res, http.StatusOK)

	for _, want := range []seenCall{
		{http.MethodPost, "/switchboard.v1.NetworkPeerService/ReceiveConnection", "application/proto"},
		{http.MethodPost, "/switchboard.v1.NetworkRelayPeerService/ReceiveRelay", "application/json"},
		{http.MethodPost, "/switchboard.v1.NetworkPeerService/ReplacePeerToken", "application/proto"},
		{http.MethodPost, "/switchboard.v1.NetworkPeerService/DropConnection", "application/proto"},
	} {
		if !seen.saw(want.method, want.path, want.contentType) {
			t.Errorf("not on the wire: %v; saw %v", want, seen.calls)
		}
	}
	seen.mu.Lock()
	for _, c := range seen.calls {
		if strings.HasPrefix(c.path, "/api/") {
			t.Errorf("a REST call between Switchboards: %v", c)
		}
	}
	seen.mu.Unlock()
	if n := a.audited(t, "inbound", "/switchboard.v1.NetworkRelayPeerService/AckRelay"); n != 1 {
		t.Errorf("B's ack at A's AckRelay procedure: %d", n)
	}
}
