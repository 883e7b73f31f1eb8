package throughtest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/cardcontact"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/ent/contact"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// clearableCardFields are the names CardInput.clear_fields documents, in
// field order; the refusals name them in this order.
var clearableCardFields = []string{
	"description", "dueDate", "summary", "brief", "assigneeUserId", "assigneeAgentId", "assignedById",
	"reminderOffsetMinutes", "projectId", "workspaceId", "parentCardId", "cardRole", "projectTaskKey",
	"sourceChannel", "paymentStatus", "projectPrice", "cardType", "coverColor", "coverImageUrl",
	"priorityScore", "startDate", "labels", "checklist", "contacts",
}

// fullCard makes a card with every CardInput field set, an open checklist
// item and a contact link, and answers its REST rendering.
func (b *board) fullCard(t *testing.T, ct *ent.Contact) map[string]any {
	t.Helper()
	in := fullInput(t)
	// A reference must name one of the caller's cards (RULINGS "Input at the boundary").
	in.ParentCardId = proto.String(b.create(t, map[string]any{"title": "parent"})["id"].(string))
	in.Status = proto.String("active")
	in.Checklist = []*switchboardv1.ChecklistItemInput{{Text: "open"}}
	in.Contacts = []*switchboardv1.CardContactInput{{ContactId: ct.ID, Role: proto.String("lead")}}
	res, err := b.client("connect+proto").CreateCard(context.Background(), &switchboardv1.CreateCardRequest{Card: in})
	if err != nil {
		t.Fatal(err)
	}
	return b.get(t, res.GetCard().GetId())
}

// lastUpdate answers the fields the card's newest card_updated entry names.
func (b *board) lastUpdate(t *testing.T, cardID string) (string, []string) {
	t.Helper()
	e, err := b.s.DB.ActivityEntry.Query().
		Where(activityentry.CardID(cardID), activityentry.Action("card_updated"), activityentry.IsCrossUser(false)).
		Order(ent.Desc(activityentry.FieldCreatedAt), ent.Desc(activityentry.FieldID)).First(context.Background())
	if err != nil {
		t.Fatalf("card_updated entry: %v", err)
	}
	var meta struct{ Fields []string }
	if err := json.Unmarshal([]byte(e.Metadata), &meta); err != nil {
		t.Fatalf("metadata %q: %v", e.Metadata, err)
	}
	return e.Summary, meta.Fields
}

// clearedREST is a cleared field as REST renders it: labels null (an empty
// list renders null there), the checklist and contacts [], the rest null.
func clearedREST(field string) any {
	if field == "checklist" || field == "contacts" {
		return []any{}
	}
	return nil
}

