package throughtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

const route = "/api/relays/widget-response"

// forwarded is one request the widgetResponseUrl received.
type forwarded struct {
	header http.Header
	body   map[string]any
}

// receiver is the agent's widgetResponseUrl: a loopback server (the
// instance runs with private endpoints allowed).
func receiver(t *testing.T) (*httptest.Server, func() []forwarded) {
	t.Helper()
	var mu sync.Mutex
	var got []forwarded
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		f := forwarded{header: r.Header.Clone()}
		if err := json.Unmarshal(raw, &f.body); err != nil {
			t.Errorf("forwarded body %s: %v", raw, err)
		}
		mu.Lock()
		got = append(got, f)
		mu.Unlock()
	}))
	srv.Config.ReadHeaderTimeout = 10 * time.Second
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, func() []forwarded {
		mu.Lock()
		defer mu.Unlock()
		return append([]forwarded(nil), got...)
	}
}

// item creates a queue item of c's account carrying metadata.
func item(t *testing.T, c *servertest.Caller, meta map[string]any) string {
	t.Helper()
	raw, _ := json.Marshal(meta)
	res := c.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Pay the agent", "metadata": string(raw)})
	servertest.WantStatus(t, res, http.StatusCreated)
	return res.JSON(t)["item"].(map[string]any)["id"].(string)
}

func widgetMeta(url string) map[string]any {
	m := map[string]any{"widgets": []any{
		map[string]any{"type": "payment_prompt", "title": "Pay 5 EUR", "items": []any{
			map[string]any{"id": "pay", "label": "Pay", "actions": []any{"approve", "decline"}},
		}},
		map[string]any{"id": "pick", "type": "choice_card", "title": "Which?", "items": []any{
			map[string]any{"id": "a", "label": "A"}, map[string]any{"id": "b", "label": "B"},
		}},
	}}
	if url != "" {
		m["widgetResponseUrl"] = url
	}
	return m
}

// RULINGS "A2A" (widgets) and issue 13 item 8b: a non-terminal answer is
// recorded and forwarded but leaves the item where it is; a terminal one
// (approve) completes the item through the queue's moves (pending
// confirmation → ready → done_today) and reaches the widgetResponseUrl with
// X-Service-Event: widget_response. A key with only the a2a scope may answer.
func TestWidgetResponseCompletesAndForwards(t *testing.T) {
	t.Parallel()
	recv, got := receiver(t)
	s := servertest.New(t, servertest.WithPrivateEndpoints())
	ann := s.SignUp("ann")
	queueKey := s.WithKey(ann.NewKey("queue", "queue"))
	agent := s.WithKey(ann.NewKey("Scout", "a2a"))
	id := item(t, queueKey, widgetMeta(recv.URL+"/widgets?task=t1"))

	res := agent.Do(http.MethodPost, route, map[string]any{"itemId": id, "widgetId": "pick", "widgetItemId": "b", "action": "select", "payload": map[string]any{"why": "cheaper"}})
	servertest.WantStatus(t, res, http.StatusOK)
	out := res.JSON(t)
	if out["completed"] != false || out["forwarded"] != true || out["item"].(map[string]any)["status"] != "pending_confirmation" {
		t.Fatalf("non-terminal answer: %v", out)
	}
	res = agent.Do(http.MethodPost, route, map[string]any{"itemId": id, "widgetId": "0", "widgetItemId": "pay", "action": "approve"})
	servertest.WantStatus(t, res, http.StatusOK)
	out = res.JSON(t)
	if out["completed"] != true || out["item"].(map[string]any)["status"] != "done_today" {
		t.Fatalf("terminal answer: %v", out)
	}
	if r := out["response"].(map[string]any); r["widgetId"] != "0" || r["widgetItemId"] != "pay" || r["action"] != "approve" || len(r["payload"].(map[string]any)) != 0 {
		t.Errorf("response %v", r)
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(out["item"].(map[string]any)["metadata"].(string)), &meta); err != nil {
		t.Fatal(err)
	}
	if list, _ := meta["widgetResponses"].([]any); len(list) != 2 || list[0].(map[string]any)["payload"].(map[string]any)["why"] != "cheaper" {
		t.Errorf("widgetResponses %v", meta["widgetResponses"])
	}

	servertest.WaitFor(t, "both forwards", func() bool { return len(got()) == 2 })
	for i, f := range got() {
		if f.header.Get("X-Service-Event") != "widget_response" || f.header.Get("X-Switchboard-Signature") != "" {
			t.Errorf("forward %d headers %v", i, f.header)
		}
		if f.body["itemId"] != id || f.body["respondedAt"] == nil {
			t.Errorf("forward %d body %v", i, f.body)
		}
	}
	if last := got()[1].body; last["action"] != "approve" || last["widgetId"] != "0" || last["widgetItemId"] != "pay" {
		t.Errorf("terminal forward %v", last)
	}
	rows, err := s.DB.WebhookDelivery.Query().Where(webhookdelivery.KindEQ(webhookdelivery.KindForward)).All(t.Context())
	if err != nil || len(rows) != 2 || rows[0].Event != "widget_response" {
		t.Errorf("outbox rows %v %v", rows, err)
	}
	// Activity: both answers, and the moves the terminal one made.
	n, err := s.DB.ActivityEntry.Query().Where(activityentry.UserID(ann.ID), activityentry.Action("widget_response")).Count(t.Context())
	if err != nil || n != 2 {
		t.Errorf("%d widget_response activity entries: %v", n, err)
	}
	moves, _ := s.DB.ActivityEntry.Query().Where(activityentry.UserID(ann.ID), activityentry.Action("queue_status_changed")).Count(t.Context())
	if moves != 2 {
		t.Errorf("%d moves recorded, want ready then done_today", moves)
	}
	// Done already: another terminal answer is recorded, the item stays done.
	res = agent.Do(http.MethodPost, route, map[string]any{"itemId": id, "widgetId": "pick", "action": "submit"})
	servertest.WantStatus(t, res, http.StatusOK)
	if out := res.JSON(t); out["item"].(map[string]any)["status"] != "done_today" {
		t.Errorf("answer to a done item: %v", out)
	}
}

