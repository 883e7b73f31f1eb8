package throughtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "MCP": a bare body {method, params} answers the bare result; its
// errors are the REST error body with 400 or 404. No key 401, a key without
// mcp 403.
func TestBareBodies(t *testing.T) {
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	key := ann.NewKey("bare", "mcp", "queue")
	mcp := srv.WithKey(key)

	listed := mcp.Do("POST", "/api/mcp", map[string]any{"method": "tools/list"})
	servertest.WantStatus(t, listed, http.StatusOK)
	tools, _ := listed.JSON(t)["tools"].([]any)
	if len(tools) < 10 {
		t.Fatalf("bare tools/list: %s", listed.Body)
	}
	if _, ok := listed.JSON(t)["jsonrpc"]; ok {
		t.Fatalf("a bare answer carries the envelope: %s", listed.Body)
	}

	added := mcp.Do("POST", "/api/mcp", map[string]any{"method": "tools/call",
		"params": map[string]any{"name": "queue_add", "arguments": map[string]any{"title": "Bare item"}}})
	servertest.WantStatus(t, added, http.StatusOK)
	sc, _ := added.JSON(t)["structuredContent"].(map[string]any)
	if item, _ := sc["item"].(map[string]any); item["title"] != "Bare item" || item["source"] != "mcp:bare" {
		t.Fatalf("bare tools/call: %s", added.Body)
	}

	res := mcp.Do("POST", "/api/mcp", map[string]any{"method": "resources/list"})
	servertest.WantStatus(t, res, http.StatusOK)
	if !bytes.Contains(res.Body, []byte("switchboard://briefing")) || !bytes.Contains(res.Body, []byte("switchboard://contacts")) {
		t.Fatalf("bare resources/list: %s", res.Body)
	}

	servertest.WantError(t, mcp.Do("POST", "/api/mcp", map[string]any{"method": "tools/call",
		"params": map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}}), http.StatusNotFound)
	servertest.WantError(t, mcp.Do("POST", "/api/mcp", map[string]any{"method": "no/such"}), http.StatusNotFound)
	servertest.WantError(t, mcp.Do("POST", "/api/mcp", `{"params": {}}`), http.StatusBadRequest)

	servertest.WantError(t, srv.Anonymous().Do("POST", "/api/mcp", map[string]any{"method": "tools/list"}), http.StatusUnauthorized)
	other := ann.NewKey("no mcp", "queue")
	servertest.WantError(t, srv.WithKey(other).Do("POST", "/api/mcp", map[string]any{"method": "tools/list"}), http.StatusForbidden)
}

// RULINGS "Accounts, keys, sessions": a tool needs mcp and the scope of its
// area; a tool the key cannot use is refused as an isError result, and
// nothing is written.
func TestToolScopes(t *testing.T) {
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	key := ann.NewKey("contacts only", "mcp", "contacts")
	res := srv.WithKey(key).Do("POST", "/api/mcp", map[string]any{"method": "tools/call",
		"params": map[string]any{"name": "queue_add", "arguments": map[string]any{"title": "Sneaky"}}})
	servertest.WantStatus(t, res, http.StatusOK)
	body := res.JSON(t)
	if body["isError"] != true || !strings.Contains(fmt.Sprint(body["content"]), `"queue" scope`) {
		t.Fatalf("queue_add without the queue scope: %s", res.Body)
	}
	if n := len(ann.Session.Do("GET", "/api/v2/queue", nil).JSON(t)["data"].(map[string]any)["items"].([]any)); n != 0 {
		t.Fatalf("a refused tool wrote %d items", n)
	}
	ok := srv.WithKey(key).Do("POST", "/api/mcp", map[string]any{"method": "tools/call",
		"params": map[string]any{"name": "contacts_list", "arguments": map[string]any{}}})
	if ok.JSON(t)["isError"] == true {
		t.Fatalf("contacts_list with the contacts scope: %s", ok.Body)
	}
}

