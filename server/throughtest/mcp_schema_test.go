package throughtest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/switchboard-hq/switchboard/server/network/networktest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "MCP": every tool's structuredContent matches the outputSchema it
// declares. The door does not check answers at run time (they are rendered
// from the descriptors the schemas come from), so this test holds them to
// it: each tool is called on an account that has something of each kind, and
// each answer is validated against the schema tools/list gave.
func TestOutputsMatchTheirSchemas(t *testing.T) {
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"output":"done"}`)
	}))
	t.Cleanup(agent.Close)
	srv := servertest.New(t, networktest.Options()...)
	dora := srv.SignUp("dora")
	listing := dora.Session.Do("POST", "/api/marketplace", map[string]any{"name": "Schema Scout", "endpointUrl": agent.URL,
		"pricingModel": "per_task", "pricePerTask": 1, "currency": "USD", "accessPassword": "a long password"})
	servertest.WantStatus(t, listing, http.StatusCreated)
	made := listing.JSON(t)["agent"].(map[string]any)
	id, slug := made["id"].(string), made["slug"].(string)

	ann := srv.SignUp("ann")
	servertest.WantStatus(t, ann.Session.Do("POST", "/api/v2/contacts", map[string]any{"name": "Dana Reyes", "email": "dana@example.com"}), http.StatusCreated)
	servertest.WantStatus(t, ann.Session.Do("POST", "/api/v2/kanban", map[string]any{"title": "Dana renewal", "dueDate": "2026-01-01T00:00:00Z"}), http.StatusCreated)
	servertest.WantStatus(t, ann.Session.Do("POST", "/api/v2/shared-chat/send", map[string]any{"content": "hello"}), http.StatusCreated)
	servertest.WantStatus(t, ann.Session.Do("POST", "/api/marketplace/"+id+"/install", map[string]any{}), http.StatusCreated)
	// ann is connected to bob on a second instance, with a relay sent.
	peer := servertest.New(t, networktest.Options()...)
	connID, _ := networktest.Connect(t, srv, ann, peer, peer.SignUp("bob"))
	sent := ann.Session.Do("POST", "/api/federation/relays", map[string]any{"connectionId": connID, "subject": "Hello"})
	servertest.WantStatus(t, sent, http.StatusOK)
	threadID := sent.JSON(t)["relay"].(map[string]any)["threadId"].(string)
	cs := mcpConnect(t, srv, ann.NewKey("all", "mcp", "queue", "kanban", "chat", "contacts", "settings", "store", "network"), nil)
	added := structured(t, callTool(t, cs, "queue_add", map[string]any{"title": "Urgent thing", "priority": "urgent", "description": "x"}))
	itemID := added["item"].(map[string]any)["id"].(string)

	calls := map[string]map[string]any{
		"queue_list":          {},
		"queue_add":           {"title": "Another"},
		"queue_update":        {"id": itemID, "priority": "high"},
		"contacts_list":       {},
		"contacts_search":     {"query": "Dana"},
		"cards_list":          {},
		"mode_get":            {},
		"briefing_get":        {},
		"activity_recent":     {},
		"reputation_get":      {},
		"entity_resolve":      {"query": "dana"},
		"marketplace_browse":  {},
		"marketplace_unlock":  {"agentId": id, "accessPassword": "a long password"},
		"marketplace_" + slug: {"input": "go"},
		"job_post":            {"title": "Go review", "description": "Review a service", "requiredSkills": []string{"go"}},
		"job_browse":          {},
		"job_match":           {},
		"relay_thread_list":   {"threadId": threadID},
		"relay_threads":       {},
		"serendipity_matches": {},
		"route_task":          {"taskDescription": "Review my Go code"},
		"network_briefing":    {},
		"relay_send":          {"connectionId": connID, "subject": "Again", "threadId": threadID},
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, tl := range list.Tools {
		args, ok := calls[tl.Name]
		if !ok {
			t.Errorf("tool %s has no call in this test", tl.Name)
			continue
		}
		seen++
		raw, err := json.Marshal(tl.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema jsonschema.Schema
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatalf("%s: output schema: %v", tl.Name, err)
		}
		resolved, err := schema.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: resolve output schema: %v", tl.Name, err)
		}
		res := callTool(t, cs, tl.Name, args)
		if res.IsError {
			t.Errorf("%s: %s", tl.Name, text(res))
			continue
		}
		b, _ := json.Marshal(res.StructuredContent)
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); err != nil {
			t.Errorf("%s: structuredContent does not match its outputSchema: %v\n%s", tl.Name, err, b)
		}
		if text(res) != string(b) && !jsonEqual(text(res), b) {
			t.Errorf("%s: the text content is not the same data: %s", tl.Name, text(res))
		}
	}
	if seen != len(calls) {
		t.Errorf("tools/list gave %d of the %d tools this test calls", seen, len(calls))
	}
}

func jsonEqual(a string, b []byte) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}
