package throughtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/internal/llm/llmtest"
	"github.com/switchboard-hq/switchboard/server/assistant/tags"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network/networktest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "The assistant" (decompose_task resolves $N, 0-indexed, earlier
// subtasks only, into dependsOn ids, sets parentTaskId and subtaskOrder,
// writes task_decomposed and a comms message) and document 1 "Queue action
// tags"; the children's dependencies release as document 1's
// autoDispatched says.
func TestDecomposeTask(t *testing.T) {
	t.Parallel()
	w := newAssistantWorld(t)
	ctx := context.Background()
	parent := result(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": "Launch the site", "type": "custom"}))["item"].(map[string]any)
	pid := parent["id"].(string)

	before := w.items(t)
	for name, body := range map[string]map[string]any{
		"forward reference": {"parentId": pid, "subtasks": []any{map[string]any{"title": "a", "dependsOn": "$1"}, map[string]any{"title": "b"}}},
		"self reference":    {"parentId": pid, "subtasks": []any{map[string]any{"title": "a"}, map[string]any{"title": "b", "dependsOn": "$1"}}},
		"not $N":            {"parentId": pid, "subtasks": []any{map[string]any{"title": "a"}, map[string]any{"title": "b", "dependsOn": "0"}}},
		"leading zero":      {"parentId": pid, "subtasks": []any{map[string]any{"title": "a"}, map[string]any{"title": "b", "dependsOn": "$00"}}},
		"no subtasks":       {"parentId": pid, "subtasks": []any{}},
		"no parent":         {"subtasks": []any{map[string]any{"title": "a"}}},
		"a later bad title": {"parentId": pid, "subtasks": []any{map[string]any{"title": "a"}, map[string]any{"title": "b\x00"}}},
		"blank title":       {"parentId": pid, "subtasks": []any{map[string]any{"title": "a"}, map[string]any{"title": "  "}}},
		"bad priority":      {"parentId": pid, "subtasks": []any{map[string]any{"title": "a", "priority": "soon"}}},
		"unknown key":       {"parentId": pid, "subtasks": []any{map[string]any{"title": "a", "owner": "me"}}},
		"too many":          {"parentId": pid, "subtasks": manySubtasks(21)},
	} {
		t.Run(name, func(t *testing.T) {
			servertest.WantError(t, w.tag(w.ann, "decompose_task", body), http.StatusBadRequest)
		})
	}
	// Another account's parent, and an unknown one: 404.
	servertest.WantError(t, w.tag(w.eve, "decompose_task", map[string]any{"parentId": pid,
		"subtasks": []any{map[string]any{"title": "a"}}}), http.StatusNotFound)
	servertest.WantError(t, w.tag(w.ann, "decompose_task", map[string]any{"parentId": "nope",
		"subtasks": []any{map[string]any{"title": "a"}}}), http.StatusNotFound)
	if n := w.items(t); n != before {
		t.Fatalf("refused decompositions created %d items", n-before)
	}

	got := result(t, w.tag(w.ann, "decompose_task", map[string]any{"parentId": pid, "subtasks": []any{
		map[string]any{"title": "Write the copy"},
		map[string]any{"title": "Lay out the pages", "dependsOn": "$0", "priority": "high"},
		map[string]any{"title": "Publish", "dependsOn": "$1", "description": "Friday"},
	}}))
	subs := got["subtasks"].([]any)
	if len(subs) != 3 || got["parent"].(map[string]any)["id"] != pid {
		t.Fatalf("decomposition: %v", got)
	}
	ids := make([]string, 3)
	for i, s := range subs {
		s := s.(map[string]any)
		ids[i] = s["id"].(string)
		if s["parentTaskId"] != pid || s["subtaskOrder"] != float64(i) || s["source"] != "assistant" || s["status"] != "pending_confirmation" {
			t.Fatalf("subtask %d: %v", i, s)
		}
	}
	if subs[0].(map[string]any)["dependsOn"] != nil {
		t.Fatalf("the first subtask depends on something: %v", subs[0])
	}
	if subs[1].(map[string]any)["dependsOn"] != ids[0] || subs[2].(map[string]any)["dependsOn"] != ids[1] {
		t.Fatalf("dependsOn not resolved to real ids: %v", subs)
	}
	if n, _ := w.srv.DB.ActivityEntry.Query().Where(activityentry.Action("task_decomposed"), activityentry.UserID(w.ann.ID)).Count(ctx); n != 1 {
		t.Fatalf("%d task_decomposed entries", n)
	}
	if n, _ := w.srv.DB.ChatMessage.Query().Where(chatmessage.UserID(w.ann.ID), chatmessage.MetadataType("task_decomposed")).Count(ctx); n != 1 {
		t.Fatalf("%d task_decomposed comms messages", n)
	}

	// End to end: approve the children; the first done dispatches the
	// second (ready, waiting on it), autoDispatched.
	for _, id := range ids {
		result(t, w.tag(w.ann, "confirm_queue_item", map[string]any{"id": id}))
	}
	status := func(id, to string) map[string]any {
		res := w.ann.Session.Do(http.MethodPatch, "/api/v2/queue/"+id+"/status", map[string]any{"status": to})
		servertest.WantStatus(t, res, http.StatusOK)
		return res.JSON(t)
	}
	status(ids[0], "in_progress")
	if done := status(ids[0], "done_today"); done["autoDispatched"] != true {
		t.Fatalf("completing the first subtask: %v", done)
	}
	second := w.ann.Session.Do(http.MethodGet, "/api/v2/queue/"+ids[1], nil).JSON(t)["item"].(map[string]any)
	third := w.ann.Session.Do(http.MethodGet, "/api/v2/queue/"+ids[2], nil).JSON(t)["item"].(map[string]any)
	if second["status"] != "in_progress" || third["status"] != "ready" {
		t.Fatalf("after the first: second %v, third %v", second["status"], third["status"])
	}
}

func manySubtasks(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"title": "step"}
	}
	return out
}

