package throughtest

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/card"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The whole life of a contact over REST: create, read, list, update, delete,
// each with its activity entry.
func TestContactLifecycleREST(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	created := f.s.Clock.Now()
	c := f.create(t, f.api, map[string]any{
		"name": "  Grace Hopper ", "email": " grace@navy.example ", "company": "US Navy",
		"notes": "  indented\nnotes ", "tags": []string{" vip", "vip", "", "compilers ", "  "},
		"lastInteractionAt": "2025-04-05T16:45:30.25Z", "enrichedData": `{"a":1}`,
	})
	id := c["id"].(string)
	want := map[string]any{
		"name": "Grace Hopper", "email": "grace@navy.example", "company": "US Navy", "notes": "  indented\nnotes ",
		"lastInteractionAt": "2025-04-05T16:45:30.250Z", "enrichedData": `{"a":1}`, "userId": f.ann.ID,
	}
	for k, v := range want {
		if fmt.Sprint(c[k]) != fmt.Sprint(v) {
			t.Errorf("created %s = %v, want %v", k, c[k], v)
		}
	}
	if !servertest.At(t, c["createdAt"]).Equal(created) || !servertest.At(t, c["updatedAt"]).Equal(created) {
		t.Errorf("createdAt/updatedAt = %v/%v, want the server clock %v", c["createdAt"], c["updatedAt"], created)
	}
	if fmt.Sprint(c["tags"]) != "[vip compilers]" || fmt.Sprint(c["cards"]) != "[]" {
		t.Errorf("tags/cards = %v / %v", c["tags"], c["cards"])
	}
	for _, k := range []string{"phone", "role", "source", "matchedAt", "platformUserId"} {
		if v, ok := c[k]; !ok || v != nil {
			t.Errorf("REST %s = %v (present %v), want null", k, v, ok)
		}
	}

	got := f.api.Do(http.MethodGet, "/api/v2/contacts/"+id, nil)
	if got.Status != http.StatusOK || fmt.Sprint(got.JSON(t)["contact"]) != fmt.Sprint(c) {
		t.Fatalf("GET = %d %s, want the created contact", got.Status, got.Body)
	}

	// PUT changes only what is supplied; an empty string clears.
	f.s.Clock.Advance(time.Minute)
	res := f.api.Do(http.MethodPut, "/api/v2/contacts/"+id, map[string]any{"phone": "+1 555", "company": "", "tags": []string{"Admiral"}})
	if res.Status != http.StatusOK {
		t.Fatalf("PUT: %d %s", res.Status, res.Body)
	}
	u := res.JSON(t)["contact"].(map[string]any)
	if u["phone"] != "+1 555" || u["company"] != nil || u["name"] != "Grace Hopper" || u["email"] != "grace@navy.example" ||
		fmt.Sprint(u["tags"]) != "[Admiral]" || u["createdAt"] != c["createdAt"] ||
		!servertest.At(t, u["updatedAt"]).Equal(f.s.Clock.Now()) {
		t.Fatalf("PUT answered %s", res.Body)
	}
	// A PUT without tags keeps them.
	if res := f.api.Do(http.MethodPut, "/api/v2/contacts/"+id, map[string]any{"role": "Admiral"}); res.Status != 200 ||
		fmt.Sprint(res.JSON(t)["contact"].(map[string]any)["tags"]) != "[Admiral]" {
		t.Fatalf("PUT without tags: %d %s", res.Status, res.Body)
	}

	res = f.api.Do(http.MethodDelete, "/api/v2/contacts/"+id, nil)
	if res.Status != http.StatusOK || res.JSON(t)["contact"].(map[string]any)["role"] != "Admiral" {
		t.Fatalf("DELETE: %d %s", res.Status, res.Body)
	}
	servertest.WantError(t, f.api.Do(http.MethodGet, "/api/v2/contacts/"+id, nil), http.StatusNotFound)
	servertest.WantError(t, f.api.Do(http.MethodDelete, "/api/v2/contacts/"+id, nil), http.StatusNotFound)

	// One entry per action, in the feed's crm category, by the key's label.
	entries := f.activity(t, f.ann.ID)
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
		if e.Actor != "agent" || metadata(t, e)["contactId"] != id {
			t.Errorf("%s: actor %q metadata %s", e.Action, e.Actor, e.Metadata)
		}
	}
	if want := []string{"contact_added", "contact_updated", "contact_updated", "contact_deleted"}; !slices.Equal(actions, want) {
		t.Fatalf("activity = %v, want %v", actions, want)
	}
	if got := fmt.Sprint(metadata(t, entries[1])["fields"]); got != "[phone company tags]" {
		t.Errorf("contact_updated fields = %s", got)
	}
}

