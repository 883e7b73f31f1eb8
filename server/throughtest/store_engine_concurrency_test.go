package throughtest

import (
	"fmt"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store/dispatch"
)

// Document 2, "Execution status and review" and "Limits" (one execution
// per agent at a time): 20 simultaneous executes of one agent — exactly one
// runs, 19 queue with positions 1–19, and all complete in queue order. Run
// with SWITCHBOARD_TEST_POSTGRES for the PostgreSQL leg.
func TestTwentySimultaneousExecutes(t *testing.T) {
	t.Parallel()
	// The agent holds the first call until the other 19 have queued: on a
	// loaded machine that took longer than the fixture's 2 s call timeout.
	f := newEngineFixture(t, withExecutions(server.ExecutionConfig{CallTimeout: 30 * time.Second, BreakerOpenFor: time.Minute}))
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	var mu sync.Mutex
	var order []string
	first := true
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) {
		mu.Lock()
		order = append(order, c.Header.Get(dispatch.HeaderExecutionID))
		wait := first
		first = false
		mu.Unlock()
		if wait {
			<-release
		}
		writeJSON(w, 200, map[string]any{"output": "done " + c.Body["message"].(string)})
	})
	id := f.listing(t, a.URL, nil)
	type answer struct {
		status int
		body   map[string]any
	}
	answers := make(chan answer, 20)
	var start sync.WaitGroup
	start.Add(1)
	for i := range 20 {
		go func() {
			start.Wait()
			s, b := f.execute(t, f.req, id, map[string]any{"input": fmt.Sprint("task ", i)})
			answers <- answer{s, b}
		}()
	}
	start.Done()
	position := map[string]int{}
	var positions []int
	for range 19 {
		ans := <-answers
		if ans.status != 200 || ans.body["status"] != "queued" {
			t.Fatalf("expected 19 queued answers first, got %d %v", ans.status, ans.body)
		}
		p := int(ans.body["queuePosition"].(float64))
		positions = append(positions, p)
		position[ans.body["executionId"].(string)] = p
	}
	sort.Ints(positions)
	for i, p := range positions {
		if p != i+1 {
			t.Fatalf("positions %v, want 1..19", positions)
		}
	}
	once.Do(func() { close(release) })
	runner := <-answers
	if runner.status != 200 || runner.body["status"] != "completed" {
		t.Fatalf("the running one: %d %v", runner.status, runner.body)
	}
	servertest.WaitFor(t, "all 20 to complete", func() bool {
		n, _ := f.s.DB.Execution.Query().Count(t.Context())
		done := 0
		rows, _ := f.s.DB.Execution.Query().All(t.Context())
		for _, r := range rows {
			if r.Status == "completed" {
				done++
			}
		}
		return n == 20 && done == 20
	})
	mu.Lock()
	defer mu.Unlock()
	if len(order) != 20 || order[0] != runner.body["executionId"] {
		t.Fatalf("calls %v", order)
	}
	for i, exID := range order[1:] {
		if position[exID] != i+1 {
			t.Errorf("call %d went to the execution at position %d", i+1, position[exID])
		}
	}
	if row, _ := f.s.DB.StoreAgent.Get(t.Context(), id); row.CurrentExecutionID != nil || row.ExecutionCount != 20 {
		t.Errorf("agent after the run: lock %v, count %d", row.CurrentExecutionID, row.ExecutionCount)
	}
}
