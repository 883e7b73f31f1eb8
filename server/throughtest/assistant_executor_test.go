package throughtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/server/assistant/tags"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// assistantWorld is one instance with ann, the operator, who has installed dora's
// research agent, and eve, another account.
type assistantWorld struct {
	srv      *servertest.Server
	ann, eve *servertest.Account
	agentID  string
}

func newAssistantWorld(t testing.TB, opts ...servertest.Option) *assistantWorld {
	t.Helper()
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"output":"found it"}`))
	}))
	t.Cleanup(agent.Close)
	srv := servertest.New(t, append([]servertest.Option{servertest.WithPrivateEndpoints()}, opts...)...)
	w := &assistantWorld{srv: srv, ann: srv.SignUp("ann")}
	dora := srv.SignUp("dora")
	res := dora.Session.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Deep Research", "endpointUrl": agent.URL,
		"pricingModel": "free", "taskTypes": []string{"research"}})
	servertest.WantStatus(t, res, http.StatusCreated)
	w.agentID = res.JSON(t)["agent"].(map[string]any)["id"].(string)
	servertest.WantStatus(t, w.ann.Session.Do(http.MethodPost, "/api/marketplace/"+w.agentID+"/install", map[string]any{}), http.StatusCreated)
	w.eve = srv.SignUp("eve")
	return w
}

// tag runs one tag through POST /api/chat/execute-tag as acc.
func (w *assistantWorld) tag(acc *servertest.Account, name string, body any) *servertest.Response {
	return acc.Session.Do(http.MethodPost, "/api/chat/execute-tag", map[string]any{"tag": name, "body": body})
}

// result is a successful tag's result.
func result(t *testing.T, res *servertest.Response) map[string]any {
	t.Helper()
	servertest.WantStatus(t, res, http.StatusOK)
	tag := res.JSON(t)["tag"].(map[string]any)
	if tag["ok"] != true {
		t.Fatalf("tag not ok: %s", res.Body)
	}
	return tag["result"].(map[string]any)
}

func (w *assistantWorld) items(t *testing.T) int {
	t.Helper()
	n, err := w.srv.DB.QueueItem.Query().Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// RULINGS "The assistant" (tags through the same services as the API;
// dispatch_queue passes the capability gate first and, with no handler,
// creates nothing and suggests the store) and document 1 "Queue action
// tags": each tag's happy path and its refusals, through POST
// /api/chat/execute-tag.
func TestQueueTags(t *testing.T) {
	t.Parallel()
	w := newAssistantWorld(t)

	// A built-in handler: pending, the handler in the metadata.
	item := result(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": "Reply to Ada", "type": "email"}))["item"].(map[string]any)
	if item["status"] != "pending_confirmation" || item["source"] != "assistant" || !strings.Contains(item["metadata"].(string), `"kind":"builtin"`) {
		t.Fatalf("dispatched item: %v", item)
	}
	// The installed store agent's task type: the item is for that agent.
	forAgent := result(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": "Market scan", "type": "Research", "priority": "high"}))["item"].(map[string]any)
	var meta map[string]any
	_ = json.Unmarshal([]byte(forAgent["metadata"].(string)), &meta)
	if meta["agentId"] != w.agentID || forAgent["priority"] != "high" {
		t.Fatalf("item for the agent: %v", forAgent)
	}
	// queue_capability_action: the action is the title, through the gate.
	byCap := result(t, w.tag(w.ann, "queue_capability_action", map[string]any{"capabilityType": "meetings", "action": "Book the board meeting"}))["item"].(map[string]any)
	if byCap["title"] != "Book the board meeting" {
		t.Fatalf("capability action: %v", byCap)
	}
	before := w.items(t)
	// No handler: 422, nothing queued, the store suggested.
	servertest.WantErrorContaining(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": "Read my stars", "type": "astrology"}),
		http.StatusUnprocessableEntity, "suggest_marketplace")
	servertest.WantErrorContaining(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": "No type"}), http.StatusBadRequest, "type is required")
	servertest.WantErrorContaining(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": "x", "type": "email", "colour": "red"}),
		http.StatusBadRequest, "colour")
	servertest.WantError(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": "a\x00b", "type": "email"}), http.StatusBadRequest)
	servertest.WantError(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": strings.Repeat("x", 501), "type": "email"}), http.StatusBadRequest)
	if n := w.items(t); n != before {
		t.Fatalf("refused dispatches queued %d items", n-before)
	}

	// suggest_marketplace finds the store's agents.
	found := result(t, w.tag(w.ann, "suggest_marketplace", map[string]any{"search": "research"}))
	if agents, _ := found["agents"].([]any); len(agents) != 1 || agents[0].(map[string]any)["id"] != w.agentID {
		t.Fatalf("suggestions: %v", found)
	}

	id := item["id"].(string)
	edited := result(t, w.tag(w.ann, "edit_queue_item", map[string]any{"id": id, "priority": "urgent", "description": "Short and kind"}))["item"].(map[string]any)
	if edited["priority"] != "urgent" || edited["description"] != "Short and kind" {
		t.Fatalf("edited: %v", edited)
	}
	servertest.WantError(t, w.tag(w.ann, "edit_queue_item", map[string]any{"priority": "urgent"}), http.StatusBadRequest)
	servertest.WantError(t, w.tag(w.ann, "edit_queue_item", map[string]any{"id": id, "priority": "whenever"}), http.StatusBadRequest)

	confirmed := result(t, w.tag(w.ann, "confirm_queue_item", map[string]any{"id": id}))["item"].(map[string]any)
	if confirmed["status"] == "pending_confirmation" {
		t.Fatalf("confirmed: %v", confirmed)
	}
	servertest.WantErrorContaining(t, w.tag(w.ann, "confirm_queue_item", map[string]any{"id": id}), http.StatusBadRequest, "waiting for confirmation")

	// Another account's item is not found, for every tag naming one.
	for name, body := range map[string]map[string]any{"confirm_queue_item": {"id": forAgent["id"]},
		"edit_queue_item": {"id": forAgent["id"], "title": "Mine now"}, "remove_queue_item": {"id": forAgent["id"]}} {
		servertest.WantError(t, w.tag(w.eve, name, body), http.StatusNotFound)
	}
	result(t, w.tag(w.ann, "remove_queue_item", map[string]any{"id": forAgent["id"]}))
	if ok, _ := w.srv.DB.QueueItem.Query().Where(queueitem.ID(forAgent["id"].(string))).Exist(context.Background()); ok {
		t.Fatal("remove_queue_item left the item")
	}
	servertest.WantError(t, w.tag(w.ann, "remove_queue_item", map[string]any{}), http.StatusBadRequest)
}

// RULINGS "The assistant" (the tags available are those whose system
// exists; the rest fail with "not available on this instance") and the
// board tags: create_card and complete_checklist through the board's
// service.
func TestBoardTagsAndUnavailable(t *testing.T) {
	t.Parallel()
	w := newAssistantWorld(t)
	c := result(t, w.tag(w.ann, "create_card", map[string]any{"title": "Launch plan", "status": "leads", "priority": "high"}))["card"].(map[string]any)
	if c["title"] != "Launch plan" || c["status"] != "leads" {
		t.Fatalf("card: %v", c)
	}
	servertest.WantError(t, w.tag(w.ann, "create_card", map[string]any{"title": "x", "status": "someday"}), http.StatusBadRequest)
	servertest.WantError(t, w.tag(w.ann, "create_card", map[string]any{"title": "x", "owner": "me"}), http.StatusBadRequest)

	// A queued item's card carries its checklist row: complete it.
	item := result(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": "Draft the memo", "type": "custom"}))["item"].(map[string]any)
	cardID := item["cardId"].(string)
	detail := w.ann.Session.Do(http.MethodGet, "/api/v2/kanban/"+cardID, nil).JSON(t)["card"].(map[string]any)
	row := detail["checklist"].([]any)[0].(map[string]any)["id"].(string)
	done := result(t, w.tag(w.ann, "complete_checklist", map[string]any{"cardId": cardID, "id": row}))["item"].(map[string]any)
	if done["completed"] != true {
		t.Fatalf("checklist row: %v", done)
	}
	servertest.WantError(t, w.tag(w.eve, "complete_checklist", map[string]any{"cardId": cardID, "id": row}), http.StatusNotFound)
	servertest.WantError(t, w.tag(w.ann, "complete_checklist", map[string]any{"cardId": cardID}), http.StatusBadRequest)

	// Every documented tag is built now (a tag whose service is not wired is
	// 501, TestEconomyTagsNeedTheirService); a misspelt key is refused by name.
	servertest.WantErrorContaining(t, w.tag(w.ann, "hire_provider", map[string]any{"name": "x"}), http.StatusBadRequest, `"name"`)
	servertest.WantErrorContaining(t, w.tag(w.ann, "launch_rockets", map[string]any{}), http.StatusBadRequest, "not an action tag")
	servertest.WantError(t, w.ann.Session.Do(http.MethodPost, "/api/chat/execute-tag", map[string]any{"body": map[string]any{}}), http.StatusBadRequest)
	if n, _ := w.srv.DB.Card.Query().Where(card.Title("x")).Count(context.Background()); n != 0 {
		t.Fatalf("refused create_card wrote %d cards", n)
	}
}

// RULINGS "The assistant": a reply's tags run in order, each on its own (a
// failing tag does not undo the earlier ones or stop the later ones; an
// unknown tag and invalid JSON fail alone); after outside text a risky tag
// (remove_queue_item) is not run but comes back for confirmation, and the
// operator's execute-tag approval runs it.
func TestRunAReply(t *testing.T) {
	t.Parallel()
	w := newAssistantWorld(t)
	item := result(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": "Keep me", "type": "email"}))["item"].(map[string]any)
	id := item["id"].(string)
	ctx := auth.WithPrincipal(context.Background(), &auth.Principal{UserID: w.ann.ID, Username: w.ann.Username, Via: auth.ViaSession})
	reply := `On it. [[create_card {"title":"First"}]] [[edit_queue_item {"id":"nope","title":"x"}]] [[launch_rockets {}]]
