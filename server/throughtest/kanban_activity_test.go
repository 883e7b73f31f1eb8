package throughtest

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Document 1, "Kanban": the card activity feed, newest first, paged by cursor,
// nextCursor null at the end; session only.
func TestListCardActivity(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	c := b.create(t, map[string]any{"title": "T"})
	id := c["id"].(string)
	for i := range 4 {
		servertest.WantStatus(t, b.api.Do(http.MethodPut, "/api/v2/kanban/"+id, map[string]any{"summary": fmt.Sprint("v", i)}), 200)
	}
	// Ann's own session edits are attributed to her name, key edits to the key's label.
	servertest.WantStatus(t, b.ann.Session.Do(http.MethodPut, "/api/v2/kanban/"+id, map[string]any{"priority": "low"}), 200)

	sess := b.ann.Session
	all := sess.Do(http.MethodGet, "/api/kanban/"+id+"/activity", nil).JSON(t)
	data := all["data"].([]any)
	if all["success"] != true || len(data) != 6 {
		t.Fatalf("feed = %v", all)
	}
	if v, ok := all["nextCursor"]; !ok || v != nil {
		t.Errorf("REST nextCursor at the end = %v (present %v), want null", v, ok)
	}
	newest, oldest := data[0].(map[string]any), data[5].(map[string]any)
	if newest["actor"] != "Ann" || newest["summary"] != `Updated "T": priority` || newest["isCrossUser"] != false || newest["cardId"] != id || newest["category"] != "board" {
		t.Errorf("newest = %v", newest)
	}
	if oldest["action"] != "card_created" || oldest["actor"] != "agent-007" {
		t.Errorf("oldest = %v", oldest)
	}
	if keys := slices.Sorted(maps.Keys(newest)); !slices.Equal(keys, []string{"action", "actor", "cardId", "category", "createdAt", "id", "isCrossUser", "summary"}) {
		t.Errorf("entry keys = %v", keys)
	}

	// Pages of two follow the cursor to the end.
	var ids []string
	cursor := ""
	for range 4 {
		path := "/api/kanban/" + id + "/activity?limit=2"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		page := sess.Do(http.MethodGet, path, nil).JSON(t)
		for _, e := range page["data"].([]any) {
			ids = append(ids, e.(map[string]any)["id"].(string))
		}
		next, _ := page["nextCursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	var want []string
	for _, e := range data {
		want = append(want, e.(map[string]any)["id"].(string))
	}
	if !slices.Equal(ids, want) {
		t.Errorf("paged ids %v, want %v", ids, want)
	}
	// RPC form: nextCursor absent at the end, present mid-way.
	raw := rpc(sess, "ListCardActivity", map[string]any{"id": id}).JSON(t)
	if _, ok := raw["nextCursor"]; ok {
		t.Errorf("RPC nextCursor present at the end: %v", raw)
	}
	if raw = rpc(sess, "ListCardActivity", map[string]any{"id": id, "limit": 5}).JSON(t); raw["nextCursor"] == nil {
		t.Errorf("RPC nextCursor missing mid-way")
	}

	for _, tc := range []struct {
		name   string
		path   string
		status int
	}{
		{"limit over 100 is cut", "?limit=1000", 200},
		{"negative limit", "?limit=-1", 400},
		{"unknown cursor", "?cursor=nope", 400},
		{"unknown parameter", "?since=yesterday", 400},
	} {
		res := sess.Do(http.MethodGet, "/api/kanban/"+id+"/activity"+tc.path, nil)
		if tc.status >= 400 {
			servertest.WantError(t, res, tc.status)
		} else {
			servertest.WantStatus(t, res, tc.status)
		}
	}
	// Session only: a valid key is 403, no credential 401.
	servertest.WantError(t, b.api.Do(http.MethodGet, "/api/kanban/"+id+"/activity", nil), 403)
	servertest.WantError(t, b.s.Anonymous().Do(http.MethodGet, "/api/kanban/"+id+"/activity", nil), 401)

	// The history of a deleted card stays readable by its owner.
	servertest.WantStatus(t, b.api.Do(http.MethodDelete, "/api/v2/kanban/"+id, nil), 200)
	gone := sess.Do(http.MethodGet, "/api/kanban/"+id+"/activity", nil).JSON(t)["data"].([]any)
	if len(gone) != 7 || gone[0].(map[string]any)["action"] != "card_deleted" {
		t.Errorf("deleted card's feed = %v", gone)
	}
	servertest.WantError(t, sess.Do(http.MethodGet, "/api/kanban/never-existed/activity", nil), 404)
}

// Document 1, "Events": activity on a card mirrors to linked cards of other
// accounts, marked isCrossUser and prefixed with the actor's name.
func TestActivityMirrorsToLinkedCards(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	ctx := context.Background()
	bob := b.s.SignUp("bob")
	a := b.create(t, map[string]any{"title": "Shared", "checklist": []map[string]any{{"text": "x"}}})
	aID := a["id"].(string)
	cardB := b.s.DB.Card.Create().SetUserID(bob.ID).SetTitle("Shared (bob)").SetOriginCardID(aID).SetOriginUserID(b.ann.ID).SaveX(ctx)

	servertest.WantStatus(t, b.api.Do(http.MethodPut, "/api/v2/kanban/"+aID, map[string]any{"status": "paused"}), 200)
	item := a["checklist"].([]any)[0].(map[string]any)["id"].(string)
	servertest.WantStatus(t, b.api.Do(http.MethodPatch, itemPath(aID, item), map[string]any{"completed": true}), 200)

	res := bob.Session.Do(http.MethodGet, "/api/kanban/"+cardB.ID+"/activity", nil)
	servertest.WantStatus(t, res, 200)
	var got []string
	for _, e := range res.JSON(t)["data"].([]any) {
		e := e.(map[string]any)
		if e["isCrossUser"] != true || e["cardId"] != cardB.ID || !strings.HasPrefix(e["summary"].(string), "Ann: ") {
			t.Errorf("mirrored entry = %v", e)
		}
		got = append(got, e["action"].(string))
	}
	slices.Sort(got)
	if want := []string{"card_auto_completed", "card_moved", "checklist_completed"}; !slices.Equal(got, want) {
		t.Errorf("bob's mirror = %v, want %v", got, want)
	}
	// Ann's own feed holds no cross-user entries, and bob's global feed is his.
	if n := b.s.DB.ActivityEntry.Query().Where(activityentry.UserID(b.ann.ID), activityentry.IsCrossUser(true)).CountX(ctx); n != 0 {
		t.Errorf("ann has %d cross-user entries", n)
	}
	// The delete is written before the card goes, so it mirrors too.
	servertest.WantStatus(t, b.api.Do(http.MethodDelete, "/api/v2/kanban/"+aID, nil), 200)
	if !b.s.DB.ActivityEntry.Query().Where(activityentry.CardID(cardB.ID), activityentry.Action("card_deleted"), activityentry.IsCrossUser(true)).ExistX(ctx) {
		t.Errorf("card_deleted did not mirror to bob's card")
	}
	// Bob cannot read ann's card feed, nor ann his.
	servertest.WantError(t, bob.Session.Do(http.MethodGet, "/api/kanban/"+aID+"/activity", nil), 404)
	servertest.WantError(t, b.ann.Session.Do(http.MethodGet, "/api/kanban/"+cardB.ID+"/activity", nil), 404)
}

// RULINGS "Kanban and contacts": every card action is written, with the card id,
// in the transaction that performs it.
func TestActivityForEveryAction(t *testing.T) {
	t.Parallel()
	b := newBoard(t)
	ctx := context.Background()
	c := b.create(t, map[string]any{"title": "T", "checklist": []map[string]any{{"text": "a"}, {"text": "b"}}})
	id := c["id"].(string)
	a := c["checklist"].([]any)[0].(map[string]any)["id"].(string)
	bb := c["checklist"].([]any)[1].(map[string]any)["id"].(string)
	steps := []struct {
		method, path string
		body         any
	}{
		{http.MethodPut, "/api/v2/kanban/" + id, map[string]any{"title": "T2"}},
		{http.MethodPut, "/api/v2/kanban/" + id, map[string]any{"status": "planning"}},
		{http.MethodPatch, itemPath(id, a), map[string]any{"completed": true}},
		{http.MethodPatch, itemPath(id, a), map[string]any{"completed": false}},
		{http.MethodPatch, itemPath(id, a), map[string]any{"completed": true}},
		{http.MethodPatch, itemPath(id, bb), map[string]any{"completed": true}},
		{http.MethodDelete, "/api/v2/kanban/" + id, nil},
	}
	for _, st := range steps {
		servertest.WantStatus(t, b.api.Do(st.method, st.path, st.body), 200)
	}
	want := []string{"card_created", "card_updated", "card_moved", "checklist_completed", "checklist_unchecked",
		"checklist_completed", "checklist_completed", "card_auto_completed", "card_deleted"}
	if got := b.actions(t, id); !slices.Equal(got, want) {
		t.Errorf("actions = %v\nwant      %v", got, want)
	}
	for _, e := range b.s.DB.ActivityEntry.Query().Where(activityentry.CardID(id)).AllX(ctx) {
		if e.UserID != b.ann.ID || e.Actor != "agent-007" || e.Category != "board" || e.Summary == "" {
			t.Errorf("entry = %+v", e)
		}
	}
}