// RULINGS "Input at the boundary": NUL and invalid UTF-8 in tool arguments
// are refused and nothing is written; arguments outside the input schema too.
func TestBadArguments(t *testing.T) {
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	mcp := srv.WithKey(ann.NewKey("bad", "mcp", "queue"))
	for name, args := range map[string]string{
		"NUL in a string": `{"title": "a\u0000b"}`,
		"unknown field":   `{"title": "x", "colour": "red"}`,
		"wrong type":      `{"title": 42}`,
		"not in the enum": `{"title": "x", "priority": "whenever"}`,
		"over the limit":  `{"title": "` + strings.Repeat("x", 501) + `"}`,
		"missing title":   `{}`,
	} {
		res := mcp.Do("POST", "/api/mcp", `{"method":"tools/call","params":{"name":"queue_add","arguments":`+args+`}}`)
		if res.Status == http.StatusOK && res.JSON(t)["isError"] != true {
			t.Errorf("%s: accepted: %s", name, res.Body)
		}
	}
	bad := mcp.Do("POST", "/api/mcp", []byte("{\"method\":\"tools/call\",\"params\":{\"name\":\"queue_add\",\"arguments\":{\"title\":\"\xff\xfe\"}}}"))
	servertest.WantError(t, bad, http.StatusBadRequest)
	if n := len(ann.Session.Do("GET", "/api/v2/queue", nil).JSON(t)["data"].(map[string]any)["items"].([]any)); n != 0 {
		t.Fatalf("refused arguments wrote %d items", n)
	}
}

// RULINGS "MCP": the server card names the server, version 1.4.0, the
// Streamable HTTP endpoint and the static tools without the store's two.
func TestServerCard(t *testing.T) {
	srv := servertest.New(t)
	res := srv.Anonymous().Do("GET", "/.well-known/mcp/server-card.json", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	card := res.JSON(t)
	if card["version"] != "1.4.0" || card["endpoint"].(map[string]any)["url"] != srv.URL+"/api/mcp" {
		t.Fatalf("server card: %s", res.Body)
	}
	// The 22 static tools without the store's two: 20.
	if n := len(card["tools"].([]any)); n != 20 {
		t.Errorf("the server card lists %d tools, want 20", n)
	}
	for _, tl := range card["tools"].([]any) {
		if name := tl.(map[string]any)["name"].(string); strings.HasPrefix(name, "marketplace_") {
			t.Errorf("the server card lists %s", name)
		}
	}
	mcpGolden(t, "server-card.json", bytes.ReplaceAll(res.Body, []byte(srv.URL), []byte("http://HOST")))
}

// RULINGS "MCP": the server card's capabilities are those initialize
// advertises (one declaration serves both), for an account with nothing
// installed too: prompts are advertised before its first pack adds one.
func TestServerCardCapabilitiesAreInitializes(t *testing.T) {
	srv := servertest.New(t)
	card := srv.Anonymous().Do("GET", "/.well-known/mcp/server-card.json", nil).JSON(t)["capabilities"].(map[string]any)
	cs := mcpConnect(t, srv, srv.SignUp("ann").NewKey("caps", "mcp"), nil)
	b, err := json.Marshal(cs.InitializeResult().Capabilities)
	if err != nil {
		t.Fatal(err)
	}
	var init map[string]any
	if err := json.Unmarshal(b, &init); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"tools", "resources", "prompts"} {
		if fmt.Sprint(card[c]) != fmt.Sprint(init[c]) || init[c] == nil {
			t.Errorf("%s: the card says %v, initialize %v", c, card[c], init[c])
		}
	}
}

func mcpGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "mcp", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Fatalf("%s differs from the golden file:\n%s", name, got)
	}
}

