package throughtest

import (
	"net/http"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Document 2 "MCP endpoint" (entity_resolve's surfaces) with RULINGS
// "MCP": the operator network's surfaces answer once it exists. A's ann
// finds her connection to B's bob by his name, her relays by subject (sent
// or received) and by payload text, and bob's notification (an event of the
// network) by its title; a key without the network scope, and another
// account on A, find none of it.
func TestEntityResolveNetworkSurfaces(t *testing.T) {
	t.Parallel()
	r := newTrio(t)
	servertest.WantStatus(t, r.bob.Session.Do(http.MethodPost, "/api/federation/notify", map[string]any{
		"connectionId": r.fromBs, "type": "task_assigned", "title": "Plan the offsite", "body": "Two days in May"}), http.StatusOK)
	servertest.WantStatus(t, r.bob.Session.Do(http.MethodPost, "/api/federation/relays", map[string]any{
		"connectionId": r.fromBs, "subject": "Venue", "intent": "share_update", "payload": map[string]any{"note": "for the offsite PLAN"}}), http.StatusOK)
	cs := mcpConnect(t, r.a, r.ann.NewKey("agent", "mcp", "network"), nil)
	if sent := callTool(t, cs, "relay_send", map[string]any{"connectionId": r.toC, "subject": "Offsite plan"}); sent.IsError {
		t.Fatalf("relay_send: %s", text(sent))
	}

	resolve := func(cs *sdk.ClientSession, query string) map[string][]any {
		t.Helper()
		res := callTool(t, cs, "entity_resolve", map[string]any{"query": query})
		if res.IsError {
			t.Fatalf("entity_resolve %q: %s", query, text(res))
		}
		out := map[string][]any{}
		for k, v := range structured(t, res)["results"].(map[string]any) {
			out[k] = v.([]any)
		}
		return out
	}
	labels := func(ms []any) []string { return values(ms, "label") }

	got := resolve(cs, "plan")
	// "Offsite plan" has a word starting with the query (0.6); "Venue"
	// matched through its payload (0.2).
	if l := labels(got["relays"]); len(l) != 2 || l[0] != "Offsite plan" || l[1] != "Venue" {
		t.Fatalf("relays: %v", got["relays"])
	}
	if got["relays"][0].(map[string]any)["score"] != 0.6 || got["relays"][1].(map[string]any)["score"] != 0.2 {
		t.Fatalf("relay scores: %v", got["relays"])
	}
	if l := labels(got["events"]); len(l) != 1 || l[0] != "Plan the offsite" || got["events"][0].(map[string]any)["score"] != 0.8 {
		t.Fatalf("events: %v", got["events"])
	}
	if row := got["events"][0].(map[string]any)["row"].(map[string]any); row["type"] != "task_assigned" || row["fromUserEmail"] != "bob@example.com" {
		t.Fatalf("event row: %v", row)
	}
	if len(got["connections"]) != 0 {
		t.Fatalf("connections matching %q: %v", "plan", got["connections"])
	}

	got = resolve(cs, "bob")
	if l := labels(got["connections"]); len(l) != 1 || l[0] != "Bob" || got["connections"][0].(map[string]any)["score"] != 1.0 {
		t.Fatalf("connections: %v", got["connections"])
	}
	if id := got["connections"][0].(map[string]any)["id"]; id != r.toB {
		t.Fatalf("connection id %v, want %s", id, r.toB)
	}
	// bob sent the event: found through its sender, lowest.
	if len(got["events"]) != 1 || got["events"][0].(map[string]any)["score"] != 0.2 {
		t.Fatalf("events by sender: %v", got["events"])
	}

	noNetwork := resolve(mcpConnect(t, r.a, r.ann.NewKey("local", "mcp", "contacts", "kanban"), nil), "plan")
	for _, surface := range []string{"connections", "relays", "events"} {
		if len(noNetwork[surface]) != 0 {
			t.Fatalf("a key without network found %s: %v", surface, noNetwork[surface])
		}
	}
	erin := r.a.SignUp("erin")
	other := resolve(mcpConnect(t, r.a, erin.NewKey("agent", "mcp", "network"), nil), "plan")
	for _, surface := range []string{"connections", "relays", "events"} {
		if len(other[surface]) != 0 {
			t.Fatalf("another account found ann's %s: %v", surface, other[surface])
		}
	}
}