// Every RPC over the Connect protocols, with the generated client.
func TestContactLifecycleConnect(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	for protocol := range map[string]bool{"connect+json": true, "connect+proto": true, "grpc": true} {
		t.Run(protocol, func(t *testing.T) {
			ctx := context.Background()
			c := f.client(protocol, f.annKey)
			cr, err := c.CreateContact(ctx, &switchboardv1.CreateContactRequest{Contact: &switchboardv1.ContactInput{
				Name: proto.String("Ada " + protocol), Email: proto.String("ada@example.com"), Tags: []string{"math", " math "},
			}})
			if err != nil {
				t.Fatalf("CreateContact: %v", err)
			}
			id := cr.GetContact().GetId()
			if cr.GetContact().GetEmail() != "ada@example.com" || !slices.Equal(cr.GetContact().GetTags(), []string{"math"}) ||
				cr.GetContact().GetUserId() != f.ann.ID {
				t.Fatalf("created %v", cr.GetContact())
			}
			g, err := c.GetContact(ctx, &switchboardv1.GetContactRequest{Id: id})
			if err != nil || !proto.Equal(g.GetContact(), cr.GetContact()) {
				t.Fatalf("GetContact = %v, %v; want %v", g, err, cr.GetContact())
			}
			l, err := c.ListContacts(ctx, &switchboardv1.ListContactsRequest{Search: "Ada " + protocol})
			if err != nil || len(l.GetContacts()) != 1 || l.GetContacts()[0].GetId() != id || l.GetPagination().GetTotal() != 1 {
				t.Fatalf("ListContacts = %v, %v", l, err)
			}
			u, err := c.UpdateContact(ctx, &switchboardv1.UpdateContactRequest{Id: id, Contact: &switchboardv1.ContactInput{
				Email: proto.String(""), Company: proto.String("Analytical Engines"),
			}})
			if err != nil || u.GetContact().Email != nil || u.GetContact().GetCompany() != "Analytical Engines" ||
				u.GetContact().GetName() != "Ada "+protocol {
				t.Fatalf("UpdateContact = %v, %v", u, err)
			}
			d, err := c.DeleteContact(ctx, &switchboardv1.DeleteContactRequest{Id: id})
			if err != nil || !proto.Equal(d.GetContact(), u.GetContact()) {
				t.Fatalf("DeleteContact = %v, %v", d, err)
			}
			_, err = c.GetContact(ctx, &switchboardv1.GetContactRequest{Id: id})
			servertest.WantCode(t, err, connect.CodeNotFound)
			_, err = c.CreateContact(ctx, &switchboardv1.CreateContactRequest{Contact: &switchboardv1.ContactInput{Email: proto.String("x@y.z")}})
			servertest.WantCode(t, err, connect.CodeInvalidArgument)
			_, err = c.ListContacts(ctx, &switchboardv1.ListContactsRequest{Limit: -1})
			servertest.WantCode(t, err, connect.CodeInvalidArgument)
		})
	}
}