// The refusals: another account's item and an unknown widget or row are 404,
// an unknown relay id is 404, an action the row does not
// list and a payload that is not an object are 400; none writes anything. A
// key with only the queue scope is 403; network and a2a keys and a session
// are admitted.
func TestWidgetResponseRefusals(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithPrivateEndpoints())
	ann, bob := s.SignUp("ann"), s.SignUp("bob")
	annQueue := s.WithKey(ann.NewKey("queue", "queue"))
	id := item(t, annQueue, widgetMeta(""))
	bobs := item(t, s.WithKey(bob.NewKey("queue", "queue")), widgetMeta(""))
	agent := s.WithKey(ann.NewKey("Scout", "a2a"))
	before, _ := s.DB.QueueItem.Get(t.Context(), id)
	for _, c := range []struct {
		body   map[string]any
		status int
	}{
		{map[string]any{"itemId": bobs, "widgetId": "0", "action": "approve"}, http.StatusNotFound},
		{map[string]any{"itemId": "unknown-item", "widgetId": "0", "action": "approve"}, http.StatusNotFound},
		{map[string]any{"itemId": id, "widgetId": "7", "action": "approve"}, http.StatusNotFound},
		{map[string]any{"itemId": id, "widgetId": "0", "widgetItemId": "nope", "action": "approve"}, http.StatusNotFound},
		{map[string]any{"relayId": "relay-1", "widgetId": "0", "action": "approve"}, http.StatusNotFound},
		{map[string]any{"itemId": id, "widgetId": "0", "widgetItemId": "pay", "action": "maybe"}, http.StatusBadRequest},
		{map[string]any{"itemId": id, "widgetId": "0", "action": "approve", "payload": "[1]"}, http.StatusBadRequest},
		{map[string]any{"widgetId": "0", "action": "approve"}, http.StatusBadRequest},
		{map[string]any{"itemId": id, "action": "approve"}, http.StatusBadRequest},
	} {
		res := agent.Do(http.MethodPost, route, c.body)
		if res.Status != c.status {
			t.Errorf("%v: %d %s, want %d", c.body, res.Status, res.Body, c.status)
		}
	}
	res := annQueue.Do(http.MethodPost, route, map[string]any{"itemId": id, "widgetId": "pick", "action": "select"})
	servertest.WantError(t, res, http.StatusForbidden)
	after, _ := s.DB.QueueItem.Get(t.Context(), id)
	if after.Metadata != before.Metadata || after.Status != before.Status {
		t.Fatalf("refused answers changed the item: %s → %s", before.Metadata, after.Metadata)
	}
	for name, c := range map[string]*servertest.Caller{
		"network key": s.WithKey(ann.NewKey("net", "network")),
		"session":     ann.Session,
	} {
		res := c.Do(http.MethodPost, route, map[string]any{"itemId": id, "widgetId": "pick", "action": "select"})
		if res.Status != http.StatusOK {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
}

// The Connect twin answers the same, with the same codes.
func TestWidgetResponseOverConnect(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithPrivateEndpoints())
	ann := s.SignUp("ann")
	id := item(t, s.WithKey(ann.NewKey("queue", "queue")), widgetMeta(""))
	key := ann.NewKey("Scout", "a2a")
	n1, _ := structpb.NewStruct(map[string]any{"n": 1})
	for name, opts := range servertest.Protocols() {
		opts = append(opts, connect.WithInterceptors(servertest.BearerInterceptor(key)))
		c := switchboardv1connect.NewWidgetServiceClient(s.Client(name), s.URL, opts...)
		out, err := c.RespondToWidget(t.Context(), &switchboardv1.RespondToWidgetRequest{
			ItemId: id, WidgetId: "pick", WidgetItemId: proto.String("a"), Action: "select-" + name, Payload: n1})
		if err != nil || out.GetCompleted() || out.GetForwarded() || out.GetResponse().GetPayload().GetFields()["n"].GetNumberValue() != 1 || out.GetItem().GetId() != id {
			t.Errorf("%s: %v %v", name, out, err)
		}
		_, err = c.RespondToWidget(t.Context(), &switchboardv1.RespondToWidgetRequest{ItemId: id, WidgetId: "nope", Action: "approve"})
		servertest.WantCode(t, err, connect.CodeNotFound)
	}
}

