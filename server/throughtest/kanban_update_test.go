package throughtest

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/cardcontact"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Kanban and contacts": PUT changes only the supplied fields; a status
// change is a move to the end of the new column.
func TestUpdateCardChangesOnlySuppliedFields(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	b.create(t, map[string]any{"title": "already paused", "status": "paused"})
	c := b.create(t, map[string]any{"title": "Plan", "description": "old", "priority": "high", "labels": []string{"a"},
		"dueDate": "2030-01-02T03:04:05Z", "coverColor": "#fff"})
	id := c["id"].(string)

	b.s.Clock.Advance(time.Minute)
	res := b.api.Do(http.MethodPut, "/api/v2/kanban/"+id, map[string]any{"description": "new", "status": "paused"})
	servertest.WantStatus(t, res, 200)
	got := res.JSON(t)["card"].(map[string]any)
	for k, want := range map[string]any{
		"title": "Plan", "description": "new", "priority": "high", "status": "paused", "order": float64(1),
		"dueDate": "2030-01-02T03:04:05Z", "coverColor": "#fff", "createdAt": c["createdAt"],
	} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	if got["updatedAt"] == c["updatedAt"] || got["lastActivityAt"] == c["lastActivityAt"] {
		t.Errorf("updatedAt/lastActivityAt not bumped: %v", got)
	}
	if l := got["labels"].([]any); len(l) != 1 || l[0] != "a" {
		t.Errorf("labels = %v", l)
	}
	if acts := b.actions(t, id); !slices.Equal(acts, []string{"card_created", "card_moved", "card_updated"}) {
		t.Errorf("activity = %v", acts)
	}
	feed := b.ann.Session.Do(http.MethodGet, "/api/kanban/"+id+"/activity", nil)
	servertest.WantStatus(t, feed, 200)
	summaries := map[string]string{}
	for _, e := range feed.JSON(t)["data"].([]any) {
		summaries[e.(map[string]any)["action"].(string)] = e.(map[string]any)["summary"].(string)
	}
	if summaries["card_moved"] != `Moved "Plan" from active to paused` || summaries["card_updated"] != `Updated "Plan": description` {
		t.Errorf("summaries = %v", summaries)
	}

	// An empty string clears an optional field; an explicit order is kept on a move.
	res = b.api.Do(http.MethodPut, "/api/v2/kanban/"+id, map[string]any{"description": "", "coverColor": "", "status": "leads", "order": 5})
	servertest.WantStatus(t, res, 200)
	got = res.JSON(t)["card"].(map[string]any)
	if got["description"] != nil || got["coverColor"] != nil || got["order"] != float64(5) || got["status"] != "leads" {
		t.Errorf("after clearing: %v", got)
	}

	// Supplying what is already there changes nothing: no activity, same updatedAt.
	before := b.get(t, id)
	n := len(b.actions(t, id))
	b.s.Clock.Advance(time.Minute)
	res = b.api.Do(http.MethodPut, "/api/v2/kanban/"+id, map[string]any{"title": "Plan", "priority": "high", "status": "leads"})
	servertest.WantStatus(t, res, 200)
	if after := res.JSON(t)["card"].(map[string]any); after["updatedAt"] != before["updatedAt"] {
		t.Errorf("no-op PUT moved updatedAt %v → %v", before["updatedAt"], after["updatedAt"])
	}
	if len(b.actions(t, id)) != n {
		t.Errorf("no-op PUT wrote activity: %v", b.actions(t, id))
	}
	// An empty body is refused: there is nothing to change.
	servertest.WantError(t, b.api.Do(http.MethodPut, "/api/v2/kanban/"+id, `{}`), 400)
}