// The RPC form omits what the REST form writes as null, and both write tags
// and cards as arrays.
func TestContactRenderings(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	id := f.create(t, f.api, map[string]any{"name": "Sparse"})["id"].(string)
	res := f.api.Do(http.MethodPost, "/switchboard.v1.ContactService/GetContact", map[string]any{"id": id},
		"Connect-Protocol-Version", "1")
	if res.Status != http.StatusOK {
		t.Fatalf("Connect GET: %d %s", res.Status, res.Body)
	}
	rpc := res.JSON(t)["contact"].(map[string]any)
	if got := fmt.Sprint(slices.Sorted(maps.Keys(rpc))); got != "[cards createdAt id name tags updatedAt userId]" {
		t.Fatalf("RPC keys = %s: %s", got, res.Body)
	}
	if fmt.Sprint(rpc["tags"], rpc["cards"]) != "[] []" {
		t.Fatalf("RPC tags/cards: %s", res.Body)
	}
	rest := f.api.Do(http.MethodGet, "/api/v2/contacts/"+id, nil).JSON(t)["contact"].(map[string]any)
	if len(rest) != 20 {
		t.Fatalf("REST contact has %d keys, want all 20: %v", len(rest), slices.Sorted(maps.Keys(rest)))
	}
	list := f.list(t, f.api, nil)["contacts"].([]any)[0].(map[string]any)
	if fmt.Sprint(list["tags"], list["cards"]) != "[] []" {
		t.Fatalf("list tags/cards: %v", list)
	}
}

// Document 1, Contact: the list's card projection has four fields, the
// detail's six (assignee always present); no cards gives [].
func TestCardProjections(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	grace := f.create(t, f.api, map[string]any{"name": "Grace"})["id"].(string)
	lonely := f.create(t, f.api, map[string]any{"name": "Lonely"})["id"].(string)
	due := time.Date(2025, 7, 1, 17, 0, 0, 0, time.UTC)
	navy := f.newCard(t, f.ann.ID, "Navy contract", func(c *ent.CardCreate) {
		c.SetStatus(card.StatusNegotiation).SetPriority(card.PriorityUrgent).SetAssignee(card.AssigneeAgent).SetDueDate(due)
	})
	talk := f.newCard(t, f.ann.ID, "Compiler talk", nil)
	t0 := f.s.Clock.Now()
	// Linked second but created earlier: links are ordered by when they were made.
	l2 := f.link(t, f.ann.ID, talk.ID, grace, t0.Add(time.Second), nil)
	l1 := f.link(t, f.ann.ID, navy.ID, grace, t0, func(c *ent.CardContactCreate) {
		c.SetRole("decision maker").SetInvolvement("primary").SetCanDelegate(true)
	})

	detail := f.api.Do(http.MethodGet, "/api/v2/contacts/"+grace, nil).JSON(t)["contact"].(map[string]any)
	cards := detail["cards"].([]any)
	if len(cards) != 2 {
		t.Fatalf("detail cards = %v", cards)
	}
	first, second := cards[0].(map[string]any), cards[1].(map[string]any)
	if first["id"] != l1.ID || first["cardId"] != navy.ID || first["contactId"] != grace || first["role"] != "decision maker" ||
		first["involvement"] != "primary" || first["canDelegate"] != true {
		t.Fatalf("first link = %v", first)
	}
	if second["id"] != l2.ID || second["role"] != nil || second["involvement"] != "related" || second["canDelegate"] != false {
		t.Fatalf("second link = %v", second)
	}
	if got := fmt.Sprint(first["card"]); got != fmt.Sprintf("map[assignee:agent dueDate:2025-07-01T17:00:00Z id:%s priority:urgent status:negotiation title:Navy contract]", navy.ID) {
		t.Fatalf("detail card = %s", got)
	}
	if got := fmt.Sprint(second["card"]); got != fmt.Sprintf("map[assignee:human dueDate:<nil> id:%s priority:medium status:active title:Compiler talk]", talk.ID) {
		t.Fatalf("detail card without due date = %s", got)
	}

	list := f.list(t, f.api, nil)["contacts"].([]any)
	if names := contactNames(f.list(t, f.api, nil)); !slices.Equal(names, []string{"Grace", "Lonely"}) {
		t.Fatalf("list order = %s", names)
	}
	for _, l := range list[0].(map[string]any)["cards"].([]any) {
		if got := fmt.Sprint(slices.Sorted(maps.Keys(l.(map[string]any)["card"].(map[string]any)))); got != "[id priority status title]" {
			t.Fatalf("list card keys = %s", got)
		}
	}
	if got := fmt.Sprint(list[1].(map[string]any)["cards"]); got != "[]" {
		t.Fatalf("lonely's cards = %s", got)
	}

	// The RPC form of the detail: assignee present, dueDate omitted when none.
	c := f.client("connect+json", f.annKey)
	g, err := c.GetContact(context.Background(), &switchboardv1.GetContactRequest{Id: grace})
	if err != nil {
		t.Fatal(err)
	}
	if b := g.GetContact().GetCards()[1].GetCard(); b.GetAssignee() != "human" || b.DueDate != nil {
		t.Fatalf("RPC brief = %v", b)
	}
	if !g.GetContact().GetCards()[0].GetCard().GetDueDate().AsTime().Equal(due) {
		t.Fatalf("RPC due date = %v", g.GetContact().GetCards()[0].GetCard().GetDueDate())
	}

	// Delete answers the detail as it was and takes the links with it.
	before := f.counts(t)
	res := f.api.Do(http.MethodDelete, "/api/v2/contacts/"+grace, nil)
	if res.Status != http.StatusOK || len(res.JSON(t)["contact"].(map[string]any)["cards"].([]any)) != 2 {
		t.Fatalf("DELETE: %d %s", res.Status, res.Body)
	}
	after := f.counts(t)
	if after.contacts != before.contacts-1 || after.cardContacts != before.cardContacts-2 || after.activity != before.activity+1 {
		t.Fatalf("rows before %+v after %+v", before, after)
	}
	if n, _ := f.s.DB.Card.Query().Count(context.Background()); n != 2 {
		t.Fatalf("deleting a contact removed cards: %d left", n)
	}
	entries := f.activity(t, f.ann.ID)
	if last := entries[len(entries)-1]; fmt.Sprint(metadata(t, last)["cardIds"]) != fmt.Sprint([]string{navy.ID, talk.ID}) {
		t.Fatalf("contact_deleted metadata = %s", last.Metadata)
	}
	_ = lonely
}

