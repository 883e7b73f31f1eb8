package throughtest

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/connecttoken"
)

// TestConcurrentTokenRules: the single use of a connect token and the cap of
// 10 active tokens (document 2, "Limits") hold under concurrent requests —
// on SQLite and, with SWITCHBOARD_TEST_POSTGRES, on PostgreSQL.
func TestConcurrentTokenRules(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	a := newFakeAgent(t, true)
	ctx := context.Background()

	tok := f.connectToken(t, f.dev, "agent")
	const racers = 6
	statuses := make([]int, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = f.s.WithKey(tok).Do(http.MethodPost, "/api/developer/agents/register", agentBody(fmt.Sprintf("race-%d", i), a.URL)).Status
		}()
	}
	wg.Wait()
	created := 0
	for _, st := range statuses {
		switch st {
		case http.StatusCreated:
			created++
		case http.StatusForbidden:
		default:
			t.Fatalf("unexpected status %d among %v", st, statuses)
		}
	}
	agents, _ := f.s.DB.StoreAgent.Query().Count(ctx)
	runs, _ := f.s.DB.ShipGateRun.Query().Count(ctx)
	if created != 1 || agents != 1 || runs != 1 {
		t.Fatalf("one token registered %d agents (%d rows, %d runs): %v", created, agents, runs, statuses)
	}

	// 14 concurrent issues: exactly 10 fit beside none active (the one
	// above is spent).
	const issues = 14
	codes := make([]int, issues)
	for i := range issues {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = f.dev.Session.Do(http.MethodPost, "/api/developer/connect-tokens", map[string]any{"purpose": "agent"}).Status
		}()
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		if c == http.StatusCreated {
			ok++
		} else if c != http.StatusConflict {
			t.Fatalf("unexpected status %d among %v", c, codes)
		}
	}
	active, _ := f.s.DB.ConnectToken.Query().Where(connecttoken.UserID(f.dev.ID), connecttoken.UsedAtIsNil()).Count(ctx)
	if ok != 10 || active != 10 {
		t.Fatalf("cap: %d issued, %d active: %v", ok, active, codes)
	}
}
