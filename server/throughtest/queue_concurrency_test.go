package throughtest

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// race sends every request at once (as nearly as goroutines allow) and
// answers the responses in the order of reqs.
func race(e *queueEnv, t *testing.T, reqs []func() *servertest.Response) []*servertest.Response {
	out := make([]*servertest.Response, len(reqs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, do := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = do()
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// Issue 11 item 8, RULINGS "Queue": of 25 approves and 25 rejects of one
// pending item racing, exactly one wins, on SQLite and PostgreSQL. A loser
// is refused with a reason: 400 failed_precondition when the winner approved
// (the item is now ready), 404 when the winner rejected (it is gone)
// (docs/decisions.md). The winner's effects are the only ones written.
func TestConcurrentApproveRejectOneWins(t *testing.T) {
	e := setupQueue(t)
	for round := range 2 {
		id := e.create(t, map[string]any{"title": "Contended"})["id"].(string)
		var reqs []func() *servertest.Response
		for i := range 50 {
			action := []string{"approve", "reject"}[i%2]
			reqs = append(reqs, func() *servertest.Response {
				return e.api.Do(http.MethodPost, "/api/v2/queue/"+id+"/confirm", map[string]any{"id": id, "action": action})
			})
		}
		var winner string
		res := race(e, t, reqs)
		for i, r := range res {
			if r.Status == http.StatusOK {
				if winner != "" {
					t.Fatalf("round %d: both %s and request %d won: %s", round, winner, i, r.Body)
				}
				winner = []string{"approve", "reject"}[i%2]
			}
		}
		if winner == "" {
			t.Fatalf("round %d: nobody won", round)
		}
		lost := http.StatusBadRequest
		if winner == "reject" {
			lost = http.StatusNotFound
		}
		for i, r := range res {
			if r.Status == http.StatusOK {
				continue
			}
			if msg, _ := r.JSON(t)["error"].(string); r.Status != lost || msg == "" {
				t.Errorf("round %d, %s lost to %s: %d %s, want %d with a reason", round, []string{"approve", "reject"}[i%2], winner, r.Status, r.Body, lost)
			}
		}
		items := e.s.DB.QueueItem.Query().Where(queueitem.ID(id)).AllX(e.ctx)
		rows := e.rows(t, id)
		acts := e.s.DB.ActivityEntry.Query().Where(activityentry.ActionIn("queue_status_changed", "queue_deleted")).
			AllX(e.ctx)
		mine := slices.DeleteFunc(acts, func(a *ent.ActivityEntry) bool { return !strings.Contains(a.Metadata, id) })
		switch winner {
		case "approve":
			if len(items) != 1 || items[0].Status != queueitem.StatusReady || len(rows) != 1 {
				t.Fatalf("round %d: approve won but item %v, rows %d", round, items, len(rows))
			}
		case "reject":
			if len(items) != 0 || len(rows) != 0 {
				t.Fatalf("round %d: reject won but item %v, rows %d", round, items, len(rows))
			}
		}
		if len(mine) != 1 {
			t.Fatalf("round %d: %d activity entries for the confirmation, want 1", round, len(mine))
		}
	}
}

// Issue 11 item 8: 24 items created at once on one card append 24 checklist
// rows with distinct orders 0..23, on SQLite and PostgreSQL.
func TestConcurrentCreatesOnOneCardKeepOrdersDense(t *testing.T) {
	e := setupQueue(t)
	res := e.api.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Shared"})
	if res.Status != http.StatusCreated {
		t.Fatalf("create card: %d %s", res.Status, res.Body)
	}
	cardID := res.JSON(t)["card"].(map[string]any)["id"].(string)
	const n = 24
	reqs := make([]func() *servertest.Response, n)
	for i := range reqs {
		reqs[i] = func() *servertest.Response {
			return e.api.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Task", "cardId": cardID})
		}
	}
	for i, r := range race(e, t, reqs) {
		if r.Status != http.StatusCreated {
			t.Fatalf("create %d: %d %s", i, r.Status, r.Body)
		}
	}
	rows := e.s.DB.ChecklistItem.Query().Where(checklistitem.CardID(cardID)).AllX(e.ctx)
	var orders []int
	for _, r := range rows {
		orders = append(orders, int(r.Order))
	}
	slices.Sort(orders)
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(orders, want) {
		t.Fatalf("orders = %v, want 0..%d once each", orders, n-1)
	}
}

// Items created at once without a card each get a new card at the end of the
// active column; with cards created there through the board at the same time,
// the column's orders are distinct and dense, on SQLite and PostgreSQL: the
// bridge takes the column lock the board's own create takes.
func TestConcurrentNewCardsKeepColumnOrdersDense(t *testing.T) {
	e := setupQueue(t)
	const items, boardCards = 24, 8
	var reqs []func() *servertest.Response
	for range items {
		reqs = append(reqs, func() *servertest.Response {
			return e.api.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Own card"})
		})
	}
	for range boardCards {
		reqs = append(reqs, func() *servertest.Response {
			return e.api.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": "Board card", "status": "active"})
		})
	}
	for i, r := range race(e, t, reqs) {
		if r.Status != http.StatusCreated {
			t.Fatalf("create %d: %d %s", i, r.Status, r.Body)
		}
	}
	cards := e.s.DB.Card.Query().Where(card.StatusEQ(card.StatusActive)).AllX(e.ctx)
	var orders []int
	for _, c := range cards {
		orders = append(orders, c.Order)
	}
	slices.Sort(orders)
	want := make([]int, items+boardCards)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(orders, want) {
		t.Fatalf("active column orders = %v, want 0..%d once each", orders, len(want)-1)
	}
}