// The dashboard session is a caller too; its actor is the account's name.
func TestSessionCallerIsTheActor(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	f.create(t, f.ann.Session, map[string]any{"name": "Via session"})
	if e := f.activity(t, f.ann.ID); len(e) != 1 || e[0].Actor != "Ann" {
		t.Fatalf("activity = %v", e)
	}
	// A key limited to another scope may not touch contacts.
	queueOnly := f.s.WithKey(f.ann.NewKey("queue-bot", "queue"))
	servertest.WantError(t, queueOnly.Do(http.MethodGet, "/api/v2/contacts", nil), http.StatusForbidden)
}

// Racing deletes of one contact: exactly one succeeds, the rest are 404, and
// the feed says it once.
func TestConcurrentDeletes(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	id := f.create(t, f.api, map[string]any{"name": "Racy"})["id"].(string)
	statuses := make(chan int, 6)
	var wg sync.WaitGroup
	for range cap(statuses) {
		wg.Go(func() { statuses <- f.api.Do(http.MethodDelete, "/api/v2/contacts/"+id, nil).Status })
	}
	wg.Wait()
	close(statuses)
	got := map[int]int{}
	for s := range statuses {
		got[s]++
	}
	if got[http.StatusOK] != 1 || got[http.StatusNotFound] != cap(statuses)-1 {
		t.Fatalf("statuses = %v", got)
	}
	var deleted int
	for _, e := range f.activity(t, f.ann.ID) {
		if e.Action == "contact_deleted" {
			deleted++
		}
	}
	if deleted != 1 {
		t.Fatalf("%d contact_deleted entries", deleted)
	}
}