// clearFields on PUT empties each clearable field, and only it: optional
// fields become null, labels empty, the checklist and the contact links are
// deleted (the contact itself stays). The card_updated entry names the field.
func TestClearEachCardField(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	ctx := context.Background()
	ct := b.contact(t, b.ann.ID, "Ada", nil)
	for _, field := range clearableCardFields {
		t.Run(field, func(t *testing.T) {
			before := b.fullCard(t, ct)
			id := before["id"].(string)
			if v := before[field]; v == nil || reflect.DeepEqual(v, clearedREST(field)) {
				t.Fatalf("%s is not set before the clear: %v", field, v)
			}
			b.s.Clock.Advance(time.Second)
			res := b.api.Do(http.MethodPut, "/api/v2/kanban/"+id, map[string]any{"clearFields": []string{field}})
			servertest.WantStatus(t, res, 200)
			got := res.JSON(t)["card"].(map[string]any)
			if v, ok := got[field]; !ok || !reflect.DeepEqual(v, clearedREST(field)) {
				t.Errorf("%s = %#v (present %v), want %#v", field, v, ok, clearedREST(field))
			}
			if !reflect.DeepEqual(got, b.get(t, id)) {
				t.Errorf("PUT answer differs from GET")
			}
			for k, v := range before {
				if k != field && k != "updatedAt" && k != "lastActivityAt" && !reflect.DeepEqual(got[k], v) {
					t.Errorf("clearing %s changed %s: %v → %v", field, k, v, got[k])
				}
			}
			if got["status"] != "active" {
				t.Errorf("status = %v", got["status"])
			}
			if got["updatedAt"] == before["updatedAt"] {
				t.Errorf("updatedAt not bumped")
			}
			summary, fields := b.lastUpdate(t, id)
			if !slices.Equal(fields, []string{field}) || summary != `Updated "Every field": `+field {
				t.Errorf("card_updated = %q %v", summary, fields)
			}
			if acts := b.actions(t, id); !slices.Equal(acts, []string{"card_created", "card_updated"}) {
				t.Errorf("activity = %v", acts)
			}
			items := b.s.DB.ChecklistItem.Query().Where(checklistitem.CardID(id)).CountX(ctx)
			links := b.s.DB.CardContact.Query().Where(cardcontact.CardID(id)).CountX(ctx)
			if want := map[bool]int{true: 0, false: 1}; items != want[field == "checklist"] || links != want[field == "contacts"] {
				t.Errorf("items %d, links %d", items, links)
			}
		})
	}
	if !b.s.DB.Contact.Query().Where(contact.ID(ct.ID)).ExistX(ctx) {
		t.Errorf("clearing contacts deleted the contact")
	}
}

// The same over Connect (JSON): every clearable field at once, duplicates
// included; the RPC form omits the absent fields and writes the lists [].
func TestClearEveryCardFieldOverConnect(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	before := b.fullCard(t, b.contact(t, b.ann.ID, "Ada", nil))
	id := before["id"].(string)
	names := append(slices.Clone(clearableCardFields), "labels", "description")
	res := rpc(b.api, "UpdateCard", map[string]any{"id": id, "card": map[string]any{"clearFields": names}})
	if res.Status != 200 {
		t.Fatalf("UpdateCard: %d %s", res.Status, res.Body)
	}
	got := res.JSON(t)["card"].(map[string]any)
	for _, f := range clearableCardFields {
		v, ok := got[f]
		switch f {
		case "labels", "checklist", "contacts":
			if !reflect.DeepEqual(v, []any{}) {
				t.Errorf("%s = %#v, want []", f, v)
			}
		default:
			if ok {
				t.Errorf("%s = %#v, want absent", f, v)
			}
		}
	}
	if got["title"] != "Every field" || got["status"] != "active" || got["priorityScore"] != nil {
		t.Errorf("card = %v", got)
	}
	_, fields := b.lastUpdate(t, id)
	slices.Sort(fields)
	want := slices.Sorted(slices.Values(clearableCardFields))
	if !slices.Equal(fields, want) {
		t.Errorf("card_updated fields = %v, want %v", fields, want)
	}
	// The binary protocol refuses alike.
	c := b.client("connect+proto")
	if _, err := c.UpdateCard(context.Background(), &switchboardv1.UpdateCardRequest{Id: id,
		Card: &switchboardv1.CardInput{Title: proto.String("Renamed"), ClearFields: []string{"title"}}}); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Errorf("clear a supplied title over gRPC-proto: %v", err)
	}
}