// RULINGS "Kanban and contacts": a supplied checklist replaces the card's;
// entries with an id keep it and their source fields.
func TestUpdateCardReplacesChecklist(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	ctx := context.Background()
	c := b.create(t, map[string]any{"title": "T", "checklist": []map[string]any{{"text": "keep"}, {"text": "drop"}, {"text": "toggle"}}})
	id := c["id"].(string)
	list := c["checklist"].([]any)
	keepID, dropID, toggleID := list[0].(map[string]any)["id"].(string), list[1].(map[string]any)["id"].(string), list[2].(map[string]any)["id"].(string)
	b.s.DB.ChecklistItem.UpdateOneID(keepID).SetSourceType("queue").SetSourceID("q1").SetSourceLabel("task_queued").ExecX(ctx)

	res := b.api.Do(http.MethodPut, "/api/v2/kanban/"+id, map[string]any{"checklist": []map[string]any{
		{"id": toggleID, "text": "toggle", "completed": true},
		{"id": keepID, "text": "kept, reworded"},
		{"text": "new"},
	}})
	servertest.WantStatus(t, res, 200)
	got := res.JSON(t)["card"].(map[string]any)["checklist"].([]any)
	if len(got) != 3 {
		t.Fatalf("checklist = %v", got)
	}
	first, second, third := got[0].(map[string]any), got[1].(map[string]any), got[2].(map[string]any)
	if first["id"] != toggleID || first["completed"] != true || first["order"] != float64(0) {
		t.Errorf("toggled item = %v", first)
	}
	if second["id"] != keepID || second["text"] != "kept, reworded" || second["sourceType"] != "queue" ||
		second["sourceId"] != "q1" || second["sourceLabel"] != "task_queued" || second["order"] != float64(1) {
		t.Errorf("kept item = %v", second)
	}
	if third["id"] == dropID || third["text"] != "new" || third["completed"] != false {
		t.Errorf("new item = %v", third)
	}
	if b.s.DB.ChecklistItem.Query().Where(checklistitem.ID(dropID)).ExistX(ctx) {
		t.Errorf("dropped item still stored")
	}
	if acts := b.actions(t, id); !slices.Equal(acts, []string{"card_created", "checklist_completed", "card_updated"}) {
		t.Errorf("activity = %v", acts)
	}

	// An id that is not one of this card's items: 404 as any reference to
	// another card's row or none (RULINGS "Input at the boundary"), nothing written.
	other := b.create(t, map[string]any{"title": "other", "checklist": []map[string]any{{"text": "x"}}})
	foreign := other["checklist"].([]any)[0].(map[string]any)["id"].(string)
	before := b.count(t)
	for _, bad := range []string{foreign, "does-not-exist"} {
		res = b.api.Do(http.MethodPut, "/api/v2/kanban/"+id, map[string]any{"title": "renamed", "checklist": []map[string]any{{"text": "a"}, {"id": bad, "text": "b"}}})
		servertest.WantError(t, res, 404)
	}
	if after := b.count(t); after != before {
		t.Errorf("refused PUT wrote: %+v → %+v", before, after)
	}
	if b.get(t, id)["title"] != "T" {
		t.Errorf("refused PUT renamed the card")
	}
}

// A checklist PUT that closes the last open item auto-completes the card, unless
// the same request names a status.
func TestUpdateCardChecklistAutoCompletes(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	b.create(t, map[string]any{"title": "done before", "status": "completed"})
	c := b.create(t, map[string]any{"title": "T", "checklist": []map[string]any{{"text": "a", "completed": true}, {"text": "b"}}})
	id := c["id"].(string)
	items := c["checklist"].([]any)
	all := []map[string]any{
		{"id": items[0].(map[string]any)["id"], "text": "a", "completed": true},
		{"id": items[1].(map[string]any)["id"], "text": "b", "completed": true},
	}
	got := b.api.Do(http.MethodPut, "/api/v2/kanban/"+id, map[string]any{"checklist": all}).JSON(t)["card"].(map[string]any)
	if got["status"] != "completed" || got["order"] != float64(1) {
		t.Errorf("after closing the last item: status %v order %v", got["status"], got["order"])
	}
	if acts := b.actions(t, id); !slices.Equal(acts, []string{"card_created", "checklist_completed", "card_auto_completed"}) {
		t.Errorf("activity = %v", acts)
	}

	// Explicit status wins over the rule.
	c2 := b.create(t, map[string]any{"title": "T2", "checklist": []map[string]any{{"text": "a"}}})
	item := c2["checklist"].([]any)[0].(map[string]any)["id"]
	got = b.api.Do(http.MethodPut, "/api/v2/kanban/"+c2["id"].(string), map[string]any{
		"status": "paused", "checklist": []map[string]any{{"id": item, "text": "a", "completed": true}},
	}).JSON(t)["card"].(map[string]any)
	if got["status"] != "paused" {
		t.Errorf("explicit status overridden: %v", got["status"])
	}
	// A card created with every item done is not auto-completed: no item was closed.
	c3 := b.create(t, map[string]any{"title": "T3", "checklist": []map[string]any{{"text": "a", "completed": true}}})
	if c3["status"] != "active" {
		t.Errorf("created card status %v", c3["status"])
	}
}

