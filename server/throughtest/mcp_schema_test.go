package throughtest

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
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

// RULINGS "MCP" (outputSchema on each tool): no schema tools/list gives, input
// or output, $defs included, writes a list of types ("type": ["string",
// "null"]), which many MCP clients cannot read (the MCP Inspector's strict
// mode warns on each); alternatives are anyOf branches. Every tool is
// walked, an installed store agent's marketplace_{slug} among them.
func TestToolSchemasHaveNoTypeLists(t *testing.T) {
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"output":"done"}`)
	}))
	t.Cleanup(agent.Close)
	srv := servertest.New(t, servertest.WithPrivateEndpoints())
	dora := srv.SignUp("dora")
	listing := dora.Session.Do("POST", "/api/marketplace", map[string]any{"name": "Portable Scout", "endpointUrl": agent.URL, "pricingModel": "free"})
	servertest.WantStatus(t, listing, http.StatusCreated)
	made := listing.JSON(t)["agent"].(map[string]any)
	ann := srv.SignUp("ann")
	servertest.WantStatus(t, ann.Session.Do("POST", "/api/marketplace/"+made["id"].(string)+"/install", map[string]any{}), http.StatusCreated)

	res := srv.WithKey(ann.NewKey("schemas", "mcp", "store")).Do("POST", "/api/mcp", map[string]any{"method": "tools/list"})
	servertest.WantStatus(t, res, http.StatusOK)
	var listed struct {
		Tools []struct {
			Name         string `json:"name"`
			InputSchema  any    `json:"inputSchema"`
			OutputSchema any    `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res.Body, &listed); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range listed.Tools {
		names[tl.Name] = true
		if tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: input schema %v, output schema %v", tl.Name, tl.InputSchema != nil, tl.OutputSchema != nil)
		}
		for _, at := range typeLists(tl.InputSchema, "inputSchema") {
			t.Errorf("%s: a list of types at %s", tl.Name, at)
		}
		for _, at := range typeLists(tl.OutputSchema, "outputSchema") {
			t.Errorf("%s: a list of types at %s", tl.Name, at)
		}
	}
	if !names["marketplace_"+made["slug"].(string)] || !names["queue_list"] || len(names) < 20 {
		t.Fatalf("tools/list gave %v", names)
	}
}

// typeLists answers where in a JSON schema a "type" keyword holds a list
// (JSON pointers under at): every object and array is walked, so $defs,
// properties, items, additionalProperties and anyOf branches are all seen.
func typeLists(schema any, at string) []string {
	var found []string
	switch v := schema.(type) {
	case map[string]any:
		if _, ok := v["type"].([]any); ok {
			found = append(found, at+"/type")
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			found = append(found, typeLists(v[k], at+"/"+pointerToken.Replace(k))...)
		}
	case []any:
		for i, e := range v {
			found = append(found, typeLists(e, at+"/"+strconv.Itoa(i))...)
		}
	}
	return found
}

// pointerToken escapes a key as a JSON pointer's reference token (RFC 6901).
var pointerToken = strings.NewReplacer("~", "~0", "/", "~1")

// The walker of TestToolSchemasHaveNoTypeLists finds a list of types
// wherever it is, and nothing in a schema without one (a property named
// "type" is no keyword).
func TestTypeListWalker(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		schema string
		want   []string
	}{
		{`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]},"type":{"type":"string"}},"$defs":{"x.Y":{"type":"object","additionalProperties":{"type":"integer"}}}}`, nil},
		{`{"type":["object","null"]}`, []string{"#/type"}},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"type":["number","string"]}}}}`, []string{"#/properties/a/items/type"}},
		{`{"type":"object","$defs":{"x/Y":{"type":"object","properties":{"m":{"type":["object","null"],"additionalProperties":{"type":"string"}}}}}}`, []string{"#/$defs/x~1Y/properties/m/type"}},
		{`{"anyOf":[{"$ref":"#/$defs/x"},{"type":["null"]}]}`, []string{"#/anyOf/1/type"}},
	} {
		var s any
		if err := json.Unmarshal([]byte(c.schema), &s); err != nil {
			t.Fatal(err)
		}
		if got := typeLists(s, "#"); !slices.Equal(got, c.want) {
			t.Errorf("%s: found %q, want %q", c.schema, got, c.want)
		}
	}
}
