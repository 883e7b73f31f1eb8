package throughtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/ent/setting"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

type queueEnv struct {
	s   *servertest.Server
	ann *servertest.Account
	api *servertest.Caller
	ctx context.Context
}

func setupQueue(t *testing.T) *queueEnv {
	t.Helper()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	return &queueEnv{s: s, ann: ann, api: s.WithKey(ann.NewKey("Scout")), ctx: context.Background()}
}

// create posts an item and answers its REST JSON.
func (e *queueEnv) create(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	res := e.api.Do(http.MethodPost, "/api/v2/queue", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)["item"].(map[string]any)
}

func (e *queueEnv) move(t *testing.T, id, status string) *servertest.Response {
	t.Helper()
	return e.api.Do(http.MethodPost, "/api/v2/queue/"+id+"/status", map[string]any{"id": id, "status": status})
}

func (e *queueEnv) mustMove(t *testing.T, id, status string) map[string]any {
	t.Helper()
	res := e.move(t, id, status)
	if res.Status != 200 {
		t.Fatalf("move %s to %s: %d %s", id, status, res.Status, res.Body)
	}
	return res.JSON(t)
}

func (e *queueEnv) approve(t *testing.T, id string) {
	t.Helper()
	if res := e.api.Do(http.MethodPost, "/api/v2/queue/"+id+"/confirm", map[string]any{"id": id, "action": "approve"}); res.Status != 200 {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
}

func (e *queueEnv) rows(t *testing.T, itemID string) []*ent.ChecklistItem {
	t.Helper()
	rows, err := e.s.DB.ChecklistItem.Query().Where(checklistitem.SourceID(itemID)).Order(ent.Asc(checklistitem.FieldOrder)).All(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func (e *queueEnv) actions(t *testing.T) []string {
	t.Helper()
	rows, err := e.s.DB.ActivityEntry.Query().Where(activityentry.UserID(e.ann.ID)).Order(ent.Asc(activityentry.FieldCreatedAt), ent.Asc(activityentry.FieldID)).All(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.Action)
	}
	return out
}

// counts is every table a queue change may write.
func (e *queueEnv) counts(t *testing.T) string {
	t.Helper()
	c := e.s.DB.Client
	n := func(k int, err error) int {
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	return fmt.Sprintf("items=%d cards=%d rows=%d activity=%d chat=%d",
		n(c.QueueItem.Query().Count(e.ctx)), n(c.Card.Query().Count(e.ctx)), n(c.ChecklistItem.Query().Count(e.ctx)),
		n(c.ActivityEntry.Query().Count(e.ctx)), n(c.ChatMessage.Query().Count(e.ctx)))
}

// Document 1 "Queue item status" (new) rows and RULINGS "Queue": defaults.
func TestCreateDefaultsAndAutoApprove(t *testing.T) {
	e := setupQueue(t)
	it := e.create(t, map[string]any{"title": "  Draft the brief  "})
	for k, want := range map[string]any{"title": "Draft the brief", "type": "task", "priority": "medium",
		"status": "pending_confirmation", "taskOrigin": "owner", "description": nil,
		"source": "Scout"} { // who asked: the key's label (TestWhoAskedOverBothTransports)
		if it[k] != want {
			t.Errorf("%s = %v, want %v", k, it[k], want)
		}
	}
	if it["cardId"] == nil || it["userId"] != e.ann.ID || it["createdAt"] == nil {
		t.Fatalf("item = %v", it)
	}
	if res := e.api.Do(http.MethodPatch, "/api/v2/settings", `{"queueAutoApprove":true}`); res.Status != 200 {
		t.Fatal(res.Status)
	}
	if got := e.create(t, map[string]any{"title": "Second"})["status"]; got != "ready" {
		t.Fatalf("with auto-approve status = %v", got)
	}
}

// Document 1 "Queue-to-board bridge": card link order 1–4 and the arrive row.
func TestCardLinkOrder(t *testing.T) {
	e := setupQueue(t)
	leadProject(t, e.s, e.ann.ID, "p1")
	mk := func(title, project string) string {
		c := e.s.DB.Card.Create().SetUserID(e.ann.ID).SetTitle(title)
		if project != "" {
			c.SetProjectID(project)
		}
		return c.SaveX(e.ctx).ID
	}
	explicit, fromMeta := mk("explicit", ""), mk("from metadata", "")
	mk("older in project", "p1")
	latest := mk("latest in project", "p1")
	cases := []struct {
		name string
		body map[string]any
		want string // "" means a new card
	}{
		{"1 explicit cardId wins over the rest", map[string]any{"title": "a", "cardId": explicit, "metadata": `{"cardId":"` + fromMeta + `"}`, "projectId": "p1"}, explicit},
		{"2 cardId in metadata", map[string]any{"title": "b", "metadata": `{"cardId":"` + fromMeta + `"}`, "projectId": "p1"}, fromMeta},
		{"3 most recently updated card of the project", map[string]any{"title": "c", "projectId": "p1"}, latest},
		{"4 a new card in the active column", map[string]any{"title": "d"}, ""},
		{"2 skipped when the metadata card is not mine", map[string]any{"title": "e", "metadata": `{"cardId":"nope"}`}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			it := e.create(t, tc.body)
			got := it["cardId"].(string)
			if tc.want != "" && got != tc.want {
				t.Fatalf("linked %s, want %s", got, tc.want)
			}
			c := e.s.DB.Card.GetX(e.ctx, got)
			if tc.want == "" && (c.Title != tc.body["title"] || c.Status != card.StatusActive || c.UserID != e.ann.ID) {
				t.Fatalf("new card = %+v", c)
			}
			rows := e.rows(t, it["id"].(string))
			if len(rows) != 1 || rows[0].CardID != got || *rows[0].SourceType != "queue" || *rows[0].SourceLabel != "task_queued" || rows[0].Completed {
				t.Fatalf("arrive row = %+v", rows)
			}
		})
	}
	if res := e.api.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "x", "cardId": "not-mine"}); res.Status != 404 {
		t.Fatalf("explicit unknown card: %d", res.Status)
	}
}