// RULINGS "MCP": installing a store agent adds marketplace_{slug} to the
// caller's tool list and tells the open session (tools/list_changed); the
// tool runs the execution contract; uninstalling removes it again.
func TestStoreAgentToolFollowsInstalls(t *testing.T) {
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"output": fmt.Sprintf("Result for %v", body["message"])})
	}))
	t.Cleanup(agent.Close)
	srv := servertest.New(t, servertest.WithPrivateEndpoints())
	dora := srv.SignUp("dora")
	listing := dora.Session.Do("POST", "/api/marketplace", map[string]any{"name": "Research Scout", "endpointUrl": agent.URL, "pricingModel": "free"})
	servertest.WantStatus(t, listing, http.StatusCreated)
	a := listing.JSON(t)["agent"].(map[string]any)
	id, slug := a["id"].(string), a["slug"].(string)

	ann := srv.SignUp("ann")
	changed := make(chan struct{}, 8)
	cs := mcpConnect(t, srv, ann.NewKey("tools", "mcp", "store"), &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	hasTool := func() bool {
		list, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range list.Tools {
			if tl.Name == "marketplace_"+slug {
				return true
			}
		}
		return false
	}
	if hasTool() {
		t.Fatal("the tool is listed before the install")
	}
	servertest.WantStatus(t, ann.Session.Do("POST", "/api/marketplace/"+id+"/install", map[string]any{}), http.StatusCreated)
	waitChanged(t, changed)
	if !hasTool() {
		t.Fatal("the tool is not listed after the install")
	}
	ran := callTool(t, cs, "marketplace_"+slug, map[string]any{"input": "the battery market"})
	if ran.IsError || !strings.Contains(text(ran), "Result for the battery market") {
		t.Fatalf("marketplace_%s: isError=%v %s", slug, ran.IsError, text(ran))
	}
	// The run counts as the MCP door's in the admin's agent activity.
	if ex, err := srv.DB.Execution.Query().Where(execution.AgentID(id)).Only(context.Background()); err != nil || ex.RunOrigin != execution.RunOriginMcp {
		t.Fatalf("the tool's execution: %+v %v", ex, err)
	}
	servertest.WantStatus(t, ann.Session.Do("DELETE", "/api/marketplace/"+id+"/install", nil), http.StatusOK)
	waitChanged(t, changed)
	if hasTool() {
		t.Fatal("the tool is listed after the uninstall")
	}
}

func waitChanged(t *testing.T, changed <-chan struct{}) {
	t.Helper()
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed within 10s")
	}
}

// RULINGS "MCP": resources list and read; each installed capability pack is
// a prompt whose arguments are its editable fields and whose text is its
// resolved template.
func TestResourcesAndPackPrompts(t *testing.T) {
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	servertest.WantStatus(t, ann.Session.Do("POST", "/api/v2/queue", map[string]any{"title": "Approve me", "priority": "urgent"}), http.StatusCreated)
	cs := mcpConnect(t, srv, ann.NewKey("reader", "mcp", "queue", "kanban", "chat", "contacts", "store"), nil)
	ctx := context.Background()

	read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "switchboard://briefing"})
	if err != nil {
		t.Fatal(err)
	}
	var brief struct {
		Counts           map[string]int   `json:"counts"`
		AwaitingApproval []map[string]any `json:"awaitingApproval"`
	}
	if err := json.Unmarshal([]byte(read.Contents[0].Text), &brief); err != nil {
		t.Fatal(err)
	}
	if brief.Counts["awaitingApproval"] != 1 || brief.Counts["urgent"] != 1 || brief.AwaitingApproval[0]["title"] != "Approve me" {
		t.Fatalf("briefing: %s", read.Contents[0].Text)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "switchboard://nothing"}); err == nil {
		t.Fatal("an unknown resource was read")
	}

	pack := ann.Session.Do("POST", "/api/marketplace-capabilities", map[string]any{
		"action": "create", "name": "Follow-up writer", "description": "Writes polite follow-ups", "category": "writing",
		"prompt":         "Write a follow-up to {{recipient}} in a {{tone}} tone.",
		"editableFields": `[{"name":"recipient","label":"Recipient","type":"text","default":""},{"name":"tone","label":"Tone","type":"text","default":"warm"}]`,
	})
	servertest.WantStatus(t, pack, http.StatusCreated)
	packID := pack.JSON(t)["capability"].(map[string]any)["capabilityId"].(string)
	var prompt *sdk.Prompt
	servertest.WaitFor(t, "the pack's prompt", func() bool {
		list, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range list.Prompts {
			if p.Name == "pack_"+packID {
				prompt = p
			}
		}
		return prompt != nil
	})
	if len(prompt.Arguments) != 2 || prompt.Arguments[0].Name != "recipient" {
		t.Fatalf("prompt arguments: %+v", prompt.Arguments)
	}
	got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: prompt.Name, Arguments: map[string]string{"recipient": "Grace"}})
	if err != nil {
		t.Fatal(err)
	}
	if tc := got.Messages[0].Content.(*sdk.TextContent); tc.Text != "Write a follow-up to Grace in a warm tone." {
		t.Fatalf("resolved prompt: %q", tc.Text)
	}
}

