package throughtest

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Concurrent updates of one listing serialize: no change is lost from the
// changelog and every change gets its own version (on PostgreSQL too, where
// read-modify-write would otherwise race).
func TestConcurrentUpdatesKeepEveryChange(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	id := f.create(t, f.api, map[string]any{"name": "Contended"})["id"].(string)
	const n = 8
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := f.api.Do(http.MethodPut, "/api/marketplace/"+id, map[string]any{"description": fmt.Sprintf("take %d", i)})
			statuses[i] = res.Status
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		if s != http.StatusOK {
			t.Fatalf("update %d: %d", i, s)
		}
	}
	detail := f.get(t, f.api, id)
	log := detail["changelog"].([]any)
	var versions []string
	for _, e := range log {
		versions = append(versions, e.(map[string]any)["version"].(string))
	}
	want := []string{"1.0.8", "1.0.7", "1.0.6", "1.0.5", "1.0.4", "1.0.3", "1.0.2", "1.0.1"}
	if !slices.Equal(versions, want) || detail["agent"].(map[string]any)["version"] != "1.0.8" {
		t.Fatalf("versions = %v, agent %v", versions, detail["agent"].(map[string]any)["version"])
	}
}

// Concurrent installs and subscriptions: one of the same account's racing
// installs wins (the rest 409), and the counters match the rows.
func TestConcurrentInstallsCountRight(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	id := f.create(t, f.bobAPI, map[string]any{"name": "Popular", "contextInstructions": "x"})["id"].(string)
	callers := []*servertest.Caller{f.api, f.api, f.api, f.bobAPI}
	for i := range 4 {
		u := f.s.SignUp(fmt.Sprintf("user%d", i))
		callers = append(callers, f.s.WithKey(u.NewKey("k", "store")))
	}
	var wg sync.WaitGroup
	statuses := make([][2]int, len(callers))
	for i, c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i][0] = c.Do(http.MethodPost, "/api/marketplace/"+id+"/install", nil).Status
			statuses[i][1] = c.Do(http.MethodPost, "/api/marketplace/"+id+"/subscribe", nil).Status
		}()
	}
	wg.Wait()
	created, conflicts := 0, 0
	for _, s := range statuses {
		for _, st := range s {
			switch st {
			case http.StatusCreated:
				created++
			case http.StatusConflict:
				conflicts++
			default:
				t.Fatalf("status %d", st)
			}
		}
	}
	if created != 12 || conflicts != 4 {
		t.Fatalf("%d created, %d conflicts; want 12 and 4", created, conflicts)
	}
	a := f.get(t, f.bobAPI, id)["agent"].(map[string]any)
	rc := f.counts(t)
	if a["installCount"] != float64(6) || a["subscriberCount"] != float64(6) || rc.installs != 6 || rc.subscriptions != 6 || rc.memory != 12 {
		t.Fatalf("counters %v/%v, rows %+v", a["installCount"], a["subscriberCount"], rc)
	}
}