// RULINGS "Input at the boundary": a widgetResponseUrl the address rule
// refuses (loopback, on an instance that does not allow private endpoints)
// refuses the answer, and nothing is written or sent.
func TestWidgetResponseURLRefused(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann := s.SignUp("ann")
	id := item(t, s.WithKey(ann.NewKey("queue", "queue")), widgetMeta("http://127.0.0.1:9/widgets"))
	res := s.WithKey(ann.NewKey("Scout", "a2a")).Do(http.MethodPost, route, map[string]any{"itemId": id, "widgetId": "0", "action": "approve"})
	servertest.WantErrorContaining(t, res, http.StatusBadRequest, "widgetResponseUrl")
	if n, _ := s.DB.WebhookDelivery.Query().Count(t.Context()); n != 0 {
		t.Errorf("%d deliveries written", n)
	}
	if it, _ := s.DB.QueueItem.Get(t.Context(), id); it.Status != "pending_confirmation" {
		t.Errorf("item is %s", it.Status)
	}
}

// RULINGS "Objects stay objects": on REST the payload is a JSON object in
// the request and in the answer; JSON text where the object belongs is 400
// naming the field, and nothing is recorded.
func TestWidgetResponsePayloadIsAnObject(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithPrivateEndpoints())
	ann := s.SignUp("ann")
	id := item(t, s.WithKey(ann.NewKey("queue", "queue")), widgetMeta(""))
	c := s.WithKey(ann.NewKey("Scout", "a2a"))
	res := c.Do(http.MethodPost, route, map[string]any{"itemId": id, "widgetId": "pick", "widgetItemId": "a", "action": "select",
		"payload": `{"choice":"a"}`})
	servertest.WantErrorContaining(t, res, http.StatusBadRequest, "payload")
	res = c.Do(http.MethodPost, route, map[string]any{"itemId": id, "widgetId": "pick", "widgetItemId": "a", "action": "select",
		"payload": map[string]any{"choice": "a", "n": 2}})
	servertest.WantStatus(t, res, http.StatusOK)
	got, _ := res.JSON(t)["response"].(map[string]any)["payload"].(map[string]any)
	if got["choice"] != "a" || got["n"] != float64(2) {
		t.Errorf("answer's payload: %s", res.Body)
	}
	res = c.Do(http.MethodPost, route, map[string]any{"itemId": id, "widgetId": "pick", "widgetItemId": "a", "action": "select"})
	servertest.WantStatus(t, res, http.StatusOK)
	if got, ok := res.JSON(t)["response"].(map[string]any)["payload"].(map[string]any); !ok || len(got) != 0 {
		t.Errorf("absent payload answered %s", res.Body)
	}
}