// openStream opens a session with key and its GET stream (the server's side
// of Streamable HTTP), and answers a channel that is told when the stream ends.
func openStream(t *testing.T, srv *servertest.Server, key string) <-chan error {
	t.Helper()
	stream := openStreamResponse(t, srv, key) //nolint:bodyclose // openStreamResponse closes it at the test's end
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, bufio.NewReader(stream.Body))
		ended <- err
	}()
	return ended
}

// openStreamResponse opens a session with key and answers its GET stream.
func openStreamResponse(t *testing.T, srv *servertest.Server, key string) *http.Response {
	t.Helper()
	post := func(body, session string) (int, http.Header) {
		req, _ := http.NewRequest("POST", srv.URL+"/api/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		res, err := srv.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, res.Header
	}
	status, header := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, "")
	session := header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatalf("initialize gave no session id (%d)", status)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)

	req, _ := http.NewRequest("GET", srv.URL+"/api/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	stream, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stream.Body.Close() })
	t.Cleanup(func() { _ = stream.Body.Close() })
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %d", stream.StatusCode)
	}
	return stream
}

func keyID(t *testing.T, acct *servertest.Account, label string) string {
	t.Helper()
	for _, k := range acct.Session.Do("GET", "/api/v2/keys", nil).JSON(t)["keys"].([]any) {
		if k.(map[string]any)["label"] == label {
			return k.(map[string]any)["id"].(string)
		}
	}
	t.Fatalf("no key %q", label)
	return ""
}

func waitEnded(t *testing.T, ended <-chan error, why string) {
	t.Helper()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatalf("the MCP stream outlived its key (%s) by 10s", why)
	}
}

// RULINGS "Streams and credentials": deleting the key ends the session's
// stream at once.
func TestDeletedKeyEndsTheStream(t *testing.T) {
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	ended := openStream(t, srv, ann.NewKey("streamer", "mcp"))
	servertest.WantStatus(t, ann.Session.Do("DELETE", "/api/v2/keys/"+keyID(t, ann, "streamer"), nil), http.StatusOK)
	waitEnded(t, ended, "deleted")
}

// RULINGS "Streams and credentials": a key that expires (or is deactivated
// on another replica, which only the database knows) ends the stream within
// one heartbeat.
func TestExpiredKeyEndsTheStream(t *testing.T) {
	srv := servertest.New(t, servertest.WithHeartbeat(200*time.Millisecond))
	ann := srv.SignUp("ann")
	ended := openStream(t, srv, ann.NewKey("expiring", "mcp"))
	select {
	case <-ended:
		t.Fatal("the stream ended while its key was live")
	case <-time.After(600 * time.Millisecond):
	}
	id := keyID(t, ann, "expiring")
	if err := srv.DB.APIKey.UpdateOneID(id).SetExpiresAt(srv.Clock.Now().Add(-time.Minute)).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitEnded(t, ended, "expired")
}

