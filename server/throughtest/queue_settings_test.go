package throughtest

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/switchboard-hq/switchboard/ent"
)

// Each queue change reads the account's settings row at most once, however
// many of its steps need it (the comms author, the webhook targets, the moves
// of released dependants).
func TestOneSettingsReadPerChange(t *testing.T) {
	e := setupQueue(t)
	var reads atomic.Int64
	e.s.DB.Setting.Intercept(ent.InterceptFunc(func(next ent.Querier) ent.Querier {
		return ent.QuerierFunc(func(ctx context.Context, q ent.Query) (ent.Value, error) {
			reads.Add(1)
			return next.Query(ctx, q)
		})
	}))
	a := e.create(t, map[string]any{"title": "First"})["id"].(string)
	b := e.create(t, map[string]any{"title": "Second", "dependsOn": a})["id"].(string)
	c := e.create(t, map[string]any{"title": "Third"})["id"].(string)
	d := e.create(t, map[string]any{"title": "Fourth"})["id"].(string)
	steps := []struct {
		name         string
		method, path string
		body         map[string]any
	}{
		{"approve", http.MethodPost, "/api/v2/queue/" + a + "/confirm", map[string]any{"id": a, "action": "approve"}},
		{"approve the dependant", http.MethodPost, "/api/v2/queue/" + b + "/confirm", map[string]any{"id": b, "action": "approve"}},
		{"dispatch", http.MethodPost, "/api/v2/queue/" + a + "/status", map[string]any{"id": a, "status": "in_progress"}},
		{"report, releasing the dependant", http.MethodPost, "/api/v2/queue/" + a + "/result", map[string]any{"id": a, "result": "done"}},
		{"complete the dependant", http.MethodPost, "/api/v2/queue/" + b + "/status", map[string]any{"id": b, "status": "done_today"}},
		{"update", http.MethodPut, "/api/v2/queue/" + c, map[string]any{"priority": "high"}},
		{"reject", http.MethodPost, "/api/v2/queue/" + c + "/confirm", map[string]any{"id": c, "action": "reject"}},
		{"delete", http.MethodDelete, "/api/v2/queue/" + d, nil},
	}
	for _, st := range steps {
		before := reads.Load()
		if res := e.api.Do(st.method, st.path, st.body); res.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", st.name, res.Status, res.Body)
		}
		if n := reads.Load() - before; n > 1 {
			t.Errorf("%s read the settings %d times, want at most once", st.name, n)
		}
	}
}
