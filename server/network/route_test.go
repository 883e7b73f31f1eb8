package network_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// routeTrio is A connected to B and to C (three instances), B having
// published patterns that match a Go review and completed one relay from A.
type routeTrio struct {
	a, b, c          *instance
	aToB, aToC, bToA string
}

func newRouteTrio(t *testing.T) *routeTrio {
	t.Helper()
	a, b, c := newInstance(t, "alice", on()), newInstance(t, "bob", on()), newInstance(t, "carol", on())
	r := &routeTrio{a: a, b: b, c: c}
	r.aToB, r.bToA = connected(t, a, b)
	r.aToC, _ = connected(t, a, c)
	servertest.WantStatus(t, b.user.Session.Do(http.MethodPost, "/api/federation/patterns", map[string]any{
		"taskTypes": []string{"review"}, "skills": []string{"go", "review"}, "maxConcurrent": 4}), http.StatusOK)
	servertest.WantStatus(t, c.user.Session.Do(http.MethodPost, "/api/federation/patterns", map[string]any{
		"taskTypes": []string{"translation"}, "skills": []string{"german"}}), http.StatusOK)
	for _, id := range []string{r.aToB, r.aToC} {
		servertest.WantStatus(t, a.user.Session.Do(http.MethodPost, "/api/federation/connections/"+id+"/patterns", map[string]any{}), http.StatusOK)
	}
	// B completes a relay from A: B's ack reaches A's copy.
	res := a.user.Session.Do(http.MethodPost, "/api/federation/relays", map[string]any{"connectionId": r.aToB,
		"subject": "Review the Go service", "intent": "assign_task"})
	servertest.WantStatus(t, res, http.StatusOK)
	id := object(t, res, "relay")["id"].(string)
	ack := a.Anonymous().Do(http.MethodPost, "/api/federation/relay-ack", map[string]any{"relayId": id, "state": "completed",
		"result": "done", "occurredAt": a.Clock.Now().UTC().Format(time.RFC3339)},
		"X-Federation-Token", tokenFor(t, b, r.bToA))
	servertest.WantStatus(t, ack, http.StatusOK)
	return r
}

