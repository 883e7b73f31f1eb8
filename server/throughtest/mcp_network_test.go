package throughtest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/network/networktest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// trio is A's ann connected to B's bob and C's carol (three instances).
type trio struct {
	a, b, c          *servertest.Server
	ann, bob, carol  *servertest.Account
	toB, toC, fromBs string
}

func newTrio(t *testing.T) *trio {
	t.Helper()
	r := &trio{a: servertest.New(t, networktest.Options()...), b: servertest.New(t, networktest.Options()...),
		c: servertest.New(t, networktest.Options()...)}
	r.ann, r.bob, r.carol = r.a.SignUp("ann"), r.b.SignUp("bob"), r.c.SignUp("carol")
	r.toB, r.fromBs = networktest.Connect(t, r.a, r.ann, r.b, r.bob)
	r.toC, _ = networktest.Connect(t, r.a, r.ann, r.c, r.carol)
	return r
}

func relaysAt(t *testing.T, acc *servertest.Account) []any {
	t.Helper()
	res := acc.Session.Do(http.MethodGet, "/api/federation/relays", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	return res.JSON(t)["relays"].([]any)
}

func activityCount(t *testing.T, acc *servertest.Account, action string) int {
	t.Helper()
	n := 0
	for _, e := range acc.Session.Do(http.MethodGet, "/api/activity?limit=100", nil).JSON(t)["data"].([]any) {
		if e.(map[string]any)["action"] == action {
			n++
		}
	}
	return n
}

// RULINGS "route_task" and "relay_send": through the Go SDK's client, a
// relay_send with connectionIds is a broadcast (one relay to B and one to C,
// relay_broadcast); naming the route_task strategy records the route as
// used (task_routed). relay_threads and relay_thread_list show them.
func TestNetworkToolsBroadcastAndRoute(t *testing.T) {
	t.Parallel()
	r := newTrio(t)
	cs := mcpConnect(t, r.a, r.ann.NewKey("agent", "mcp", "network"), nil)

	route := callTool(t, cs, "route_task", map[string]any{"taskDescription": "Translate the launch post"})
	if route.IsError {
		t.Fatalf("route_task: %s", text(route))
	}
	got := structured(t, route)
	if len(got["candidates"].([]any)) != 2 || got["strategy"] == "" {
		t.Fatalf("route_task: %v", got)
	}
	strategy := got["strategy"].(string)

	sent := callTool(t, cs, "relay_send", map[string]any{"connectionIds": []string{r.toB, r.toC},
		"subject": "Translate the launch post", "intent": "assign_task", "strategy": strategy})
	if sent.IsError {
		t.Fatalf("relay_send: %s", text(sent))
	}
	if n := len(structured(t, sent)["sent"].([]any)); n != 2 {
		t.Fatalf("relay_send answered %d relays", n)
	}
	for _, acc := range []*servertest.Account{r.bob, r.carol} {
		got := relaysAt(t, acc)
		if len(got) != 1 || got[0].(map[string]any)["subject"] != "Translate the launch post" ||
			got[0].(map[string]any)["direction"] != "inbound" {
			t.Fatalf("%s received %v", acc.Username, got)
		}
	}
	if b, rt := activityCount(t, r.ann, "relay_broadcast"), activityCount(t, r.ann, "task_routed"); b != 1 || rt != 1 {
		t.Fatalf("relay_broadcast %d, task_routed %d; want 1 and 1", b, rt)
	}

	// One connection, no route: neither entry is written again.
	one := callTool(t, cs, "relay_send", map[string]any{"connectionId": r.toB, "subject": "Thanks"})
	if one.IsError {
		t.Fatalf("relay_send to one: %s", text(one))
	}
	if b, rt := activityCount(t, r.ann, "relay_broadcast"), activityCount(t, r.ann, "task_routed"); b != 1 || rt != 1 {
		t.Fatalf("a single send wrote relay_broadcast %d, task_routed %d", b, rt)
	}
	thread := structured(t, one)["sent"].([]any)[0].(map[string]any)["relay"].(map[string]any)["threadId"].(string)

	threads := structured(t, callTool(t, cs, "relay_threads", map[string]any{"status": "active"}))["threads"].([]any)
	if len(threads) != 3 {
		t.Fatalf("relay_threads: %v", threads)
	}
	list := callTool(t, cs, "relay_thread_list", map[string]any{"threadId": thread})
	if rs := structured(t, list)["relays"].([]any); list.IsError || len(rs) != 1 || rs[0].(map[string]any)["subject"] != "Thanks" {
		t.Fatalf("relay_thread_list: %s", text(list))
	}
	brief := structured(t, callTool(t, cs, "network_briefing", nil))
	if c := brief["counts"].(map[string]any); c["awaitingPeers"] != float64(3) {
		t.Fatalf("network_briefing: %v", brief)
	}
}

// RULINGS "relay_send" (a broadcast is one relay to each connection): a
// peer that refuses (C's network is off, 403) does not stop the broadcast;
// B still gets its relay, the answer lists C under failed with the reason,
// and relay_broadcast is written for the send. A broadcast no peer takes is
// an error result, and writes nothing.
func TestBroadcastGoesOnPastARefusal(t *testing.T) {
	t.Parallel()
	r := newTrio(t)
	cs := mcpConnect(t, r.a, r.ann.NewKey("agent", "mcp", "network"), nil)
	off := func(acc *servertest.Account) {
		servertest.WantStatus(t, acc.Session.Do(http.MethodPut, "/api/admin/federation/settings", map[string]any{"enabled": false}), http.StatusOK)
	}
	off(r.carol)

	sent := callTool(t, cs, "relay_send", map[string]any{"connectionIds": []string{r.toC, r.toB}, "subject": "Who can take this?"})
	if sent.IsError {
		t.Fatalf("relay_send: %s", text(sent))
	}
	got := structured(t, sent)
	failed, _ := got["failed"].([]any)
	if n := len(got["sent"].([]any)); n != 1 || len(failed) != 1 {
		t.Fatalf("relay_send answered %v", got)
	}
	if f := failed[0].(map[string]any); f["connectionId"] != r.toC || !strings.Contains(f["error"].(string), "off") {
		t.Fatalf("the refusal: %v", f)
	}
	if got := relaysAt(t, r.bob); len(got) != 1 {
		t.Fatalf("B received %v", got)
	}
	if n := activityCount(t, r.ann, "relay_broadcast"); n != 1 {
		t.Fatalf("relay_broadcast %d, want 1", n)
	}

	off(r.bob)
	none := callTool(t, cs, "relay_send", map[string]any{"connectionIds": []string{r.toB, r.toC}, "subject": "Anyone?"})
	if !none.IsError || !strings.Contains(text(none), "no connection took") {
		t.Fatalf("a broadcast nobody took: %s", text(none))
	}
	if n := activityCount(t, r.ann, "relay_broadcast"); n != 1 {
		t.Fatalf("a broadcast nobody took wrote relay_broadcast (%d)", n)
	}
}

// RULINGS "Accounts, keys, sessions" and "Input at the boundary": another
// account's connection or thread is not found; bad arguments, NUL and
// invalid UTF-8 are refused; nothing is sent or written.
func TestNetworkToolsRefusals(t *testing.T) {
	t.Parallel()
	r := newTrio(t)
	eve := r.a.SignUp("eve")
	cs := mcpConnect(t, r.a, eve.NewKey("eve", "mcp", "network"), nil)
	for name, args := range map[string]map[string]any{
		"another's connection":     {"connectionId": r.toB, "subject": "Hi"},
		"another's in a broadcast": {"connectionIds": []string{r.toB}, "subject": "Hi"},
	} {
		if res := callTool(t, cs, "relay_send", args); !res.IsError || !strings.Contains(strings.ToLower(text(res)), "no active connection") {
			t.Errorf("%s: isError=%v %q", name, res.IsError, text(res))
		}
	}
	own := callTool(t, mcpConnect(t, r.a, r.ann.NewKey("ann", "mcp", "network"), nil), "relay_send",
		map[string]any{"connectionId": r.toB, "subject": "Mine"})
	thread := structured(t, own)["sent"].([]any)[0].(map[string]any)["relay"].(map[string]any)["threadId"].(string)
	if res := callTool(t, cs, "relay_thread_list", map[string]any{"threadId": thread}); !res.IsError ||
		!strings.Contains(strings.ToLower(text(res)), "no relay thread") {
		t.Errorf("another's thread: isError=%v %q", res.IsError, text(res))
	}

	mcp := r.a.WithKey(r.ann.NewKey("bad", "mcp", "network"))
	for name, args := range map[string]string{
		"NUL in the subject":   `{"connectionId": "` + r.toB + `", "subject": "a\u0000b"}`,
		"both ids":             `{"connectionId": "` + r.toB + `", "connectionIds": ["` + r.toC + `"], "subject": "x"}`,
		"neither id":           `{"subject": "x"}`,
		"one id twice":         `{"connectionIds": ["` + r.toB + `", "` + r.toB + `"], "subject": "x"}`,
		"a bad intent":         `{"connectionId": "` + r.toB + `", "subject": "x", "intent": "bribe"}`,
		"a bad strategy":       `{"connectionId": "` + r.toB + `", "subject": "x", "strategy": "lottery"}`,
		"an unknown argument":  `{"connectionId": "` + r.toB + `", "subject": "x", "colour": "red"}`,
		"a payload not object": `{"connectionId": "` + r.toB + `", "subject": "x", "payload": [1]}`,
	} {
		res := mcp.Do("POST", "/api/mcp", `{"method":"tools/call","params":{"name":"relay_send","arguments":`+args+`}}`)
		if res.Status == http.StatusOK && res.JSON(t)["isError"] != true {
			t.Errorf("%s: accepted: %s", name, res.Body)
		}
	}
	for name, args := range map[string]string{
		"route_task without a description": `{}`,
		"route_task NUL":                   `{"taskDescription": "a\u0000b"}`,
		"job_post without a description":   `{"title": "x"}`,
		"job_post bad task type":           `{"title": "x", "description": "y", "taskType": "heist"}`,
	} {
		tool, _, _ := strings.Cut(name, " ")
		res := mcp.Do("POST", "/api/mcp", `{"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`)
		if res.Status == http.StatusOK && res.JSON(t)["isError"] != true {
			t.Errorf("%s: accepted: %s", name, res.Body)
		}
	}
	bad := mcp.Do("POST", "/api/mcp", []byte(fmt.Sprintf("{\"method\":\"tools/call\",\"params\":{\"name\":\"relay_send\",\"arguments\":{\"connectionId\":%q,\"subject\":\"\xff\xfe\"}}}", r.toB)))
	servertest.WantError(t, bad, http.StatusBadRequest)
	// Only ann's one relay reached bob; carol got none; no job was posted.
	if n, m := len(relaysAt(t, r.bob)), len(relaysAt(t, r.carol)); n != 1 || m != 0 {
		t.Fatalf("refused sends reached bob %d, carol %d times", n-1, m)
	}
	if jobs := r.ann.Session.Do(http.MethodGet, "/api/federation/jobs-board", nil).JSON(t)["jobs"].([]any); len(jobs) != 0 {
		t.Fatalf("refused job_post wrote %v", jobs)
	}
}