// RULINGS "The assistant": create_checklist through the board's service
// (appended after the card's items, which stay), and show_settings_widget
// and show_google_connect answering the widgets the dashboard renders.
func TestChecklistAndWidgetTags(t *testing.T) {
	t.Parallel()
	w := newAssistantWorld(t)
	item := result(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": "Plan the offsite", "type": "custom"}))["item"].(map[string]any)
	cardID := item["cardId"].(string)
	card := result(t, w.tag(w.ann, "create_checklist", map[string]any{"cardId": cardID, "items": []string{"Book the venue", "Send invites"}}))["card"].(map[string]any)
	list := card["checklist"].([]any)
	if len(list) != 3 || list[1].(map[string]any)["text"] != "Book the venue" || list[2].(map[string]any)["text"] != "Send invites" {
		t.Fatalf("checklist: %v", list)
	}
	if list[0].(map[string]any)["sourceType"] == nil {
		t.Fatalf("the queue's row lost its source: %v", list[0])
	}
	servertest.WantError(t, w.tag(w.eve, "create_checklist", map[string]any{"cardId": cardID, "items": []string{"Mine"}}), http.StatusNotFound)
	for _, body := range []map[string]any{{"cardId": cardID}, {"items": []string{"x"}}, {"cardId": cardID, "items": []string{" "}},
		{"cardId": cardID, "items": []string{"a\x00"}}, {"cardId": cardID, "items": []string{"x"}, "due": "now"}} {
		servertest.WantError(t, w.tag(w.ann, "create_checklist", body), http.StatusBadRequest)
	}

	// Each group shows its settings; triage's row acts through execute-tag.
	want := map[string][]string{"working_style": {"mode", "assistantName"}, "triage": {"queueAutoApprove"},
		"goals": {"goalsEnabled"}, "identity": {"assistantName"}, "all": {"mode", "assistantName", "queueAutoApprove", "goalsEnabled"}}
	for group, fields := range want {
		wd := result(t, w.tag(w.ann, "show_settings_widget", map[string]any{"group": group}))["widget"].(map[string]any)
		rows := wd["items"].([]any)
		if wd["group"] != group || len(rows) != len(fields) {
			t.Fatalf("%s widget: %v", group, wd)
		}
		for i, f := range fields {
			if rows[i].(map[string]any)["id"] != f {
				t.Fatalf("%s widget rows: %v", group, rows)
			}
		}
	}
	triage := result(t, w.tag(w.ann, "show_settings_widget", map[string]any{"group": "triage"}))["widget"].(map[string]any)
	row := triage["items"].([]any)[0].(map[string]any)
	exec := row["execute"].(map[string]any)
	after := result(t, w.tag(w.ann, exec["tag"].(string), exec["body"]))["widget"].(map[string]any)
	if row["value"] != false || after["items"].([]any)[0].(map[string]any)["value"] != true {
		t.Fatalf("auto-approve before %v, after %v", row, after)
	}
	if got := w.ann.Session.Do(http.MethodGet, "/api/v2/settings", nil).JSON(t); got["queueAutoApprove"] != true {
		t.Fatalf("settings after the widget: %v", got)
	}
	servertest.WantError(t, w.tag(w.ann, "show_settings_widget", map[string]any{"group": "colours"}), http.StatusBadRequest)
	servertest.WantError(t, w.tag(w.ann, "show_settings_widget", map[string]any{"group": "goals", "set": map[string]any{"queueAutoApprove": true}}), http.StatusBadRequest)
	servertest.WantError(t, w.tag(w.ann, "show_settings_widget", map[string]any{"group": "all", "set": map[string]any{"goalsEnabled": true}}), http.StatusBadRequest)
	if got := w.eve.Session.Do(http.MethodGet, "/api/v2/settings", nil).JSON(t); got["queueAutoApprove"] == true {
		t.Fatal("ann's widget changed eve's settings")
	}

	g := result(t, w.tag(w.ann, "show_google_connect", map[string]any{"identity": "agent", "label": "Connect your Drive"}))["widget"].(map[string]any)
	if g["kind"] != "google_connect" || g["identity"] != "agent" || g["title"] != "Connect your Drive" {
		t.Fatalf("google widget: %v", g)
	}
	act := g["items"].([]any)[0].(map[string]any)["execute"].(map[string]any)
	servertest.WantErrorContaining(t, w.tag(w.ann, act["tag"].(string), act["body"]), http.StatusUnprocessableEntity, "Google is not configured on this instance")
	servertest.WantError(t, w.tag(w.ann, "show_google_connect", map[string]any{"identity": "robot"}), http.StatusBadRequest)
	servertest.WantError(t, w.tag(w.ann, "show_google_connect", map[string]any{"label": "a\x00"}), http.StatusBadRequest)
	servertest.WantError(t, w.tag(w.ann, "show_google_connect", map[string]any{"action": "disconnect"}), http.StatusBadRequest)
}

// copySchema is a store agent's requiredInputSchema: task and audience
// required.
const copySchema = `{"type":"object","required":["task","audience"],"properties":{"task":{"type":"string","minLength":1},` +
	`"audience":{"type":"string","minLength":1},"context":{"type":"string"},"constraints":{"type":"array","items":{"type":"string"}}}}`

// forCopywriter is an item of ann's for an installed store agent whose input
// schema is copySchema, and the agent's id.
func forCopywriter(t *testing.T, w *assistantWorld) (string, string) {
	t.Helper()
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"output":"written"}`))
	}))
	t.Cleanup(agent.Close)
	dora := w.srv.SignUp("dora2")
	res := dora.Session.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Copywriter", "endpointUrl": agent.URL,
		"pricingModel": "free", "taskTypes": []string{"launchcopy"}, "requiredInputSchema": copySchema})
	servertest.WantStatus(t, res, http.StatusCreated)
	agentID := res.JSON(t)["agent"].(map[string]any)["id"].(string)
	servertest.WantStatus(t, w.ann.Session.Do(http.MethodPost, "/api/marketplace/"+agentID+"/install", map[string]any{}), http.StatusCreated)
	item := result(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": "Write the launch post", "type": "launchcopy"}))["item"].(map[string]any)
	return item["id"].(string), agentID
}

func metaOf(t *testing.T, item map[string]any) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(item["metadata"].(string)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func validates(t *testing.T, payload any) error {
	t.Helper()
	s := &jsonschema.Schema{}
	if err := json.Unmarshal([]byte(copySchema), s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.Validate(payload)
}

// RULINGS "The assistant" (the prompt optimizer, for an item for a store
// agent with a requiredInputSchema) and document 1's optimizer metadata:
// with a provider, a payload that validates is kept; one that does not
// gives the fallback mapped onto the schema with _optimizerGaps.
func TestEditFitsTheAgentSchemaWithAProvider(t *testing.T) {
	t.Parallel()
	fake := llmtest.New(t)
	w := newAssistantWorld(t, servertest.WithLLM(fake.URL))
	id, agentID := forCopywriter(t, w)

	fake.Chat(llmtest.Reply{Tokens: []string{`{"displaySummary":"A launch post for developers.",` +
		`"optimizedPayload":{"task":"Write the launch post","audience":"developers","constraints":["under 300 words"]}}`}})
	m := metaOf(t, result(t, w.tag(w.ann, "edit_queue_item", map[string]any{"id": id, "description": "For developers, short"}))["item"].(map[string]any))
	if err := validates(t, m["optimizedPayload"]); err != nil {
		t.Fatalf("kept payload does not validate: %v (%v)", err, m)
	}
	if m["_optimizedForAgent"] != agentID || m["_optimizerGaps"] != nil || m["displaySummary"] != "A launch post for developers." {
		t.Fatalf("metadata: %v", m)
	}
	reqs := fake.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(last.JSON["messages"].([]any)[0].(map[string]any)["content"].(string), `"audience"`) {
		t.Fatalf("the provider was not shown the schema: %v", last.JSON)
	}

	// An answer missing a required property is not kept.
	fake.Chat(llmtest.Reply{Tokens: []string{`{"displaySummary":"x","optimizedPayload":{"task":"Write it"}}`}})
	m = metaOf(t, result(t, w.tag(w.ann, "edit_queue_item", map[string]any{"id": id, "description": "Lead with the price"}))["item"].(map[string]any))
	p := m["optimizedPayload"].(map[string]any)
	if p["task"] != "Write the launch post" || p["context"] != "Lead with the price" || m["_optimizedForAgent"] != agentID {
		t.Fatalf("fallback: %v", m)
	}
	if gaps, _ := m["_optimizerGaps"].([]any); len(gaps) != 1 || gaps[0] != "audience" {
		t.Fatalf("gaps: %v", m["_optimizerGaps"])
	}
}

// RULINGS "The assistant": without a provider the optimizer maps the
// generic keys onto the schema's properties by name and lists the required
// ones it could not fill; an item for no agent keeps the generic payload.
func TestEditFitsTheAgentSchemaWithoutAProvider(t *testing.T) {
	t.Parallel()
	w := newAssistantWorld(t)
	id, agentID := forCopywriter(t, w)
	m := metaOf(t, result(t, w.tag(w.ann, "edit_queue_item", map[string]any{"id": id, "title": "Write the launch post today"}))["item"].(map[string]any))
	p := m["optimizedPayload"].(map[string]any)
	if p["task"] != "Write the launch post today" || m["_optimizedForAgent"] != agentID {
		t.Fatalf("metadata: %v", m)
	}
	// context is empty and constraints is []: not filled, and not required.
	if _, ok := p["context"]; ok {
		t.Fatalf("empty context mapped: %v", p)
	}
	if gaps, _ := m["_optimizerGaps"].([]any); len(gaps) != 1 || gaps[0] != "audience" {
		t.Fatalf("gaps: %v", m["_optimizerGaps"])
	}
	if validates(t, p) == nil {
		t.Fatal("a payload with a gap validates")
	}
	// Another developer's listing the store does not show (pending review)
	// is as none: its schema stays its developer's.
	erin := w.srv.SignUp("erin")
	res := erin.Session.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Ghostwriter", "endpointUrl": "https://ghost.example.com/run",
		"pricingModel": "free", "taskTypes": []string{"ghostcopy"}, "requiredInputSchema": copySchema})
	servertest.WantStatus(t, res, http.StatusCreated)
	draft := res.JSON(t)["agent"].(map[string]any)["id"].(string)
	if err := w.srv.DB.Client.StoreAgent.UpdateOneID(draft).SetStatus(storeagent.StatusPendingReview).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	res = w.ann.Session.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Ghost the launch post", "metadata": `{"agentId":"` + draft + `"}`})
	servertest.WantStatus(t, res, http.StatusCreated)
	hidden := metaOf(t, result(t, w.tag(w.ann, "edit_queue_item", map[string]any{"id": res.JSON(t)["item"].(map[string]any)["id"],
		"title": "Ghost the launch post today"}))["item"].(map[string]any))
	if hidden["_optimizedForAgent"] != "generic" || hidden["_optimizerGaps"] != nil {
		t.Fatalf("a listing the caller cannot see shaped the payload: %v", hidden)
	}

	generic := result(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": "Reply to Ada", "type": "email"}))["item"].(map[string]any)
	g := metaOf(t, result(t, w.tag(w.ann, "edit_queue_item", map[string]any{"id": generic["id"], "title": "Reply to Ada kindly"}))["item"].(map[string]any))
	if g["_optimizedForAgent"] != "generic" || g["_optimizerGaps"] != nil || len(g["optimizedPayload"].(map[string]any)) != 5 {
		t.Fatalf("generic item: %v", g)
	}
}

// RULINGS "The assistant" (relay tags reach outside: after outside text
// they wait for confirmation) and the operator network's relay and job
// board: relay_send and job_post through the network's own services.
func TestNetworkTags(t *testing.T) {
	t.Parallel()
	a, b := servertest.New(t, networktest.Options()...), servertest.New(t, networktest.Options()...)
	ann, bob := a.SignUp("ann"), b.SignUp("bob")
	eve := a.SignUp("eve")
	toB, _ := networktest.Connect(t, a, ann, b, bob)
	w := &assistantWorld{srv: a, ann: ann, eve: eve}

	sent := result(t, w.tag(ann, "relay_send", map[string]any{"connectionId": toB, "subject": "Review the deck", "intent": "assign_task",
		"payload": map[string]any{"deck": "v3"}}))
	if sent["relay"].(map[string]any)["subject"] != "Review the deck" {
		t.Fatalf("relay: %v", sent)
	}
	got := bob.Session.Do(http.MethodGet, "/api/federation/relays", nil).JSON(t)["relays"].([]any)
	if len(got) != 1 || got[0].(map[string]any)["subject"] != "Review the deck" {
		t.Fatalf("bob received %v", got)
	}
	servertest.WantError(t, w.tag(eve, "relay_send", map[string]any{"connectionId": toB, "subject": "Mine"}), http.StatusNotFound)
	servertest.WantError(t, w.tag(ann, "relay_send", map[string]any{"subject": "Nobody"}), http.StatusBadRequest)
	servertest.WantError(t, w.tag(ann, "relay_send", map[string]any{"connectionId": toB, "subject": "a\x00"}), http.StatusBadRequest)
	servertest.WantError(t, w.tag(ann, "relay_send", map[string]any{"connectionId": toB, "subject": "x", "colour": "red"}), http.StatusBadRequest)

	job := result(t, w.tag(ann, "job_post", map[string]any{"title": "Translate the site", "description": "EN to DE, 20 pages"}))
	if job["job"].(map[string]any)["title"] != "Translate the site" {
		t.Fatalf("job: %v", job)
	}
	servertest.WantError(t, w.tag(ann, "job_post", map[string]any{"title": "No description"}), http.StatusBadRequest)
	servertest.WantError(t, w.tag(ann, "job_post", map[string]any{"title": "x", "description": "y", "urgency": "yesterday"}), http.StatusBadRequest)

	// The mention list offers every tag built here, the network's last.
	var names []string
	for _, c := range w.srv.App.Assistant.Commands() {
		names = append(names, c.Name)
	}
	for _, name := range []string{"decompose_task", "link_cards", "create_checklist", "show_google_connect", "show_settings_widget"} {
		if !slices.Contains(names, name) {
			t.Errorf("Commands lacks %s: %v", name, names)
		}
	}
	if n := len(names); n < 2 || names[n-2] != "relay_send" || names[n-1] != "job_post" {
		t.Errorf("Commands: %v", names)
	}
	// After outside text both wait for the operator.
	for _, name := range []string{"relay_send", "job_post"} {
		res := w.srv.App.Assistant.Run(principal(w.ann), parseOne(name, `{"connectionId":"`+toB+`","subject":"x","title":"t","description":"d"}`), true)
		if !res[0].GetNeedsConfirmation() {
			t.Fatalf("%s after outside text: %v", name, res[0])
		}
	}
	if got := bob.Session.Do(http.MethodGet, "/api/federation/relays", nil).JSON(t)["relays"].([]any); len(got) != 1 {
		t.Fatalf("a relay waiting for confirmation was sent: %d relays", len(got))
	}
}

// principal is acc's session as the executor's caller.
func principal(acc *servertest.Account) context.Context {
	return auth.WithPrincipal(context.Background(), &auth.Principal{UserID: acc.ID, Username: acc.Username, Via: auth.ViaSession})
}

func parseOne(name, body string) []tags.Tag { return tags.Parse("[[" + name + " " + body + "]]") }

// RULINGS "The assistant" (link_cards linkType related, blocks, duplicate,
// parent) and "The operator network" (a linked card's changes accumulate in
// the other card's change log, at most 20): link_cards through the card
// links service, whose routes isolate accounts.
func TestLinkCards(t *testing.T) {
	t.Parallel()
	w := newAssistantWorld(t)
	ctx := context.Background()
	card := func(acc *servertest.Account, title string) string {
		return result(t, w.tag(acc, "create_card", map[string]any{"title": title}))["card"].(map[string]any)["id"].(string)
	}
	a, b, c, evesCard := card(w.ann, "Design"), card(w.ann, "Build"), card(w.ann, "Ship"), card(w.eve, "Eve's")

	link := result(t, w.tag(w.ann, "link_cards", map[string]any{"fromCardId": a, "toCardId": b, "linkType": "blocks"}))["link"].(map[string]any)
	if link["fromCardId"] != a || link["toCardId"] != b || link["linkType"] != "blocks" {
		t.Fatalf("link: %v", link)
	}
	again := result(t, w.tag(w.ann, "link_cards", map[string]any{"fromCardId": a, "toCardId": b, "linkType": "blocks"}))["link"].(map[string]any)
	if again["id"] != link["id"] {
		t.Fatalf("linking again made another link: %v", again)
	}
	result(t, w.tag(w.ann, "link_cards", map[string]any{"fromCardId": c, "toCardId": a, "linkType": "parent"}))
	servertest.WantError(t, w.tag(w.ann, "link_cards", map[string]any{"fromCardId": b, "toCardId": a, "linkType": "related"}), http.StatusConflict)
	for _, body := range []map[string]any{
		{"fromCardId": a, "toCardId": a, "linkType": "related"},
		{"fromCardId": a, "toCardId": c, "linkType": "follows"},
		{"fromCardId": a, "linkType": "related"},
		{"fromCardId": a, "toCardId": c, "linkType": "related", "note": "x"},
		{"fromCardId": a, "toCardId": "c\x00", "linkType": "related"},
	} {
		servertest.WantError(t, w.tag(w.ann, "link_cards", body), http.StatusBadRequest)
	}
	servertest.WantError(t, w.tag(w.ann, "link_cards", map[string]any{"fromCardId": a, "toCardId": evesCard, "linkType": "related"}), http.StatusNotFound)
	servertest.WantError(t, w.tag(w.eve, "link_cards", map[string]any{"fromCardId": evesCard, "toCardId": a, "linkType": "related"}), http.StatusNotFound)
	if n, _ := w.srv.DB.CardLink.Query().Count(ctx); n != 2 {
		t.Fatalf("%d links after the refusals", n)
	}

	res := w.ann.Session.Do(http.MethodGet, "/api/v2/kanban/"+a+"/links", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	if links := res.JSON(t)["links"].([]any); len(links) != 2 {
		t.Fatalf("a's links: %v", links)
	}
	servertest.WantError(t, w.eve.Session.Do(http.MethodGet, "/api/v2/kanban/"+a+"/links", nil), http.StatusNotFound)

	// a's changes reach b's and c's change logs, the last 20.
	for i := range 22 {
		prio := []string{"high", "low"}[i%2]
		servertest.WantStatus(t, w.ann.Session.Do(http.MethodPut, "/api/v2/kanban/"+a, map[string]any{"priority": prio}), http.StatusOK)
	}
	for _, id := range []string{b, c} {
		got := w.ann.Session.Do(http.MethodGet, "/api/v2/kanban/"+id, nil).JSON(t)["card"].(map[string]any)
		log := got["changeLog"].([]any)
		last := log[len(log)-1].(map[string]any)
		if len(log) != 20 || last["externalCardId"] != a || last["from"] != "local" || last["newPriority"] != "low" {
			t.Fatalf("%s's change log (%d): %v", id, len(log), last)
		}
	}

	servertest.WantError(t, w.eve.Session.Do(http.MethodDelete, "/api/v2/kanban/"+a+"/links/"+link["id"].(string), nil), http.StatusNotFound)
	servertest.WantStatus(t, w.ann.Session.Do(http.MethodDelete, "/api/v2/kanban/"+a+"/links/"+link["id"].(string), nil), http.StatusOK)
	servertest.WantStatus(t, w.ann.Session.Do(http.MethodDelete, "/api/v2/kanban/"+c, nil), http.StatusOK)
	if n, _ := w.srv.DB.CardLink.Query().Count(ctx); n != 0 {
		t.Fatalf("%d links left after unlinking and deleting a card", n)
	}
}
