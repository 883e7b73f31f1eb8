package throughtest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Accounts, keys, sessions": another account's card answers 404 on
// every route, and nothing of it changes.
func TestIsolationEveryRouteKanban(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	bob := b.s.SignUp("bob")
	bobAPI := b.s.WithKey(bob.NewKey("bob's agent"))
	res := bobAPI.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "bob's", "checklist": []map[string]any{{"text": "secret"}}})
	servertest.WantStatus(t, res, 201)
	card := res.JSON(t)["card"].(map[string]any)
	id := card["id"].(string)
	item := card["checklist"].([]any)[0].(map[string]any)["id"].(string)
	before := b.count(t)

	routes := []struct {
		name   string
		caller *servertest.Caller
		method string
		path   string
		body   any
	}{
		{"get", b.api, http.MethodGet, "/api/v2/kanban/" + id, nil},
		{"update", b.api, http.MethodPut, "/api/v2/kanban/" + id, map[string]any{"title": "mine now"}},
		{"delete", b.api, http.MethodDelete, "/api/v2/kanban/" + id, nil},
		{"checklist item", b.api, http.MethodPatch, itemPath(id, item), map[string]any{"completed": true}},
		{"activity", b.ann.Session, http.MethodGet, "/api/kanban/" + id + "/activity", nil},
		{"missing get", b.api, http.MethodGet, "/api/v2/kanban/nope", nil},
		{"missing update", b.api, http.MethodPut, "/api/v2/kanban/nope", map[string]any{"title": "x"}},
		{"missing delete", b.api, http.MethodDelete, "/api/v2/kanban/nope", nil},
		{"missing item", b.api, http.MethodPatch, itemPath("nope", "nope"), map[string]any{"completed": true}},
		{"missing activity", b.ann.Session, http.MethodGet, "/api/kanban/nope/activity", nil},
	}
	for _, r := range routes {
		t.Run(r.name, func(t *testing.T) {
			servertest.WantError(t, r.caller.Do(r.method, r.path, r.body), http.StatusNotFound)
		})
	}
	// Connect says not_found too.
	c := b.client("connect+json")
	ctx := context.Background()
	_, err := c.GetCard(ctx, &switchboardv1.GetCardRequest{Id: id})
	servertest.WantCode(t, err, connect.CodeNotFound)
	_, err = c.UpdateCard(ctx, &switchboardv1.UpdateCardRequest{Id: id, Card: &switchboardv1.CardInput{Title: proto.String("x")}})
	servertest.WantCode(t, err, connect.CodeNotFound)
	_, err = c.DeleteCard(ctx, &switchboardv1.DeleteCardRequest{Id: id})
	servertest.WantCode(t, err, connect.CodeNotFound)
	_, err = c.UpdateChecklistItem(ctx, &switchboardv1.UpdateChecklistItemRequest{CardId: id, Id: item, Completed: proto.Bool(true)})
	servertest.WantCode(t, err, connect.CodeNotFound)
	_, err = sessionClient(b.s, b.ann, "connect+json").ListCardActivity(ctx, &switchboardv1.ListCardActivityRequest{Id: id})
	servertest.WantCode(t, err, connect.CodeNotFound)

	if after := b.count(t); after != before {
		t.Errorf("isolation refusals wrote: %+v → %+v", before, after)
	}
	got := bobAPI.Do(http.MethodGet, "/api/v2/kanban/"+id, nil).JSON(t)["card"].(map[string]any)
	if got["title"] != "bob's" || got["checklist"].([]any)[0].(map[string]any)["completed"] != false {
		t.Errorf("bob's card changed: %v", got)
	}
	// Lists are per account.
	if cards := b.api.Do(http.MethodGet, "/api/v2/kanban", nil).JSON(t)["cards"].([]any); len(cards) != 0 {
		t.Errorf("ann lists %v", cards)
	}
	// A key without the kanban scope is refused.
	servertest.WantError(t, b.s.WithKey(b.ann.NewKey("queue only", "queue")).Do(http.MethodGet, "/api/v2/kanban", nil), http.StatusForbidden)
}