// RULINGS "MCP": entity_resolve searches each requested surface that exists,
// ranked by match quality; a surface without the key's scope, or not built
// yet, answers []; another account's rows never appear.
func TestEntityResolve(t *testing.T) {
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	for _, name := range []string{"Adana Textiles", "Dana Reyes", "Bo Dana"} {
		servertest.WantStatus(t, ann.Session.Do("POST", "/api/v2/contacts", map[string]any{"name": name}), http.StatusCreated)
	}
	servertest.WantStatus(t, ann.Session.Do("POST", "/api/v2/kanban", map[string]any{"title": "Dana renewal"}), http.StatusCreated)
	bob := srv.SignUp("bob")
	servertest.WantStatus(t, bob.Session.Do("POST", "/api/v2/contacts", map[string]any{"name": "Dana Bob's"}), http.StatusCreated)

	resolve := func(key string) map[string][]map[string]any {
		res := srv.WithKey(key).Do("POST", "/api/mcp", map[string]any{"method": "tools/call",
			"params": map[string]any{"name": "entity_resolve", "arguments": map[string]any{"query": "dana"}}})
		servertest.WantStatus(t, res, http.StatusOK)
		var body struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Results map[string][]map[string]any `json:"results"`
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(res.Body, &body); err != nil || body.IsError {
			t.Fatalf("entity_resolve: %s", res.Body)
		}
		return body.StructuredContent.Results
	}
	all := resolve(ann.NewKey("all", "mcp", "contacts", "kanban"))
	var labels []string
	for _, m := range all["contacts"] {
		labels = append(labels, m["label"].(string))
	}
	if strings.Join(labels, "|") != "Dana Reyes|Bo Dana|Adana Textiles" {
		t.Fatalf("contacts ranked %v", labels)
	}
	if len(all["cards"]) != 1 || all["cards"][0]["label"] != "Dana renewal" || len(all["relays"]) != 0 {
		t.Fatalf("cards %v, relays %v", all["cards"], all["relays"])
	}
	if some := resolve(ann.NewKey("contacts", "mcp", "contacts")); len(some["cards"]) != 0 || len(some["contacts"]) != 3 {
		t.Fatalf("a key without kanban sees cards: %v", some)
	}
}

// The SDK's DNS-rebinding protection stays on: a request reaching the
// loopback listener with a Host that is not loopback is refused.
func TestDNSRebindingRefused(t *testing.T) {
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	req, _ := http.NewRequest("POST", srv.URL+"/api/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Host = "evil.example"
	req.Header.Set("Authorization", "Bearer "+ann.NewKey("rebind", "mcp"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := srv.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("Host evil.example: %d", res.StatusCode)
	}
}

// RULINGS "MCP", issue 13 item 3: marketplace_unlock with the listing's
// access password unlocks it for the caller, whose next run through the
// agent's own tool takes no hold; a wrong password is an isError result and
// writes nothing.
func TestMarketplaceUnlock(t *testing.T) {
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"output":"paid work"}`)
	}))
	t.Cleanup(agent.Close)
	srv := servertest.New(t, servertest.WithPrivateEndpoints())
	dora := srv.SignUp("dora")
	listing := dora.Session.Do("POST", "/api/marketplace", map[string]any{"name": "Paid Scout", "endpointUrl": agent.URL,
		"pricingModel": "per_task", "pricePerTask": 2.5, "currency": "EUR", "accessPassword": "open sesame please"})
	servertest.WantStatus(t, listing, http.StatusCreated)
	made := listing.JSON(t)["agent"].(map[string]any)
	id, slug := made["id"].(string), made["slug"].(string)

	ann := srv.SignUp("ann")
	cs := mcpConnect(t, srv, ann.NewKey("buyer", "mcp", "store"), nil)
	wrong := callTool(t, cs, "marketplace_unlock", map[string]any{"slug": slug, "accessPassword": "guess"})
	if !wrong.IsError || !strings.Contains(text(wrong), "password") {
		t.Fatalf("wrong password: isError=%v %q", wrong.IsError, text(wrong))
	}
	if n, _ := srv.DB.StoreUnlock.Query().Count(context.Background()); n != 0 {
		t.Fatalf("a wrong password wrote %d unlocks", n)
	}
	right := callTool(t, cs, "marketplace_unlock", map[string]any{"slug": slug, "accessPassword": "open sesame please"})
	if right.IsError || structured(t, right)["unlocked"] != true {
		t.Fatalf("right password: %s", text(right))
	}
	servertest.WantStatus(t, ann.Session.Do("POST", "/api/marketplace/"+id+"/install", map[string]any{}), http.StatusCreated)
	ran := callTool(t, cs, "marketplace_"+slug, map[string]any{"input": "the battery market"})
	out := structured(t, ran)
	if ran.IsError || out["paymentHoldStatus"] != "none" || out["revenue"] != nil {
		t.Fatalf("the unlocked caller's run: %s", text(ran))
	}
	if n, _ := srv.DB.PaymentHold.Query().Count(context.Background()); n != 0 {
		t.Fatalf("the unlocked run made %d holds", n)
	}
}
