package throughtest

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// mcpKeyed adds the API key to every request of the SDK's client.
type mcpKeyed struct {
	key  string
	base http.RoundTripper
}

func (k mcpKeyed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return k.base.RoundTrip(r)
}

// mcpConnect opens a session of the official Go SDK's client over Streamable
// HTTP with key.
func mcpConnect(t *testing.T, srv *servertest.Server, key string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "switchboard-test", Version: "1"}, opts)
	transport := &sdk.StreamableClientTransport{
		Endpoint:   srv.URL + "/api/mcp",
		HTTPClient: &http.Client{Timeout: 30 * time.Second, Transport: mcpKeyed{key, http.DefaultTransport}},
	}
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

func structured(t *testing.T, res *sdk.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	return m
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// RULINGS "MCP": the Go SDK's client initializes, lists the tools that
// exist, adds an item the API then lists (source mcp:<label>), and an
// illegal move is an isError result with the reason.
func TestGoSDKClientQueueRoundTrip(t *testing.T) {
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	key := ann.NewKey("scout", "mcp", "queue")
	cs := mcpConnect(t, srv, key, nil)

	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.OutputSchema == nil {
			t.Errorf("tool %s has no output schema", tl.Name)
		}
	}
	// RULINGS "MCP": once every area exists, the 22 static tools, in
	// document 2's table (no store agent is installed; the SDK lists by name).
	want := []string{"queue_list", "queue_add", "queue_update", "contacts_list", "contacts_search", "cards_list",
		"mode_get", "briefing_get", "activity_recent", "job_post", "job_browse", "job_match", "reputation_get",
		"relay_thread_list", "relay_threads", "entity_resolve", "serendipity_matches", "route_task",
		"network_briefing", "relay_send", "marketplace_browse", "marketplace_unlock"}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("tools/list:\n got %v\nwant %v", names, want)
	}

	added := callTool(t, cs, "queue_add", map[string]any{"title": "Book the venue", "priority": "high"})
	if added.IsError {
		t.Fatalf("queue_add: %s", text(added))
	}
	item := structured(t, added)["item"].(map[string]any)
	if item["title"] != "Book the venue" || item["source"] != "mcp:scout" || item["status"] != "pending_confirmation" {
		t.Fatalf("queue_add answered %v", item)
	}
	listed := srv.WithKey(key).Do("GET", "/api/v2/queue", nil).JSON(t)
	items := listed["data"].(map[string]any)["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["id"] != item["id"] {
		t.Fatalf("GET /api/v2/queue after queue_add: %v", listed)
	}

	// pending_confirmation → done_today is not in the transition table.
	moved := callTool(t, cs, "queue_update", map[string]any{"id": item["id"], "status": "done_today", "priority": "low"})
	if !moved.IsError || !strings.Contains(text(moved), "cannot move to done_today") {
		t.Fatalf("illegal move: isError=%v %q", moved.IsError, text(moved))
	}
	after := srv.WithKey(key).Do("GET", "/api/v2/queue/"+item["id"].(string), nil).JSON(t)
	if got := after["item"].(map[string]any); got["priority"] != "high" || got["status"] != "pending_confirmation" {
		t.Fatalf("a refused update changed the item: %v", got)
	}

	// Another account's id is not found, and nothing is written.
	bob := srv.SignUp("bob")
	bobs := bob.Session.Do("POST", "/api/v2/queue", map[string]any{"title": "Bob's"}).JSON(t)["item"].(map[string]any)
	foreign := callTool(t, cs, "queue_update", map[string]any{"id": bobs["id"], "priority": "urgent"})
	if !foreign.IsError || !strings.Contains(strings.ToLower(text(foreign)), "not found") {
		t.Fatalf("foreign id: isError=%v %q", foreign.IsError, text(foreign))
	}
}
