package throughtest

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "A2A" (last paragraph) and "Accounts, keys, sessions" (playbook and
// main-handoff → a2a): GET /api/a2a/playbook and GET /api/main-handoff for a
// key with the a2a scope.
func TestPlaybookAndMainHandoff(t *testing.T) {
	t.Parallel()
	s, acct, key := setupA2A(t)
	for _, p := range []string{"/api/a2a/playbook", "/api/main-handoff"} {
		servertest.WantError(t, s.Anonymous().Do(http.MethodGet, p, nil), http.StatusUnauthorized)
		servertest.WantError(t, s.WithKey(acct.NewKey("q", "queue")).Do(http.MethodGet, p, nil), http.StatusForbidden)
	}
	add := func(title, priority string) string {
		res := acct.Session.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": title, "priority": priority})
		servertest.WantStatus(t, res, http.StatusCreated)
		return res.JSON(t)["item"].(map[string]any)["id"].(string)
	}
	add("Low one", "low")
	add("Urgent one", "urgent")
	add("High one", "high")
	done := add("Done one", "urgent")
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+done+"/confirm", map[string]any{"action": "approve"})
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+done+"/result", map[string]any{"result": "ok"})
	now := s.Clock.Now().UTC()
	for title, due := range map[string]time.Duration{"Due tomorrow": 24 * time.Hour, "Due next week": 7 * 24 * time.Hour} {
		res := acct.Session.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": title, "dueDate": now.Add(due).Format(time.RFC3339)})
		servertest.WantStatus(t, res, http.StatusCreated)
	}

	res := s.WithKey(key).Do(http.MethodGet, "/api/main-handoff", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	h := res.JSON(t)
	a2aGolden(t, "main_handoff", h)
	q := h["queue"].(map[string]any)
	var titles []string
	for _, it := range q["topItems"].([]any) {
		titles = append(titles, it.(map[string]any)["title"].(string))
	}
	if strings.Join(titles, ",") != "Urgent one,High one,Low one" || q["total"].(float64) != 4 {
		t.Errorf("queue %v", q)
	}
	pr := h["priorities"].(map[string]any)
	if len(pr["urgentItems"].([]any)) != 1 || len(pr["cardsDue"].([]any)) != 1 ||
		pr["cardsDue"].([]any)[0].(map[string]any)["title"] != "Due tomorrow" {
		t.Errorf("priorities %v", pr)
	}

	res = s.WithKey(key).Do(http.MethodGet, "/api/a2a/playbook", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	pb := res.JSON(t)
	a2aGolden(t, "playbook", pb)
	if brief := pb["playbook"].(map[string]any)["handoffBrief"].(string); !strings.Contains(brief, "Ana") || !strings.Contains(brief, "approval") {
		t.Errorf("brief %q", brief)
	}

	// Another account sees none of it.
	other := s.SignUp("bo")
	res = s.WithKey(other.NewKey("bo", "a2a")).Do(http.MethodGet, "/api/main-handoff", nil)
	if q := res.JSON(t)["queue"].(map[string]any); q["total"].(float64) != 0 {
		t.Errorf("another account's handoff: %v", q)
	}
}