// Clearing with other changes, twice, and with a move; clearing the checklist
// never auto-completes the card.
func TestClearCardSemantics(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	ct := b.contact(t, b.ann.ID, "Ada", nil)
	c := b.create(t, map[string]any{"title": "T", "labels": []string{"a"}, "dueDate": "2030-01-02T03:04:05Z",
		"checklist": []map[string]any{{"text": "open"}, {"text": "done", "completed": true}},
		"contacts":  []map[string]any{{"contactId": ct.ID}}})
	id := c["id"].(string)
	put := func(body string) map[string]any {
		t.Helper()
		res := b.api.Do(http.MethodPut, "/api/v2/kanban/"+id, body)
		servertest.WantStatus(t, res, 200)
		return res.JSON(t)["card"].(map[string]any)
	}

	// Set and clear in one request; duplicates are harmless.
	got := put(`{"title":"Renamed","clearFields":["labels","dueDate","labels"]}`)
	if got["title"] != "Renamed" || got["labels"] != nil || got["dueDate"] != nil {
		t.Errorf("card = %v", got)
	}
	if summary, fields := b.lastUpdate(t, id); summary != `Updated "Renamed": title, dueDate, labels` ||
		!slices.Equal(fields, []string{"title", "dueDate", "labels"}) {
		t.Errorf("card_updated = %q %v", summary, fields)
	}

	// Clearing what is already empty changes nothing: 200, no activity, same updatedAt.
	n := len(b.actions(t, id))
	b.s.Clock.Advance(time.Second)
	if again := put(`{"clearFields":["labels","dueDate","startDate"]}`); again["updatedAt"] != got["updatedAt"] {
		t.Errorf("no-op clear moved updatedAt")
	}
	if len(b.actions(t, id)) != n {
		t.Errorf("no-op clear wrote activity: %v", b.actions(t, id))
	}

	// Clearing a checklist with an open item leaves no item to close: no auto-complete.
	got = put(`{"clearFields":["checklist"]}`)
	if got["status"] != "active" || len(got["checklist"].([]any)) != 0 {
		t.Errorf("after clearing the checklist: %v", got)
	}
	if acts := b.actions(t, id); slices.Contains(acts, "card_auto_completed") {
		t.Errorf("clearing the checklist auto-completed: %v", acts)
	}

	// A move and a clear: card_moved, then card_updated naming the cleared list.
	got = put(`{"status":"paused","clearFields":["contacts"]}`)
	if got["status"] != "paused" || len(got["contacts"].([]any)) != 0 {
		t.Errorf("after move and clear: %v", got)
	}
	acts := b.actions(t, id)
	if !slices.Equal(acts[len(acts)-2:], []string{"card_moved", "card_updated"}) {
		t.Errorf("activity = %v", acts)
	}
	if _, fields := b.lastUpdate(t, id); !slices.Equal(fields, []string{"contacts"}) {
		t.Errorf("card_updated fields = %v", fields)
	}
}

