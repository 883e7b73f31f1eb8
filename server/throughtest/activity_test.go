package throughtest

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

func actions(t *testing.T, res *servertest.Response) []string {
	t.Helper()
	if res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	var out []string
	for _, e := range res.JSON(t)["data"].([]any) {
		out = append(out, e.(map[string]any)["action"].(string))
	}
	return out
}

// Document 1 "Events", activity feed: categories, user scope, paging.
func TestFeed(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	api := s.WithKey(ann.NewKey("Scout"))
	res := api.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Task"})
	if res.Status != 201 {
		t.Fatal(res.Status)
	}
	id := res.JSON(t)["item"].(map[string]any)["id"].(string)
	api.Do(http.MethodPost, "/api/v2/queue/"+id+"/confirm", map[string]any{"action": "approve"})
	api.Do(http.MethodPatch, "/api/v2/settings", `{"queueAutoApprove":true}`)
	bob := s.SignUp("bob")
	s.WithKey(bob.NewKey("b")).Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Bob's"})

	all := actions(t, ann.Session.Do(http.MethodGet, "/api/activity", nil))
	for _, want := range []string{"card_created", "queue_added", "queue_status_changed", "settings_updated"} {
		if !slices.Contains(all, want) {
			t.Errorf("feed lacks %s: %v", want, all)
		}
	}
	if all[0] != "settings_updated" {
		t.Errorf("newest first: %v", all)
	}
	queue := actions(t, ann.Session.Do(http.MethodGet, "/api/activity?category=queue", nil))
	if len(queue) != 2 || slices.Contains(queue, "card_created") {
		t.Errorf("category=queue: %v", queue)
	}
	both := actions(t, ann.Session.Do(http.MethodGet, "/api/activity?categories=queue,settings", nil))
	if len(both) != 3 {
		t.Errorf("categories=queue,settings: %v", both)
	}
	bobs := actions(t, bob.Session.Do(http.MethodGet, "/api/activity", nil))
	if len(bobs) != 2 { // card_created, queue_added of bob's own item
		t.Errorf("bob's feed: %v", bobs)
	}
	// Paging with the cursor covers the feed exactly once.
	var seen []string
	cursor := ""
	for range 10 {
		res := ann.Session.Do(http.MethodGet, "/api/activity?limit=2&cursor="+cursor, nil)
		body := res.JSON(t)
		for _, e := range body["data"].([]any) {
			seen = append(seen, e.(map[string]any)["id"].(string))
		}
		next, _ := body["nextCursor"].(string)
		if next == "" {
			if v, ok := body["nextCursor"]; !ok || v != nil {
				t.Fatalf("nextCursor must be null at the end: %s", res.Body)
			}
			break
		}
		cursor = next
	}
	if len(seen) != len(all) || len(slices.Compact(slices.Clone(seen))) != len(seen) {
		t.Fatalf("paged %d entries, feed has %d", len(seen), len(all))
	}
	for _, bad := range []string{"?category=weather", "?categories=queue,nope", "?limit=-1", "?cursor=not-an-entry"} {
		if res := ann.Session.Do(http.MethodGet, "/api/activity"+bad, nil); res.Status != 400 {
			t.Errorf("%s: %d %s", bad, res.Status, res.Body)
		}
	}
	if res := api.Do(http.MethodGet, "/api/activity", nil); res.Status != http.StatusForbidden {
		t.Errorf("feed with an API key: %d (session only)", res.Status)
	}
}

func TestWriteRefusesUnknownActions(t *testing.T) {
	s := servertest.New(t)
	ann := s.SignUp("ann")
	write := func(e activity.Entry) error {
		return s.DB.InTx(context.Background(), func(tx *db.Tx) error { return activity.Write(context.Background(), tx, e) })
	}
	if err := write(activity.Entry{UserID: ann.ID, Action: "made_coffee", At: s.Clock.Now()}); err == nil {
		t.Fatal("unknown action accepted")
	}
	// Issue 11, item 2: an entry's time is the writer's clock reading, never
	// the wall clock read here.
	if err := write(activity.Entry{UserID: ann.ID, Action: "queue_added"}); err == nil ||
		!strings.Contains(err.Error(), "Entry.At is required") {
		t.Fatalf("an entry without a time: %v", err)
	}
	for _, a := range []string{"queue_added", "card_auto_completed", "contact_deleted", "settings_updated", "sync_completed"} {
		if _, ok := activity.CategoryOf(a); !ok {
			t.Errorf("%s has no category", a)
		}
	}
}