// Contacts: a supplied list replaces the card's; links that stay keep their id;
// involvement defaults to related; another account's contact is 404.
func TestUpdateCardReplacesContacts(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	ctx := context.Background()
	ada := b.contact(t, b.ann.ID, "Ada", nil)
	bea := b.contact(t, b.ann.ID, "Bea", nil)
	cy := b.contact(t, b.ann.ID, "Cy", nil)
	c := b.create(t, map[string]any{"title": "T", "contacts": []map[string]any{
		{"contactId": ada.ID, "involvement": "owner"}, {"contactId": bea.ID},
	}})
	id := c["id"].(string)
	adaLink := c["contacts"].([]any)[0].(map[string]any)
	if adaLink["involvement"] != "owner" || c["contacts"].([]any)[1].(map[string]any)["involvement"] != "related" {
		t.Fatalf("links = %v", c["contacts"])
	}

	res := b.api.Do(http.MethodPut, "/api/v2/kanban/"+id, map[string]any{"contacts": []map[string]any{
		{"contactId": ada.ID, "role": "lead", "canDelegate": true}, {"contactId": cy.ID},
	}})
	servertest.WantStatus(t, res, 200)
	links := res.JSON(t)["card"].(map[string]any)["contacts"].([]any)
	if len(links) != 2 {
		t.Fatalf("links = %v", links)
	}
	first := links[0].(map[string]any)
	if first["id"] != adaLink["id"] || first["role"] != "lead" || first["canDelegate"] != true || first["involvement"] != "related" {
		t.Errorf("kept link = %v (was %v)", first, adaLink)
	}
	if links[1].(map[string]any)["contactId"] != cy.ID {
		t.Errorf("second link = %v", links[1])
	}
	if b.s.DB.CardContact.Query().Where(cardcontact.ContactID(bea.ID)).ExistX(ctx) {
		t.Errorf("Bea's link survived")
	}

	bob := b.s.SignUp("bob")
	bobs := b.contact(t, bob.ID, "Bob's contact", nil)
	before := b.count(t)
	for _, bad := range []string{bobs.ID, "no-such-contact"} {
		res = b.api.Do(http.MethodPut, "/api/v2/kanban/"+id, map[string]any{"title": "x", "contacts": []map[string]any{{"contactId": bad}}})
		servertest.WantError(t, res, 404)
		res = b.api.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "x", "contacts": []map[string]any{{"contactId": bad}}})
		servertest.WantError(t, res, 404)
	}
	if after := b.count(t); after != before {
		t.Errorf("refused writes stored: %+v → %+v", before, after)
	}
}

// Deleting a card takes its checklist and contact links with it and answers
// the card as it was.
func TestDeleteCard(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	ctx := context.Background()
	ct := b.contact(t, b.ann.ID, "Ada", nil)
	c := b.create(t, map[string]any{"title": "T", "checklist": []map[string]any{{"text": "a"}}, "contacts": []map[string]any{{"contactId": ct.ID}}})
	id := c["id"].(string)
	res := b.api.Do(http.MethodDelete, "/api/v2/kanban/"+id, nil)
	servertest.WantStatus(t, res, 200)
	got := res.JSON(t)["card"].(map[string]any)
	if got["id"] != id || len(got["checklist"].([]any)) != 1 || len(got["contacts"].([]any)) != 1 {
		t.Errorf("deleted card = %v", got)
	}
	if n := b.count(t); n.cards != 0 || n.items != 0 || n.links != 0 {
		t.Errorf("left behind %+v", n)
	}
	if !b.s.DB.Contact.Query().ExistX(ctx) {
		t.Errorf("the contact itself was deleted")
	}
	servertest.WantError(t, b.api.Do(http.MethodGet, "/api/v2/kanban/"+id, nil), 404)
	servertest.WantError(t, b.api.Do(http.MethodDelete, "/api/v2/kanban/"+id, nil), 404)
	if acts := b.actions(t, id); !slices.Equal(acts, []string{"card_created", "card_deleted"}) {
		t.Errorf("activity = %v", acts)
	}
}