// Refusals: an unknown, required or non-clearable name, a field both set and
// cleared, clearFields on create. 400 on both transports with the same
// message, and nothing written.
func TestClearCardRefusals(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	ct := b.contact(t, b.ann.ID, "Ada", nil)
	c := b.create(t, map[string]any{"title": "T", "description": "d", "labels": []string{"a"},
		"checklist": []map[string]any{{"text": "open"}}, "contacts": []map[string]any{{"contactId": ct.ID}}})
	id := c["id"].(string)
	allowed := "; clearable fields: " + strings.Join(clearableCardFields, ", ")
	unknown := func(name string) string { return `clearFields: unknown field "` + name + `"` + allowed }
	fixed := func(name string) string {
		return "clearFields: " + name + " cannot be cleared (it always has a value)" + allowed
	}
	both := func(name string) string { return "clearFields: " + name + " is both set and cleared" }

	cases := []struct {
		name, method, body, want string
	}{
		{"unknown", "PUT", `{"clearFields":["colour"]}`, unknown("colour")},
		{"proto name", "PUT", `{"clearFields":["due_date"]}`, unknown("due_date")},
		{"wrong case", "PUT", `{"clearFields":["DueDate"]}`, unknown("DueDate")},
		{"empty name", "PUT", `{"clearFields":[""]}`, unknown("")},
		{"clearFields itself", "PUT", `{"clearFields":["clearFields"]}`, unknown("clearFields")},
		{"output-only field", "PUT", `{"clearFields":["pendingReview"]}`, unknown("pendingReview")},
		{"required title", "PUT", `{"clearFields":["title"]}`, "clearFields: title cannot be cleared (it is required)" + allowed},
		{"status", "PUT", `{"clearFields":["status"]}`, fixed("status")},
		{"priority", "PUT", `{"clearFields":["priority"]}`, fixed("priority")},
		{"assignee", "PUT", `{"clearFields":["assignee"]}`, fixed("assignee")},
		{"order", "PUT", `{"clearFields":["order"]}`, fixed("order")},
		{"isArchived", "PUT", `{"clearFields":["isArchived"]}`, fixed("isArchived")},
		{"valid then invalid", "PUT", `{"clearFields":["labels","status"]}`, fixed("status")},
		{"description set", "PUT", `{"description":"new","clearFields":["description"]}`, both("description")},
		{"description emptied", "PUT", `{"description":"","clearFields":["description"]}`, both("description")},
		{"dueDate set", "PUT", `{"dueDate":"2030-01-01T00:00:00Z","clearFields":["dueDate"]}`, both("dueDate")},
		{"projectPrice set", "PUT", `{"projectPrice":0,"clearFields":["projectPrice"]}`, both("projectPrice")},
		{"labels set", "PUT", `{"labels":["b"],"clearFields":["labels"]}`, both("labels")},
		{"checklist set", "PUT", `{"checklist":[{"text":"x"}],"clearFields":["checklist"]}`, both("checklist")},
		{"contacts set", "PUT", `{"contacts":[{"contactId":"` + ct.ID + `"}],"clearFields":["contacts"]}`, both("contacts")},
		{"not a list", "PUT", `{"clearFields":"labels"}`, ""},
		{"not strings", "PUT", `{"clearFields":[1]}`, ""},
		{"create", "POST", `{"title":"x","clearFields":["labels"]}`, "clearFields is for updates only: a new card has nothing to clear"},
		{"create, nothing valid", "POST", `{"title":"x","clearFields":["title"]}`, "clearFields is for updates only: a new card has nothing to clear"},
	}
	before, snapshot := b.count(t), b.get(t, id)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := "/api/v2/kanban"
			if tc.method == "PUT" {
				path += "/" + id
			}
			res := b.api.Do(tc.method, path, tc.body)
			servertest.WantError(t, res, 400)
			if msg := res.JSON(t)["error"].(string); tc.want != "" && msg != tc.want {
				t.Errorf("error = %q, want %q", msg, tc.want)
			}
		})
	}

	// The same refusals over Connect, with the same messages.
	ctx := context.Background()
	for _, protocol := range []string{"connect+json", "grpc"} {
		c := b.client(protocol)
		for _, tc := range []struct {
			in   *switchboardv1.CardInput
			want string
		}{
			{&switchboardv1.CardInput{ClearFields: []string{"colour"}}, unknown("colour")},
			{&switchboardv1.CardInput{ClearFields: []string{"title"}}, "clearFields: title cannot be cleared (it is required)" + allowed},
			{&switchboardv1.CardInput{Labels: []string{"b"}, ClearFields: []string{"labels"}}, both("labels")},
		} {
			_, err := c.UpdateCard(ctx, &switchboardv1.UpdateCardRequest{Id: id, Card: tc.in})
			if ce := new(connect.Error); !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument || ce.Message() != tc.want {
				t.Errorf("%s UpdateCard %v: %v, want %q", protocol, tc.in, err, tc.want)
			}
		}
		_, err := c.CreateCard(ctx, &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{
			Title: proto.String("x"), ClearFields: []string{"labels"}}})
		servertest.WantCode(t, err, connect.CodeInvalidArgument)
	}
	if after := b.count(t); after != before {
		t.Errorf("refused clears wrote: %+v → %+v", before, after)
	}
	if got := b.get(t, id); !reflect.DeepEqual(got, snapshot) {
		t.Errorf("refused clears changed the card:\n%v\n%v", snapshot, got)
	}
}