// RULINGS "route_task": candidates are active connections by their
// patterns and the outcomes of the relays sent to them; B (matching skills,
// a completed relay) ranks above C, each with its factors, and routing
// writes nothing.
func TestRouteTaskRanksByPatternsAndOutcomes(t *testing.T) {
	t.Parallel()
	r := newRouteTrio(t)
	res := r.a.user.Session.Do(http.MethodGet, "/api/federation/routing?taskDescription=Review+my+Go+code&taskType=review&skills=go&skills=review", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	body := res.JSON(t)
	cands := body["candidates"].([]any)
	if len(cands) != 2 {
		t.Fatalf("candidates: %s", res.Body)
	}
	first, second := cands[0].(map[string]any), cands[1].(map[string]any)
	if first["id"] != r.aToB || second["id"] != r.aToC || first["kind"] != "connection" {
		t.Fatalf("B must rank above C: %s", res.Body)
	}
	f := first["factors"].(map[string]any)
	if f["skillMatch"] != float64(1) || f["completionRate"] != float64(1) || f["domainProximity"] != float64(1) ||
		first["completedRelays"] != float64(1) || first["ackedRelays"] != float64(1) {
		t.Fatalf("B's factors: %v", first)
	}
	if second["factors"].(map[string]any)["skillMatch"] != float64(0) || first["score"].(float64) <= second["score"].(float64) {
		t.Fatalf("C's factors: %v", second)
	}
	if body["strategy"] != "direct" {
		t.Fatalf("strategy: %s", res.Body)
	}
	if n := r.a.activity(t, "task_routed"); n != 0 {
		t.Fatalf("routing alone wrote task_routed %d times", n)
	}
	// Bad arguments: 400; another account sees its own (empty) field.
	servertest.WantError(t, r.a.user.Session.Do(http.MethodGet, "/api/federation/routing?taskDescription=", nil), http.StatusBadRequest)
	servertest.WantError(t, r.a.user.Session.Do(http.MethodGet, "/api/federation/routing?taskDescription=x&maxCandidates=99", nil), http.StatusBadRequest)
	eve := r.a.SignUp("eve")
	res = eve.Session.Do(http.MethodGet, "/api/federation/routing?taskDescription=Review", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	if got := res.JSON(t); len(got["candidates"].([]any)) != 0 || got["strategy"] != "broadcast" {
		t.Fatalf("eve's route: %s", res.Body)
	}
}

// RULINGS "GET /api/federation/graph" and "GET /api/federation/briefing":
// the graph counts relays per connection; the briefing counts first and
// shows state changes only since the last briefing.
func TestGraphAndBriefing(t *testing.T) {
	t.Parallel()
	r := newRouteTrio(t)
	res := r.a.user.Session.Do(http.MethodGet, "/api/federation/graph", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	g := res.JSON(t)
	nodes, edges := g["nodes"].([]any), g["edges"].([]any)
	if len(nodes) != 3 || nodes[0].(map[string]any)["kind"] != "self" || len(edges) != 2 {
		t.Fatalf("graph: %s", res.Body)
	}
	for _, e := range edges {
		e := e.(map[string]any)
		want := "0/0"
		if e["to"] == r.aToB {
			want = "1/1"
		}
		if got := fmt.Sprintf("%v/%v", e["relays"], e["completed"]); got != want {
			t.Fatalf("edge %v: %s, want %s", e, got, want)
		}
	}

	res = r.a.user.Session.Do(http.MethodGet, "/api/federation/briefing", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	first := res.JSON(t)
	if c := first["counts"].(map[string]any); c["stateChanges"] != float64(1) || c["awaitingPeers"] != float64(0) || first["since"] != nil {
		t.Fatalf("first briefing: %s", res.Body)
	}
	r.a.Clock.Advance(time.Minute)
	res = r.a.user.Session.Do(http.MethodGet, "/api/federation/briefing", nil)
	second := res.JSON(t)
	if c := second["counts"].(map[string]any); c["stateChanges"] != float64(0) || second["since"] == nil {
		t.Fatalf("second briefing: %s", res.Body)
	}
	// B has a request from A awaiting nobody (completed); C's briefing is empty.
	res = r.c.user.Session.Do(http.MethodGet, "/api/federation/briefing", nil)
	if c := res.JSON(t)["counts"].(map[string]any); c["awaitingYou"] != float64(0) || c["pendingRequests"] != float64(0) {
		t.Fatalf("C's briefing: %s", res.Body)
	}
}

// RULINGS "serendipity_matches": a contact and a connection whose tags and
// learned skills share a keyword of the operator's active card are paired,
// with the card named in the reason; another account sees no pair.
func TestSerendipityPairsContactAndConnection(t *testing.T) {
	t.Parallel()
	r := newRouteTrio(t)
	servertest.WantStatus(t, r.a.user.Session.Do(http.MethodPost, "/api/v2/contacts", map[string]any{
		"name": "Dana", "tags": []string{"review"}}), http.StatusCreated)
	servertest.WantStatus(t, r.a.user.Session.Do(http.MethodPost, "/api/v2/kanban", map[string]any{
		"title": "Code review backlog"}), http.StatusCreated)
	res := r.a.user.Session.Do(http.MethodGet, "/api/federation/serendipity", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	ms := res.JSON(t)["matches"].([]any)
	if len(ms) != 1 {
		t.Fatalf("matches: %s", res.Body)
	}
	m := ms[0].(map[string]any)
	parties := fmt.Sprintln(m["a"].(map[string]any)["party"], m["b"].(map[string]any)["party"])
	if fmt.Sprint(m["shared"]) != "[review]" || (parties != "contact connection\n" && parties != "connection contact\n") ||
		len(m["cardIds"].([]any)) != 1 {
		t.Fatalf("match: %v", m)
	}
	res = r.a.SignUp("eve").Session.Do(http.MethodGet, "/api/federation/serendipity", nil)
	if got := res.JSON(t)["matches"].([]any); len(got) != 0 {
		t.Fatalf("eve's matches: %s", res.Body)
	}
}

// RULINGS "route_task" (candidates include the operator's installed store
// agents): an agent's factors come from the operator's own record with it,
// read as a connection's relays are: two completed runs of three finished
// give a completion rate of 2/3; an agent runs one execution at a time, so
// its capacity is 1 while idle. Another account's runs do not count.
func TestRouteCountsStoreAgentRecord(t *testing.T) {
	t.Parallel()
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), "fail") {
			http.Error(w, "the agent broke", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"output":"reviewed"}`))
	}))
	t.Cleanup(agent.Close)
	a := newInstance(t, "alice", on(), servertest.WithPrivateEndpoints())
	dev := a.SignUp("dora")
	res := dev.Session.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Go Reviewer", "endpointUrl": agent.URL,
		"pricingModel": "free", "taskTypes": []string{"review"}})
	servertest.WantStatus(t, res, http.StatusCreated)
	id := object(t, res, "agent")["id"].(string)
	eve := a.SignUp("eve")
	for _, acc := range []*servertest.Account{a.user, eve} {
		servertest.WantStatus(t, acc.Session.Do(http.MethodPost, "/api/marketplace/"+id+"/install", map[string]any{}), http.StatusCreated)
	}
	for _, input := range []string{"review a", "review b", "please fail"} {
		a.user.Session.Do(http.MethodPost, "/api/marketplace/"+id+"/execute", map[string]any{"input": input})
	}
	eve.Session.Do(http.MethodPost, "/api/marketplace/"+id+"/execute", map[string]any{"input": "fail for eve"})

	route := func(acc *servertest.Account) map[string]any {
		res := acc.Session.Do(http.MethodGet, "/api/federation/routing?taskDescription=Review+my+Go+code&taskType=review", nil)
		servertest.WantStatus(t, res, http.StatusOK)
		cands := res.JSON(t)["candidates"].([]any)
		if len(cands) != 1 {
			t.Fatalf("candidates: %s", res.Body)
		}
		return cands[0].(map[string]any)
	}
	var got map[string]any
	servertest.WaitFor(t, "alice's three runs finished", func() bool {
		got = route(a.user)
		return got["ackedRelays"] == float64(3)
	})
	f := got["factors"].(map[string]any)
	if got["kind"] != "store_agent" || got["completedRelays"] != float64(2) || got["maxConcurrent"] != float64(1) ||
		fmt.Sprintf("%.4f", f["completionRate"]) != "0.6667" || f["capacity"] != float64(1) || f["latency"].(float64) <= 0.99 {
		t.Fatalf("alice's agent candidate: %v", got)
	}
	servertest.WaitFor(t, "eve's run finished", func() bool {
		return route(eve)["ackedRelays"] == float64(1)
	})
	if got := route(eve); got["completedRelays"] != nil && got["completedRelays"] != float64(0) {
		t.Fatalf("eve's record holds alice's runs: %v", got)
	}
}
