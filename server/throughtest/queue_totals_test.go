package throughtest

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Issue 34 point 3: a page's total is read from counters the database keeps
// (internal/db/counts.go), not counted. After creates, moves, approvals,
// rejections and deletes racing on two accounts, every status's total and
// the whole queue's equal a COUNT(*) of the rows, on SQLite and PostgreSQL.
func TestPageTotalsEqualCountsAfterConcurrentChanges(t *testing.T) {
	e := setupQueue(t)
	bobAcct := e.s.SignUp("bob")
	bob := e.s.WithKey(bobAcct.NewKey("Scout"))
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	statuses := []string{"pending_confirmation", "ready", "in_progress", "done_today", "blocked", "later"}

	var ids []string
	for i := range 24 {
		ids = append(ids, e.create(t, map[string]any{"title": fmt.Sprintf("Seed %d", i)})["id"].(string))
	}
	var reqs []func() *servertest.Response
	for i := range 96 {
		id := ids[rng.IntN(len(ids))]
		switch op := rng.IntN(6); op {
		case 0:
			reqs = append(reqs, func() *servertest.Response {
				return e.api.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": fmt.Sprintf("Raced %d", i)})
			})
		case 1:
			reqs = append(reqs, func() *servertest.Response {
				return bob.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": fmt.Sprintf("Bob's %d", i)})
			})
		case 2:
			reqs = append(reqs, func() *servertest.Response { return e.api.Do(http.MethodDelete, "/api/v2/queue/"+id, nil) })
		case 3:
			action := []string{"approve", "reject"}[rng.IntN(2)]
			reqs = append(reqs, func() *servertest.Response {
				return e.api.Do(http.MethodPost, "/api/v2/queue/"+id+"/confirm", map[string]any{"id": id, "action": action})
			})
		default:
			to := statuses[rng.IntN(len(statuses))]
			reqs = append(reqs, func() *servertest.Response { return e.move(t, id, to) })
		}
	}
	changed := 0
	for i, r := range race(e, t, reqs) {
		switch {
		case r.Status < 300:
			changed++
		case r.Status >= 500:
			t.Fatalf("request %d: %d %s", i, r.Status, r.Body)
		}
	}
	if changed < len(reqs)/4 {
		t.Fatalf("only %d of %d changes applied: the race tested little", changed, len(reqs))
	}

	for _, who := range []struct {
		name   string
		userID string
		api    *servertest.Caller
	}{{"ann", e.ann.ID, e.api}, {"bob", bobAcct.ID, bob}} {
		userID, api := who.userID, who.api
		for _, status := range append([]string{""}, statuses...) {
			var want int
			q, args := `SELECT COUNT(*) FROM queue_items WHERE user_id = $1`, []any{userID}
			if status != "" {
				q, args = q+` AND status = $2`, append(args, status)
			}
			if err := e.s.DB.SQL.QueryRowContext(e.ctx, q, args...).Scan(&want); err != nil {
				t.Fatal(err)
			}
			res := api.Do(http.MethodGet, "/api/v2/queue?limit=1&status="+status, nil)
			if res.Status != http.StatusOK {
				t.Fatalf("%s list %q: %d %s", who.name, status, res.Status, res.Body)
			}
			got := res.JSON(t)["data"].(map[string]any)["pagination"].(map[string]any)["total"].(float64)
			if int(got) != want {
				t.Errorf("%s, status %q: total %v, COUNT(*) %d", who.name, status, got, want)
			}
		}
	}
}