// RULINGS "Errors": malformed JSON, unknown enum strings, missing title,
// unknown fields: a clear 400, and nothing written.
func TestBadInputWritesNothingKanban(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	existing := b.create(t, map[string]any{"title": "existing", "checklist": []map[string]any{{"text": "a"}}})
	id := existing["id"].(string)
	item := existing["checklist"].([]any)[0].(map[string]any)["id"].(string)
	ct := b.contact(t, b.ann.ID, "Ada", nil)
	const noField = "no card field supplied: send a field to change, or name the fields to clear in clearFields (an empty list counts as none)"

	cases := []struct {
		name, method, path, body, want string
	}{
		{"malformed", "POST", "/api/v2/kanban", `{"title": "x"`, ""},
		{"not an object", "POST", "/api/v2/kanban", `["title"]`, ""},
		{"empty body", "POST", "/api/v2/kanban", ``, "title is required"},
		{"missing title", "POST", "/api/v2/kanban", `{"priority":"high"}`, "title is required"},
		{"blank title", "POST", "/api/v2/kanban", `{"title":"   "}`, "title is required"},
		{"unknown status", "POST", "/api/v2/kanban", `{"title":"x","status":"done"}`, `status "done" is not one of leads, qualifying, proposal, negotiation, contracted, active, development, planning, paused, completed`},
		{"unknown priority", "POST", "/api/v2/kanban", `{"title":"x","priority":"critical"}`, `priority "critical" is not one of low, medium, high, urgent`},
		{"unknown assignee", "POST", "/api/v2/kanban", `{"title":"x","assignee":"robot"}`, `assignee "robot" is not one of human, agent`},
		{"capitalised enum", "POST", "/api/v2/kanban", `{"title":"x","status":"Active"}`, ""},
		{"unknown field", "POST", "/api/v2/kanban", `{"title":"x","colour":"red"}`, ""},
		{"unknown nested field", "POST", "/api/v2/kanban", `{"title":"x","checklist":[{"text":"a","done":true}]}`, ""},
		{"wrapped body", "POST", "/api/v2/kanban", `{"card":{"title":"x"}}`, ""},
		{"wrong type", "POST", "/api/v2/kanban", `{"title":"x","order":"first"}`, ""},
		{"bad date", "POST", "/api/v2/kanban", `{"title":"x","dueDate":"tomorrow"}`, ""},
		{"negative order", "POST", "/api/v2/kanban", `{"title":"x","order":-1}`, "order must not be negative"},
		{"negative price", "POST", "/api/v2/kanban", `{"title":"x","projectPrice":-5}`, ""},
		{"NaN price", "POST", "/api/v2/kanban", `{"title":"x","projectPrice":"NaN"}`, ""},
		{"subcent price", "POST", "/api/v2/kanban", `{"title":"x","projectPrice":1.005}`, ""}, // money in cents (issue 11)
		{"blank label", "POST", "/api/v2/kanban", `{"title":"x","labels":["ok"," "]}`, ""},
		{"blank checklist text", "POST", "/api/v2/kanban", `{"title":"x","checklist":[{"text":"a"},{"text":""}]}`, "checklist[1].text is required"},
		{"checklist id on create", "POST", "/api/v2/kanban", `{"title":"x","checklist":[{"id":"` + item + `","text":"a"}]}`, ""},
		{"contact without id", "POST", "/api/v2/kanban", `{"title":"x","contacts":[{"role":"lead"}]}`, "contacts[0].contactId is required"},
		{"contact twice", "POST", "/api/v2/kanban", `{"title":"x","contacts":[{"contactId":"` + ct.ID + `"},{"contactId":"` + ct.ID + `"}]}`, ""},
		{"update unknown status", "PUT", "/api/v2/kanban/" + id, `{"title":"renamed","status":"archived"}`, ""},
		{"update blank title", "PUT", "/api/v2/kanban/" + id, `{"title":""}`, "title must not be empty"},
		{"update unknown field", "PUT", "/api/v2/kanban/" + id, `{"title":"renamed","bogus":true}`, ""},
		{"update malformed", "PUT", "/api/v2/kanban/" + id, `{"title":`, ""},
		{"update nothing", "PUT", "/api/v2/kanban/" + id, `{}`, noField},
		{"update empty lists only", "PUT", "/api/v2/kanban/" + id, `{"labels":[],"checklist":[],"contacts":[],"clearFields":[]}`, noField},
		{"update checklist twice", "PUT", "/api/v2/kanban/" + id, `{"checklist":[{"id":"` + item + `","text":"a"},{"id":"` + item + `","text":"b"}]}`, ""},
		{"patch nothing", "PATCH", itemPath(id, item), `{}`, "nothing to change: send text, completed or order"},
		{"patch unknown field", "PATCH", itemPath(id, item), `{"completed":true,"checked":true}`, ""},
		{"patch malformed", "PATCH", itemPath(id, item), `{"completed":`, ""},
	}
	before := b.count(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := b.api.Do(tc.method, tc.path, tc.body)
			servertest.WantError(t, res, 400)
			msg := res.JSON(t)["error"].(string)
			if tc.want != "" && msg != tc.want {
				t.Errorf("error = %q, want %q", msg, tc.want)
			}
			if strings.Contains(strings.ToLower(msg), "sql") || strings.Contains(msg, "ent:") {
				t.Errorf("error leaks internals: %q", msg)
			}
		})
	}
	if after := b.count(t); after != before {
		t.Errorf("refused requests wrote: %+v → %+v", before, after)
	}
	if got := b.get(t, id); got["title"] != "existing" {
		t.Errorf("card changed: %v", got)
	}

	// The same refusals over Connect, with the same message.
	c := b.client("connect+json")
	ctx := context.Background()
	_, err := c.CreateCard(ctx, &switchboardv1.CreateCardRequest{})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
	_, err = c.CreateCard(ctx, &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{Title: proto.String("x"), Priority: proto.String("critical")}})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
	if ce := new(connect.Error); !errors.As(err, &ce) || ce.Message() != `priority "critical" is not one of low, medium, high, urgent` {
		t.Errorf("Connect message = %v", err)
	}
	_, err = c.ListCards(ctx, &switchboardv1.ListCardsRequest{Assignee: "robot"})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
	raw := rpc(b.api, "CreateCard", `{"card":{"title":"x","colour":"red"}}`)
	if raw.Status != 400 {
		t.Errorf("RPC unknown field: %d %s", raw.Status, raw.Body)
	}
	if after := b.count(t); after != before {
		t.Errorf("refused Connect requests wrote: %+v → %+v", before, after)
	}
}
