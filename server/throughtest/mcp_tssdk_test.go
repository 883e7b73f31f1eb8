package throughtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/network/networktest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// tsStep is one line of testdata/mcp/ts-sdk-client.mjs.
type tsStep struct {
	Step string `json:"step"`
	// initialize
	Server struct {
		Name, Version string
	} `json:"server"`
	Capabilities    map[string]any `json:"capabilities"`
	SessionID       string         `json:"sessionId"`
	ProtocolVersion string         `json:"protocolVersion"`
	// tools/list
	Tools            []string `json:"tools"`
	WithOutputSchema int      `json:"withOutputSchema"`
	// tools/call
	IsError    bool           `json:"isError"`
	Structured map[string]any `json:"structured"`
	Text       string         `json:"text"`
	// resources/read
	Contents []struct {
		URI, MimeType, Text string
	} `json:"contents"`
	// prompts/get
	Listed   []string `json:"listed"`
	Messages []struct {
		Role    string
		Content struct{ Type, Text string }
	} `json:"messages"`
	// error, and connect's refusal
	Message string `json:"message"`
	// connect (ts-sdk-nokey.mjs)
	Connected           bool      `json:"connected"`
	ErrorName           string    `json:"errorName"`
	StreamableHTTPError bool      `json:"streamableHTTPError"`
	Code                *int      `json:"code"`
	Requests            []tsFetch `json:"requests"`
}

// tsFetch is one request a script made, and the answer's challenge.
type tsFetch struct {
	URL             string `json:"url"`
	Method          string `json:"method"`
	Status          int    `json:"status"`
	WWWAuthenticate string `json:"wwwAuthenticate"`
}

// RULINGS "MCP": the official TypeScript SDK client (pinned in
// testdata/mcp/npm), over Streamable HTTP, initializes, lists the tools, adds an
// item the API then lists, gets an illegal move back as isError with the
// reason, reads switchboard://briefing and gets a capability pack's prompt.
func TestTypeScriptSDKClient(t *testing.T) {
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	key := ann.NewKey("ts client", "mcp", "queue", "kanban", "chat", "contacts", "store")
	pack := ann.Session.Do("POST", "/api/marketplace-capabilities", map[string]any{
		"action": "create", "name": "Follow-up writer", "description": "Writes polite follow-ups", "category": "writing",
		"prompt":         "Write a follow-up to {{recipient}} in a {{tone}} tone.",
		"editableFields": `[{"name":"recipient","label":"Recipient","type":"text","default":""},{"name":"tone","label":"Tone","type":"text","default":"warm"}]`,
	})
	servertest.WantStatus(t, pack, http.StatusCreated)
	promptName := "pack_" + pack.JSON(t)["capability"].(map[string]any)["capabilityId"].(string)

	steps, order := runTS(t, "ts-sdk-client.mjs", srv.URL, key, promptName)
	want := []string{"initialize", "tools/list", "queue_add", "queue_update", "resources/read", "prompts/get"}
	if !slices.Equal(order, want) {
		t.Fatalf("steps %v, want %v", order, want)
	}

	init := steps["initialize"]
	if init.Server.Name != "switchboard" || init.Server.Version != "1.4.0" || init.SessionID == "" || init.ProtocolVersion == "" {
		t.Errorf("initialize: %+v", init)
	}
	for _, c := range []string{"tools", "resources", "prompts"} {
		if _, ok := init.Capabilities[c]; !ok {
			t.Errorf("initialize: no %s capability in %v", c, init.Capabilities)
		}
	}

	listed := steps["tools/list"]
	for _, name := range []string{"queue_list", "queue_add", "queue_update", "cards_list", "contacts_search", "briefing_get"} {
		if !slices.Contains(listed.Tools, name) {
			t.Errorf("tools/list lacks %s: %v", name, listed.Tools)
		}
	}
	if listed.WithOutputSchema != len(listed.Tools) {
		t.Errorf("%d of %d tools carry an output schema", listed.WithOutputSchema, len(listed.Tools))
	}

	added := steps["queue_add"]
	item, _ := added.Structured["item"].(map[string]any)
	if added.IsError || item["title"] != "From TypeScript" || item["source"] != "mcp:ts client" ||
		item["status"] != "pending_confirmation" || !strings.Contains(added.Text, "From TypeScript") {
		t.Fatalf("queue_add: %+v", added)
	}
	queue := srv.WithKey(key).Do("GET", "/api/v2/queue", nil)
	servertest.WantStatus(t, queue, http.StatusOK)
	items := queue.JSON(t)["data"].(map[string]any)["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["id"] != item["id"] || items[0].(map[string]any)["title"] != "From TypeScript" {
		t.Fatalf("GET /api/v2/queue after queue_add: %s", queue.Body)
	}

	// pending_confirmation → done_today is not in the transition table.
	moved := steps["queue_update"]
	if !moved.IsError || !strings.Contains(moved.Text, "cannot move to done_today") {
		t.Errorf("illegal move: %+v", moved)
	}
	after := srv.WithKey(key).Do("GET", "/api/v2/queue/"+item["id"].(string), nil).JSON(t)
	if got := after["item"].(map[string]any)["status"]; got != "pending_confirmation" {
		t.Errorf("a refused move changed the status to %v", got)
	}

	read := steps["resources/read"]
	if len(read.Contents) != 1 || read.Contents[0].URI != "switchboard://briefing" || read.Contents[0].MimeType != "application/json" {
		t.Fatalf("resources/read: %+v", read)
	}
	var brief struct {
		Counts           map[string]int   `json:"counts"`
		AwaitingApproval []map[string]any `json:"awaitingApproval"`
	}
	if err := json.Unmarshal([]byte(read.Contents[0].Text), &brief); err != nil {
		t.Fatalf("briefing text: %v", err)
	}
	if brief.Counts["awaitingApproval"] != 1 || len(brief.AwaitingApproval) != 1 || brief.AwaitingApproval[0]["title"] != "From TypeScript" {
		t.Errorf("briefing: %s", read.Contents[0].Text)
	}

	got := steps["prompts/get"]
	if !slices.Contains(got.Listed, promptName) {
		t.Errorf("prompts/list lacks %s: %v", promptName, got.Listed)
	}
	if len(got.Messages) != 1 || got.Messages[0].Content.Type != "text" ||
		got.Messages[0].Content.Text != "Write a follow-up to Grace in a warm tone." {
		t.Errorf("prompts/get: %+v", got.Messages)
	}
}

