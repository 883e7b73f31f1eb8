package admin

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func ms(v int) *int { return &v }

// The period is the last days UTC calendar days, today included.
func TestSince(t *testing.T) {
	now := time.Date(2026, 12, 3, 15, 4, 5, 0, time.FixedZone("CET", 3600))
	for days, want := range map[int]string{7: "2026-11-27T00:00:00Z", 30: "2026-11-04T00:00:00Z", 90: "2026-09-05T00:00:00Z"} {
		if got := Since(now, days).Format(time.RFC3339); got != want {
			t.Errorf("Since(%d) = %s, want %s", days, got, want)
		}
	}
}

func TestOrigin(t *testing.T) {
	for _, c := range []struct{ run, task, want string }{
		{"local", "owner", "local"},
		{"local", "marketplace", "local"},
		{"local", "federation", "federated"}, // made before the column
		{"federated", "federation", "federated"},
		{"mcp", "marketplace", "mcp"},
		{"assistant", "owner", "assistant"},
		{"a2a", "marketplace", "a2a"},
	} {
		if got := Origin(c.run, c.task); got != c.want {
			t.Errorf("Origin(%s, %s) = %s, want %s", c.run, c.task, got, c.want)
		}
	}
}

func TestTally(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	at := func(daysAgo int, hour int) time.Time {
		return time.Date(2026, 12, 3-daysAgo, hour, 0, 0, 0, time.UTC)
	}
	runs := []Run{
		{AgentID: "b", Status: "completed", RunOrigin: "local", TaskOrigin: "owner", At: at(0, 9), DurationMs: ms(100), RevenueCents: 250},
		{AgentID: "b", Status: "failed", RunOrigin: "mcp", TaskOrigin: "marketplace", At: at(0, 1), DurationMs: ms(301)},
		{AgentID: "a", Status: "timeout", RunOrigin: "assistant", TaskOrigin: "owner", At: at(6, 0)},
		{AgentID: "a", Status: "running", RunOrigin: "local", TaskOrigin: "federation", At: at(2, 12)},
		{AgentID: "b", Status: "completed", RunOrigin: "a2a", TaskOrigin: "marketplace", At: at(3, 23), DurationMs: ms(200), RevenueCents: 250},
		// Before the 7-day period: its first day began at 00:00 six days ago.
		{AgentID: "c", Status: "completed", RunOrigin: "local", TaskOrigin: "owner", At: at(7, 23)},
	}
	got := Tally(runs, now, 7)
	want := Summary{
		Runs: 5,
		Agents: []AgentTally{
			{AgentID: "b", Executions: 3, Completed: 2, Failed: 1, AvgDurationMs: 200, RevenueCents: 500},
			{AgentID: "a", Executions: 2, Timeout: 1},
		},
		Origins: map[string]int{"local": 1, "federated": 1, "a2a": 1, "mcp": 1, "assistant": 1},
		Days: []DayTally{
			{Date: "2026-11-27", Timeout: 1}, {Date: "2026-11-28"}, {Date: "2026-11-29"},
			{Date: "2026-11-30", Completed: 1}, {Date: "2026-12-01", Pending: 1}, {Date: "2026-12-02"},
			{Date: "2026-12-03", Completed: 1, Failed: 1},
		},
	}
	if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(AgentTally{})); d != "" {
		t.Fatalf("Tally (-want +got):\n%s", d)
	}
	empty := Tally(nil, now, 30)
	if empty.Runs != 0 || len(empty.Agents) != 0 || len(empty.Days) != 30 || empty.Days[29].Date != "2026-12-03" ||
		len(empty.Origins) != 5 {
		t.Fatalf("an empty period: %+v", empty)
	}
}