[[create_card {"title": }]] [[remove_queue_item {"id":"` + id + `"}]] [[create_card {"title":"Last"}]]`

	got := w.srv.App.Assistant.Run(ctx, tags.Parse(reply), true)
	if len(got) != 6 {
		t.Fatalf("%d results", len(got))
	}
	want := []struct {
		ok, confirm bool
		err         string
	}{{ok: true}, {err: "not found"}, {err: "not an action tag"}, {err: "not valid JSON"}, {confirm: true}, {ok: true}}
	for i, w := range want {
		g := got[i]
		if g.GetOk() != w.ok || g.GetNeedsConfirmation() != w.confirm || !strings.Contains(g.GetError(), w.err) {
			t.Errorf("tag %d (%s): ok %v confirm %v error %q; want %+v", i, g.GetTag(), g.GetOk(), g.GetNeedsConfirmation(), g.GetError(), w)
		}
	}
	for _, title := range []string{"First", "Last"} {
		if ok, _ := w.srv.DB.Card.Query().Where(card.Title(title)).Exist(context.Background()); !ok {
			t.Errorf("card %q was not kept", title)
		}
	}
	if ok, _ := w.srv.DB.QueueItem.Query().Where(queueitem.ID(id)).Exist(context.Background()); !ok {
		t.Fatal("remove_queue_item ran after outside text")
	}
	if b := got[4].GetBody().AsMap(); b["id"] != id {
		t.Fatalf("the confirmation's body: %v", b)
	}
	// The operator approves: the widget's execute-tag runs it.
	result(t, w.tag(w.ann, "remove_queue_item", got[4].GetBody().AsMap()))
	if ok, _ := w.srv.DB.QueueItem.Query().Where(queueitem.ID(id)).Exist(context.Background()); ok {
		t.Fatal("the approved removal left the item")
	}
	// Without outside text, a risky tag runs at once; a free agent's
	// dispatch is not risky even after outside text.
	keep := result(t, w.tag(w.ann, "dispatch_queue", map[string]any{"title": "Go", "type": "email"}))["item"].(map[string]any)["id"].(string)
	got = w.srv.App.Assistant.Run(ctx, tags.Parse(`[[remove_queue_item {"id":"`+keep+`"}]]`), false)
	if !got[0].GetOk() {
		t.Fatalf("remove without outside text: %v", got[0])
	}
	got = w.srv.App.Assistant.Run(ctx, tags.Parse(`[[dispatch_queue {"title":"Scan","type":"research"}]]`), true)
	if !got[0].GetOk() {
		t.Fatalf("a free agent's dispatch after outside text: %v", got[0])
	}
}