// Document 1 "Queue item status" confirm rows and RULINGS confirm messages.
func TestConfirm(t *testing.T) {
	e := setupQueue(t)
	a := e.create(t, map[string]any{"title": "Approve me"})
	res := e.api.Do(http.MethodPost, "/api/v2/queue/"+a["id"].(string)+"/confirm", map[string]any{"id": a["id"], "action": "approve"})
	body := res.JSON(t)
	if res.Status != 200 || body["message"] != `"Approve me" approved and added to queue` || body["item"].(map[string]any)["status"] != "ready" {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
	if res := e.api.Do(http.MethodPost, "/api/v2/queue/"+a["id"].(string)+"/confirm", map[string]any{"action": "approve"}); res.Status != 400 {
		t.Fatalf("confirming a ready item: %d %s", res.Status, res.Body)
	}
	r := e.create(t, map[string]any{"title": "Reject me"})
	rid := r["id"].(string)
	res = e.api.Do(http.MethodPost, "/api/v2/queue/"+rid+"/confirm", map[string]any{"action": "reject"})
	if res.Status != 200 || string(res.Body) != `{"message":"\"Reject me\" rejected and removed"}`+"\n" {
		t.Fatalf("reject: %d %s", res.Status, res.Body)
	}
	if got := e.api.Do(http.MethodGet, "/api/v2/queue/"+rid, nil); got.Status != 404 {
		t.Fatalf("rejected item still there: %d", got.Status)
	}
	if rows := e.rows(t, rid); len(rows) != 0 {
		t.Fatalf("reject left %d board rows", len(rows))
	}
	for _, bad := range []string{"maybe", ""} {
		p := e.create(t, map[string]any{"title": "x"})
		if res := e.api.Do(http.MethodPost, "/api/v2/queue/"+p["id"].(string)+"/confirm", map[string]any{"action": bad}); res.Status != 400 {
			t.Fatalf("action %q: %d", bad, res.Status)
		}
	}
	// The dashboard's session route.
	d := e.create(t, map[string]any{"title": "From the dashboard"})
	res = e.ann.Session.Do(http.MethodPost, "/api/queue/confirm", map[string]any{"id": d["id"], "action": "approve"})
	if res.Status != 200 || res.JSON(t)["item"].(map[string]any)["status"] != "ready" {
		t.Fatalf("session confirm: %d %s", res.Status, res.Body)
	}
}

// Bridge rows for dispatch, complete and fail; guard 4's comms messages.
func TestMovesDriveTheBoardAndComms(t *testing.T) {
	e := setupQueue(t)
	it := e.create(t, map[string]any{"title": "Ship it"})
	id := it["id"].(string)
	e.approve(t, id)
	e.mustMove(t, id, "in_progress")
	if rows := e.rows(t, id); *rows[0].SourceLabel != "task_in_progress" {
		t.Fatalf("dispatch row = %v", *rows[0].SourceLabel)
	}
	// PATCH is the same operation.
	if res := e.api.Do(http.MethodPatch, "/api/v2/queue/"+id+"/status", map[string]any{"status": "blocked"}); res.Status != 200 {
		t.Fatalf("PATCH status: %d %s", res.Status, res.Body)
	}
	rows := e.rows(t, id)
	if len(rows) != 2 || *rows[0].SourceLabel != "task_failed" || *rows[1].SourceLabel != "pending_retry" || *rows[1].SourceType != "queue" || rows[1].Completed {
		t.Fatalf("fail rows = %+v", rows)
	}
	e.mustMove(t, id, "in_progress") // the retry
	e.mustMove(t, id, "done_today")
	rows = e.rows(t, id)
	if len(rows) != 3 || *rows[0].SourceLabel != "task_completed" || !rows[0].Completed || !rows[1].Completed {
		t.Fatalf("complete rows = %+v", rows)
	}
	if *rows[2].SourceType != "queue_review" || *rows[2].SourceLabel != "pending_review" || rows[2].Completed {
		t.Fatalf("review row = %+v", rows[2])
	}
	msgs := e.s.DB.ChatMessage.Query().Where(chatmessage.UserID(e.ann.ID)).Order(ent.Asc(chatmessage.FieldCreatedAt), ent.Asc(chatmessage.FieldID)).AllX(e.ctx)
	var types []string
	for _, m := range msgs {
		var meta map[string]any
		if err := json.Unmarshal([]byte(m.Metadata), &meta); err != nil || meta["queueItemId"] != id || m.Role != "assistant" {
			t.Fatalf("comms message %+v", m)
		}
		types = append(types, *m.MetadataType)
	}
	if strings.Join(types, ",") != "agent_execution_started,agent_execution_started,task_completed" {
		t.Fatalf("comms types = %v", types)
	}
	acts := strings.Join(e.actions(t), ",")
	for _, want := range []string{"card_created", "queue_added", "queue_status_changed", "task_completed"} {
		if !strings.Contains(acts, want) {
			t.Errorf("activity lacks %s: %s", want, acts)
		}
	}
	// Guard 2 through the API: the refusal carries the reason, writes nothing.
	before := e.counts(t)
	res := e.move(t, id, "ready")
	if res.Status != 400 || !strings.Contains(res.JSON(t)["error"].(string), "cannot be reopened") {
		t.Fatalf("reopen: %d %s", res.Status, res.Body)
	}
	if after := e.counts(t); after != before {
		t.Fatalf("a refused move wrote: %s → %s", before, after)
	}
}

// Guard 1 and unknown statuses over REST and Connect.
func TestIllegalMovesOverBothTransports(t *testing.T) {
	e := setupQueue(t)
	id := e.create(t, map[string]any{"title": "Pending"})["id"].(string)
	res := e.move(t, id, "in_progress")
	if res.Status != 400 || !strings.Contains(res.JSON(t)["error"].(string), "approve it first") {
		t.Fatalf("REST guard 1: %d %s", res.Status, res.Body)
	}
	if res := e.move(t, id, "finished"); res.Status != 400 || !strings.Contains(string(res.Body), "is not one of") {
		t.Fatalf("unknown status: %d %s", res.Status, res.Body)
	}
	c := switchboardv1connect.NewQueueServiceClient(e.s.HTTP, e.s.URL, connect.WithProtoJSON(),
		connect.WithInterceptors(servertest.BearerInterceptor(e.ann.NewKey("c"))))
	_, err := c.UpdateQueueItemStatus(e.ctx, &switchboardv1.UpdateQueueItemStatusRequest{Id: id, Status: "done_today"})
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeFailedPrecondition || !strings.Contains(ce.Message(), "approve it first") {
		t.Fatalf("Connect guard 1: %v", err)
	}
	// Connect reject answers only the message.
	got, err := c.ConfirmQueueItem(e.ctx, &switchboardv1.ConfirmQueueItemRequest{Id: id, Action: "reject"})
	if err != nil || got.Item != nil || !strings.HasSuffix(got.GetMessage(), "rejected and removed") {
		t.Fatalf("Connect reject: %v %v", got, err)
	}
}

// Document 1 "Queue": the result report and GET result.
func TestReportResult(t *testing.T) {
	e := setupQueue(t)
	id := e.create(t, map[string]any{"title": "Research", "metadata": `{"keep":"me"}`})["id"].(string)
	if res := e.api.Do(http.MethodGet, "/api/v2/queue/"+id+"/result", nil); res.Status != 404 {
		t.Fatalf("result before any: %d", res.Status)
	}
	e.approve(t, id)
	for _, bad := range []string{`{"result":"   "}`, `{}`, `{"result":"x","status":"finished"}`} {
		if res := e.api.Do(http.MethodPost, "/api/v2/queue/"+id+"/result", bad); res.Status != 400 {
			t.Fatalf("bad report %s: %d %s", bad, res.Status, res.Body)
		}
	}
	res := e.api.Do(http.MethodPost, "/api/v2/queue/"+id+"/result", map[string]any{"id": id, "result": "  Found 3 sources  "})
	if res.Status != 200 {
		t.Fatalf("report: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	item := body["item"].(map[string]any)
	var meta map[string]any
	if err := json.Unmarshal([]byte(item["metadata"].(string)), &meta); err != nil {
		t.Fatal(err)
	}
	if item["status"] != "done_today" || body["autoDispatched"] != false || meta["result"] != "Found 3 sources" ||
		meta["reportedBy"] != "Scout" || meta["completedAt"] == nil || meta["keep"] != "me" {
		t.Fatalf("report = %s", res.Body)
	}
	got := e.api.Do(http.MethodGet, "/api/v2/queue/"+id+"/result", nil).JSON(t)
	if got["result"] != "Found 3 sources" || got["status"] != "done_today" || got["reportedBy"] != "Scout" || got["completedAt"] == nil {
		t.Fatalf("GET result = %v", got)
	}
	// A report with status blocked is a failure for the bridge.
	f := e.create(t, map[string]any{"title": "Flaky"})["id"].(string)
	e.approve(t, f)
	if res := e.api.Do(http.MethodPost, "/api/v2/queue/"+f+"/result", map[string]any{"result": "timed out", "status": "blocked"}); res.Status != 200 {
		t.Fatalf("blocked report: %d %s", res.Status, res.Body)
	}
	if rows := e.rows(t, f); *rows[0].SourceLabel != "task_failed" || *rows[1].SourceLabel != "pending_retry" {
		t.Fatalf("blocked report rows: %v %v", *rows[0].SourceLabel, *rows[1].SourceLabel)
	}
}

// RULINGS "Queue": autoDispatched releases ready dependants.
func TestAutoDispatchDependants(t *testing.T) {
	e := setupQueue(t)
	a := e.create(t, map[string]any{"title": "First"})["id"].(string)
	b := e.create(t, map[string]any{"title": "Second", "dependsOn": a})["id"].(string)
	c := e.create(t, map[string]any{"title": "Still pending", "dependsOn": a})["id"].(string)
	e.approve(t, a)
	e.approve(t, b)
	if got := e.mustMove(t, a, "in_progress")["autoDispatched"]; got != false {
		t.Fatalf("autoDispatched on dispatch = %v", got)
	}
	if got := e.mustMove(t, a, "done_today")["autoDispatched"]; got != true {
		t.Fatalf("autoDispatched on completion = %v", got)
	}
	if st := e.api.Do(http.MethodGet, "/api/v2/queue/"+b, nil).JSON(t)["item"].(map[string]any)["status"]; st != "in_progress" {
		t.Fatalf("dependant = %v", st)
	}
	if st := e.api.Do(http.MethodGet, "/api/v2/queue/"+c, nil).JSON(t)["item"].(map[string]any)["status"]; st != "pending_confirmation" {
		t.Fatalf("unapproved dependant = %v", st)
	}
	n := e.s.DB.ChatMessage.Query().Where(chatmessage.MetadataType("agent_execution_started")).CountX(e.ctx)
	if n != 2 {
		t.Fatalf("execution-started messages = %d, want 2 (a and its dependant)", n)
	}
	if !strings.Contains(strings.Join(e.actions(t), ","), "task_dispatched") {
		t.Fatal("no task_dispatched activity")
	}
}

// Document 1 "QueueItem": the prompt optimizer on edit.
func TestUpdateRunsTheOptimizer(t *testing.T) {
	e := setupQueue(t)
	id := e.create(t, map[string]any{"title": "Old title", "description": "old", "metadata": `{"cardId":"x"}`})["id"].(string)
	long := strings.Repeat("word ", 40)
	res := e.api.Do(http.MethodPut, "/api/v2/queue/"+id, map[string]any{"title": "New title", "description": long, "priority": "urgent"})
	if res.Status != 200 {
		t.Fatalf("update: %d %s", res.Status, res.Body)
	}
	item := res.JSON(t)["item"].(map[string]any)
	if item["title"] != "New title" || item["description"] != long || item["priority"] != "urgent" {
		t.Fatalf("item = %v", item)
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(item["metadata"].(string)), &meta); err != nil {
		t.Fatal(err)
	}
	sum := meta["displaySummary"].(string)
	orig := meta["_original"].(map[string]any)
	if len([]rune(sum)) > 120 || !strings.HasPrefix(long, sum) || orig["title"] != "Old title" || orig["description"] != "old" ||
		meta["_optimizedAt"] == nil || meta["_optimizedForAgent"] == nil || meta["cardId"] != "x" {
		t.Fatalf("metadata = %v", meta)
	}
	if p := meta["optimizedPayload"].(map[string]any); p["task"] != "New title" {
		t.Fatalf("payload = %v", p)
	}
	for _, bad := range []string{`{}`, `{"priority":"whenever"}`, `{"title":"  "}`, `{"metadata":"[1]"}`, `{"dependsOn":"` + id + `"}`} {
		if res := e.api.Do(http.MethodPut, "/api/v2/queue/"+id, bad); res.Status != 400 {
			t.Errorf("update %s: %d %s", bad, res.Status, res.Body)
		}
	}
}

// Guard 5: delete from any status; the board row goes too.
func TestDeleteFromAnyStatus(t *testing.T) {
	e := setupQueue(t)
	for _, path := range [][]string{{}, {"ready"}, {"ready", "in_progress"}, {"ready", "in_progress", "done_today"}, {"later"}} {
		id := e.create(t, map[string]any{"title": "Doomed"})["id"].(string)
		for _, st := range path {
			if st == "ready" {
				e.approve(t, id)
				continue
			}
			e.mustMove(t, id, st)
		}
		res := e.api.Do(http.MethodDelete, "/api/v2/queue/"+id, nil)
		if res.Status != 200 || res.JSON(t)["item"].(map[string]any)["id"] != id {
			t.Fatalf("delete after %v: %d %s", path, res.Status, res.Body)
		}
		for _, r := range e.rows(t, id) {
			if *r.SourceType == "queue" {
				t.Fatalf("delete after %v left the queue row", path)
			}
		}
	}
	if !strings.Contains(strings.Join(e.actions(t), ","), "queue_deleted") {
		t.Fatal("no queue_deleted activity")
	}
}

// Document 1 "Queue": list envelope, filters (later included), pagination.
func TestList(t *testing.T) {
	e := setupQueue(t)
	for i := range 5 {
		e.create(t, map[string]any{"title": fmt.Sprintf("item %d", i), "priority": []string{"low", "high"}[i%2], "type": "reminder"})
	}
	later := e.create(t, map[string]any{"title": "someday"})["id"].(string)
	e.mustMove(t, later, "later")
	res := e.api.Do(http.MethodGet, "/api/v2/queue?limit=2&offset=1", nil)
	body := res.JSON(t)
	data := body["data"].(map[string]any)
	pg := data["pagination"].(map[string]any)
	if body["success"] != true || len(data["items"].([]any)) != 2 || pg["total"] != 6.0 || pg["limit"] != 2.0 || pg["offset"] != 1.0 || pg["hasMore"] != true {
		t.Fatalf("page = %s", res.Body)
	}
	first := data["items"].([]any)[0].(map[string]any)["title"]
	if first != "item 4" {
		t.Fatalf("newest first: second newest is %v", first)
	}
	count := func(q string) int {
		res := e.api.Do(http.MethodGet, "/api/v2/queue?"+q, nil)
		if res.Status != 200 {
			t.Fatalf("?%s: %d %s", q, res.Status, res.Body)
		}
		return len(res.JSON(t)["data"].(map[string]any)["items"].([]any))
	}
	if count("status=later") != 1 || count("priority=high") != 2 || count("type=reminder") != 5 || count("status=ready") != 0 {
		t.Fatal("filters")
	}
	past := e.api.Do(http.MethodGet, "/api/v2/queue?offset=50", nil).JSON(t)["data"].(map[string]any)
	if len(past["items"].([]any)) != 0 || past["pagination"].(map[string]any)["hasMore"] != false {
		t.Fatalf("past the end = %v", past)
	}
	for _, bad := range []string{"status=finished", "priority=meh", "type=chore", "limit=-1", "offset=-2"} {
		if res := e.api.Do(http.MethodGet, "/api/v2/queue?"+bad, nil); res.Status != 400 {
			t.Errorf("?%s: %d", bad, res.Status)
		}
	}
}

// Another account's ids answer 404 on every queue route, and change nothing.
func TestIsolationEveryRouteQueue(t *testing.T) {
	e := setupQueue(t)
	id := e.create(t, map[string]any{"title": "Ann's"})["id"].(string)
	e.approve(t, id)
	bob := e.s.WithKey(e.s.SignUp("bob").NewKey("bob"))
	before := e.counts(t)
	routes := []struct{ method, path, body string }{
		{"GET", "/api/v2/queue/" + id, ""},
		{"PUT", "/api/v2/queue/" + id, `{"title":"mine now"}`},
		{"DELETE", "/api/v2/queue/" + id, ""},
		{"POST", "/api/v2/queue/" + id + "/confirm", `{"action":"approve"}`},
		{"POST", "/api/v2/queue/" + id + "/result", `{"result":"done"}`},
		{"GET", "/api/v2/queue/" + id + "/result", ""},
		{"POST", "/api/v2/queue/" + id + "/status", `{"status":"in_progress"}`},
		{"PATCH", "/api/v2/queue/" + id + "/status", `{"status":"in_progress"}`},
		{"POST", "/api/v2/queue", `{"title":"x","dependsOn":"` + id + `"}`},
	}
	for _, r := range routes {
		var body any
		if r.body != "" {
			body = r.body
		}
		if res := bob.Do(r.method, r.path, body); res.Status != 404 {
			t.Errorf("%s %s as bob: %d %s", r.method, r.path, res.Status, res.Body)
		}
	}
	if got := bob.Do("GET", "/api/v2/queue", nil).JSON(t)["data"].(map[string]any)["items"].([]any); len(got) != 0 {
		t.Fatalf("bob lists ann's items: %v", got)
	}
	if after := e.counts(t); after != before {
		t.Fatalf("bob's attempts wrote: %s → %s", before, after)
	}
}

// Bad input is a clear 4xx and writes nothing.
func TestBadCreateWritesNothing(t *testing.T) {
	e := setupQueue(t)
	before := e.counts(t)
	for _, body := range []string{
		`{}`, `{"title":""}`, `{"title":"x","priority":"asap"}`, `{"title":"x","type":"chore"}`,
		`{"title":"x","metadata":"not json"}`, `{"title":"x","metadata":"[]"}`, `{"title":"x","bogus":1}`,
		`{"title":`, `{"title":"x","cardId":"nope"}`, `{"title":"x","dependsOn":"nope"}`, `{"title":"` + strings.Repeat("t", 501) + `"}`,
	} {
		res := e.api.Do(http.MethodPost, "/api/v2/queue", body)
		if res.Status != 400 && res.Status != 404 {
			t.Errorf("%s: %d %s", body, res.Status, res.Body)
		}
		if res.JSON(t)["success"] != false {
			t.Errorf("%s: error body %s", body, res.Body)
		}
	}
	if after := e.counts(t); after != before {
		t.Fatalf("refused creates wrote: %s → %s", before, after)
	}
}

// A failing side effect rolls the whole move back.
func TestSideEffectFailureRollsBack(t *testing.T) {
	e := setupQueue(t)
	id := e.create(t, map[string]any{"title": "Fragile"})["id"].(string)
	e.approve(t, id)
	// The comms message needs the settings row; without it the move must fail whole.
	if _, err := e.s.DB.Setting.Delete().Where(setting.UserID(e.ann.ID)).Exec(e.ctx); err != nil {
		t.Fatal(err)
	}
	before := e.counts(t)
	// The missing row surfaces as apperr's storage mapping: 404 naming it.
	if res := e.move(t, id, "in_progress"); res.Status != 404 || res.JSON(t)["error"] != "setting not found" {
		t.Fatalf("move with a failing side effect: %d %s", res.Status, res.Body)
	}
	if after := e.counts(t); after != before {
		t.Fatalf("partial writes: %s → %s", before, after)
	}
	it := e.s.DB.QueueItem.GetX(e.ctx, id)
	if it.Status != "ready" || *e.rows(t, id)[0].SourceLabel != "task_queued" {
		t.Fatalf("after rollback status=%s row=%s", it.Status, *e.rows(t, id)[0].SourceLabel)
	}
}

// Concurrent moves of one item: exactly one wins, the others get a reason.
func TestConcurrentMovesOneWins(t *testing.T) {
	e := setupQueue(t)
	id := e.create(t, map[string]any{"title": "Contended"})["id"].(string)
	e.approve(t, id)
	const n = 8
	results := make(chan *servertest.Response, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- e.move(t, id, "done_today")
		}()
	}
	wg.Wait()
	close(results)
	wins := 0
	for res := range results {
		switch res.Status {
		case 200:
			wins++
		case 400:
			if msg, _ := res.JSON(t)["error"].(string); msg == "" {
				t.Errorf("refusal without a reason: %s", res.Body)
			}
		default:
			t.Errorf("unexpected %d %s", res.Status, res.Body)
		}
	}
	if wins != 1 {
		t.Fatalf("%d moves won, want exactly 1", wins)
	}
	if n := e.s.DB.ChatMessage.Query().Where(chatmessage.MetadataType("task_completed")).CountX(e.ctx); n != 1 {
		t.Fatalf("task_completed messages = %d, want 1 (no double side effects)", n)
	}
	if n := e.s.DB.ChecklistItem.Query().Where(checklistitem.SourceType("queue_review")).CountX(e.ctx); n != 1 {
		t.Fatalf("review rows = %d, want 1", n)
	}
}

// Document 1 "Events": every action of the queue category is written by the
// code that performs it.
func TestEveryQueueActionIsWritten(t *testing.T) {
	e := setupQueue(t)
	a := e.create(t, map[string]any{"title": "A"})["id"].(string)
	b := e.create(t, map[string]any{"title": "B", "dependsOn": a})["id"].(string)
	e.approve(t, a)
	e.approve(t, b)
	e.api.Do(http.MethodPut, "/api/v2/queue/"+a, map[string]any{"description": "more"})
	e.mustMove(t, a, "in_progress")
	e.mustMove(t, a, "done_today")
	e.api.Do(http.MethodDelete, "/api/v2/queue/"+b, nil)
	got := e.actions(t)
	for _, want := range []string{"queue_added", "queue_updated", "queue_status_changed", "queue_deleted", "queue_dispatched", "task_dispatched"} {
		if !slices.Contains(got, want) {
			t.Errorf("no %s in %v", want, got)
		}
		if cat, _ := activity.CategoryOf(want); cat != "queue" {
			t.Errorf("%s is in category %q", want, cat)
		}
	}
}

// The whole chain: a completion leaves an unchecked review row (the card shows
// pendingReview); the reviewer ticks it through the kanban API and the card
// auto-completes.
func TestReviewTickAutoCompletesTheCard(t *testing.T) {
	e := setupQueue(t)
	it := e.create(t, map[string]any{"title": "Write the memo"})
	id, cardID := it["id"].(string), it["cardId"].(string)
	e.approve(t, id)
	e.mustMove(t, id, "in_progress")
	e.mustMove(t, id, "done_today")
	c := e.api.Do(http.MethodGet, "/api/v2/kanban/"+cardID, nil).JSON(t)["card"].(map[string]any)
	if c["pendingReview"] != true || c["status"] != "active" {
		t.Fatalf("card after completion = pendingReview %v status %v", c["pendingReview"], c["status"])
	}
	var review string
	for _, row := range c["checklist"].([]any) {
		r := row.(map[string]any)
		if r["sourceType"] == "queue_review" {
			review = r["id"].(string)
		}
	}
	res := e.api.Do(http.MethodPatch, "/api/v2/kanban/"+cardID+"/checklist/"+review, map[string]any{"completed": true})
	if res.Status != 200 || res.JSON(t)["cardCompleted"] != true {
		t.Fatalf("tick review: %d %s", res.Status, res.Body)
	}
	c = e.api.Do(http.MethodGet, "/api/v2/kanban/"+cardID, nil).JSON(t)["card"].(map[string]any)
	if c["status"] != "completed" || c["pendingReview"] != false {
		t.Fatalf("card after review = %v / %v", c["status"], c["pendingReview"])
	}
	if !slices.Contains(e.actions(t), "card_auto_completed") {
		t.Fatal("no card_auto_completed activity")
	}
}

// With a language model configured (here a fake OpenAI-compatible provider on
// loopback) the optimizer uses its rewrite; an answer that does not fit, or a
// failing provider, falls back to the deterministic one.
func TestOptimizerUsesTheConfiguredModel(t *testing.T) {
	answers := make(chan string, 3)
	answers <- `{"displaySummary":"Write the Q3 memo for the board","optimizedPayload":{"task":"Write the Q3 memo","context":"board meeting","deliverables":["memo.md"],"files":[],"constraints":["one page"]}}`
	answers <- `{"displaySummary":"ok","optimizedPayload":{"task":"x"}}` // missing keys
	answers <- ""                                                        // provider failure
	var prompts []string
	var mu sync.Mutex
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		prompts = append(prompts, req.Messages[len(req.Messages)-1].Content)
		mu.Unlock()
		a := <-answers
		if a == "" {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		content, _ := json.Marshal(a)
		fmt.Fprintf(w, `{"choices":[{"message":{"role":"assistant","content":%s}}]}`, content)
	}))
	defer provider.Close()
	s := servertest.New(t, servertest.WithLLM(provider.URL))
	api := s.WithKey(s.SignUp("ann").NewKey("Scout"))
	res := api.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "memo"})
	id := res.JSON(t)["item"].(map[string]any)["id"].(string)
	meta := func(body map[string]any) map[string]any {
		t.Helper()
		res := api.Do(http.MethodPut, "/api/v2/queue/"+id, body)
		if res.Status != 200 {
			t.Fatalf("update: %d %s", res.Status, res.Body)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(res.JSON(t)["item"].(map[string]any)["metadata"].(string)), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := meta(map[string]any{"description": "for the board meeting"})
	if m["displaySummary"] != "Write the Q3 memo for the board" || m["optimizedPayload"].(map[string]any)["deliverables"].([]any)[0] != "memo.md" {
		t.Fatalf("model rewrite not used: %v", m)
	}
	if !strings.Contains(prompts[0], "for the board meeting") {
		t.Fatalf("prompt = %q", prompts[0])
	}
	for _, desc := range []string{"second edit", "third edit"} {
		m = meta(map[string]any{"description": desc})
		if m["displaySummary"] != desc || m["optimizedPayload"].(map[string]any)["context"] != desc {
			t.Fatalf("fallback not used after a bad answer: %v", m)
		}
	}
	if len(prompts) != 3 {
		t.Fatalf("provider called %d times", len(prompts))
	}
}
