package throughtest

import (
	"net/http"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// A project's reviewer (and its lead) completes the queue_review rows of
// another member's project card, and nothing else there (RULINGS "Teams,
// projects, invites, profiles": a reviewer reads and completes queue_review
// checklist items on project cards); a contributor or observer is 403, an
// outsider 404, and the row is the owner's, written with the reviewer's name.
func TestReviewerCompletesReviewRows(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	pid := f.createProject(t, f.ann, nil)["id"].(string)
	f.addProjectMember(t, f.ann, pid, f.bob, "contributor")
	f.addProjectMember(t, f.ann, pid, f.cat, "reviewer")
	f.addProjectMember(t, f.ann, pid, f.dan, "observer")

	// Bob's item in the project, done: his card gets its review row.
	item := jsonObj(t, wantOK(t, f.bob.Session.Do(http.MethodPost, "/api/v2/queue",
		map[string]any{"title": "Draft the brief", "projectId": pid}), http.StatusCreated), "item")
	id := item["id"].(string)
	wantOK(t, f.bob.Session.Do(http.MethodPost, "/api/v2/queue/"+id+"/confirm", map[string]any{"action": "approve"}), http.StatusOK)
	wantOK(t, f.bob.Session.Do(http.MethodPost, "/api/v2/queue/"+id+"/result", map[string]any{"result": "drafted"}), http.StatusOK)
	cardID := item["cardId"].(string)
	var review, work string
	for _, row := range jsonList(t, wantOK(t, f.bob.Session.Do(http.MethodGet, "/api/v2/kanban/"+cardID, nil), http.StatusOK), "card", "checklist") {
		row := row.(map[string]any)
		switch row["sourceType"] {
		case "queue_review":
			review = row["id"].(string)
		case "queue":
			work = row["id"].(string)
		}
	}
	if review == "" || work == "" {
		t.Fatalf("bob's card has no review row and work row")
	}
	path := func(row string) string { return "/api/v2/kanban/" + cardID + "/checklist/" + row }
	complete := map[string]any{"completed": true}
	for _, c := range []struct {
		who    *servertest.Account
		row    string
		body   map[string]any
		status int
	}{
		{f.dan, review, complete, http.StatusForbidden},                                      // an observer
		{f.eve, review, complete, http.StatusNotFound},                                       // not in the project
		{f.cat, work, complete, http.StatusForbidden},                                        // not a review row
		{f.cat, review, map[string]any{"text": "Looks fine"}, http.StatusForbidden},          // more than completing
		{f.cat, review, map[string]any{"completed": true, "order": 0}, http.StatusForbidden}, // likewise
	} {
		servertest.WantError(t, c.who.Session.Do(http.MethodPatch, path(c.row), c.body), c.status)
	}
	got := jsonObj(t, wantOK(t, f.cat.Session.Do(http.MethodPatch, path(review), complete), http.StatusOK), "item")
	if got["completed"] != true || got["id"] != review {
		t.Fatalf("the reviewer's completion: %v", got)
	}
	// Bob's card holds it; the lead may reopen it.
	wantOK(t, f.ann.Session.Do(http.MethodPatch, path(review), map[string]any{"completed": false}), http.StatusOK)
	for _, row := range jsonList(t, wantOK(t, f.bob.Session.Do(http.MethodGet, "/api/v2/kanban/"+cardID, nil), http.StatusOK), "card", "checklist") {
		if row := row.(map[string]any); row["id"] == review && row["completed"] != false {
			t.Errorf("the review row after the lead reopened it: %v", row)
		}
	}
}

// The lead edits another member's project card, which stays the owner's;
// another member may not (403), an outsider's edit is 404.
func TestLeadEditsProjectCards(t *testing.T) {
	t.Parallel()
	f := newGroups(t)
	pid := f.createProject(t, f.ann, nil)["id"].(string)
	f.addProjectMember(t, f.ann, pid, f.bob, "contributor")
	f.addProjectMember(t, f.ann, pid, f.cat, "reviewer")
	card := jsonObj(t, wantOK(t, f.bob.Session.Do(http.MethodPost, "/api/v2/kanban",
		map[string]any{"title": "Brief", "projectId": pid}), http.StatusCreated), "card")
	path := "/api/v2/kanban/" + card["id"].(string)
	servertest.WantError(t, f.cat.Session.Do(http.MethodPut, path, map[string]any{"title": "Mine now"}), http.StatusForbidden)
	servertest.WantError(t, f.eve.Session.Do(http.MethodPut, path, map[string]any{"title": "Mine now"}), http.StatusNotFound)
	wantOK(t, f.ann.Session.Do(http.MethodPut, path, map[string]any{"title": "Brief, v2"}), http.StatusOK)
	got := jsonObj(t, wantOK(t, f.bob.Session.Do(http.MethodGet, path, nil), http.StatusOK), "card")
	if got["title"] != "Brief, v2" || got["userId"] != f.bob.ID {
		t.Fatalf("bob's card after the lead's edit: %v", got)
	}
	// A card outside any project stays its owner's alone, for the lead too.
	own := jsonObj(t, wantOK(t, f.bob.Session.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Private"}), http.StatusCreated), "card")
	servertest.WantError(t, f.ann.Session.Do(http.MethodPut, "/api/v2/kanban/"+own["id"].(string), map[string]any{"title": "x"}), http.StatusNotFound)
}