// runTS runs a script of testdata with the pinned TypeScript SDK and
// answers its steps by name and their order.
func runTS(t *testing.T, script string, args ...string) (map[string]tsStep, []string) {
	t.Helper()
	sdkDir, err := filepath.Abs(filepath.Join("testdata", "mcp", "npm"))
	if err != nil {
		t.Fatal(err)
	}
	node := ensureNPM(t, sdkDir, filepath.Join("@modelcontextprotocol", "sdk"))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join("testdata", "mcp", script)}, args...)...)
	cmd.Env = append(os.Environ(), "MCP_SDK_DIR="+sdkDir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	steps := map[string]tsStep{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var s tsStep
		if jerr := json.Unmarshal(sc.Bytes(), &s); jerr != nil {
			t.Fatalf("node printed %q", sc.Text())
		}
		steps[s.Step] = s
		order = append(order, s.Step)
	}
	if e, ok := steps["error"]; ok {
		t.Fatalf("the TypeScript client failed after %v: %s\nstderr: %s", order, e.Message, stderr.String())
	}
	if err != nil {
		t.Fatalf("node: %v (steps %v)\nstderr: %s", err, order, stderr.String())
	}
	return steps, order
}

// RULINGS "MCP" and "The operator network" (relays): the official
// TypeScript SDK client calls relay_send against A and the relay lands at B
// as a pending queue item; relay_threads then lists the thread as active.
func TestTypeScriptSDKClientRelay(t *testing.T) {
	t.Parallel()
	a, b := servertest.New(t, networktest.Options()...), servertest.New(t, networktest.Options()...)
	ann, bob := a.SignUp("ann"), b.SignUp("bob")
	connID, _ := networktest.Connect(t, a, ann, b, bob)
	steps, order := runTS(t, "ts-sdk-relay.mjs", a.URL, ann.NewKey("ts relay", "mcp", "network"), connID)
	if want := []string{"relay_send", "relay_threads"}; !slices.Equal(order, want) {
		t.Fatalf("steps %v, want %v", order, want)
	}
	sent := steps["relay_send"]
	list, _ := sent.Structured["sent"].([]any)
	if sent.IsError || len(list) != 1 {
		t.Fatalf("relay_send: %+v", sent)
	}
	relay := list[0].(map[string]any)["relay"].(map[string]any)
	answer := list[0].(map[string]any)["answer"].(map[string]any)
	if relay["connectionId"] != connID || relay["subject"] != "From TypeScript" || answer["task"] != true {
		t.Fatalf("relay_send answered %v", list[0])
	}
	// At B: the relay, and the queue item it became, pending bob's confirmation.
	got := bob.Session.Do(http.MethodGet, "/api/federation/relays", nil).JSON(t)["relays"].([]any)
	if len(got) != 1 || got[0].(map[string]any)["relayId"] != relay["id"] || got[0].(map[string]any)["direction"] != "inbound" {
		t.Fatalf("B's relays: %v", got)
	}
	items := bob.Session.Do(http.MethodGet, "/api/v2/queue", nil).JSON(t)["data"].(map[string]any)["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["title"] != "From TypeScript" || items[0].(map[string]any)["status"] != "pending_confirmation" {
		t.Fatalf("B's queue: %v", items)
	}
	threads, _ := steps["relay_threads"].Structured["threads"].([]any)
	if steps["relay_threads"].IsError || len(threads) != 1 || threads[0].(map[string]any)["threadId"] != relay["threadId"] ||
		threads[0].(map[string]any)["status"] != "active" {
		t.Fatalf("relay_threads: %+v", steps["relay_threads"])
	}
}
