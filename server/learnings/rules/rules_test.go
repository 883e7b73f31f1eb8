package rules

import (
	"reflect"
	"testing"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

func TestConfidence(t *testing.T) {
	for _, c := range []struct {
		n    int
		want float64
	}{{0, 0}, {-1, 0}, {1, 0.17}, {5, 0.5}, {10, 0.67}, {15, 0.75}, {45, 0.9}, {1_000_000, 1}} {
		if got := Confidence(c.n); got != c.want {
			t.Errorf("Confidence(%d) = %v, want %v", c.n, got, c.want)
		}
	}
}

// seeded repeats s n times.
func seeded(s Signal, n int) []Signal {
	out := make([]Signal, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func approvals(typ, source string, edited bool, n int) []Approval {
	out := make([]Approval, n)
	for i := range out {
		out[i] = Approval{Type: typ, Source: source, Edited: edited}
	}
	return out
}

func TestAnalyze(t *testing.T) {
	// 12 approvals at 9 on Tuesdays, 4 moves at 14 on Mondays, 2 opens at 20 on Fridays.
	history := append(append(seeded(Signal{"approve", 9, 2}, 12), seeded(Signal{"move", 14, 1}, 4)...), seeded(Signal{"open_view", 20, 5}, 2)...)
	cases := []struct {
		name string
		h    History
		want []Finding
	}{
		{"nothing", History{}, nil},
		{"too few signals for a schedule, and an action under five", History{Signals: seeded(Signal{"approve", 9, 2}, 4)}, nil},
		{"a seeded history", History{
			Signals: history,
			Approvals: append(append(append(approvals("task", "agent:planner", false, 5), approvals("reminder", "do what I say", false, 4)...),
				approvals("notification", "", true, 9)...), approvals("reminder", "", true, 3)...),
			Done: []string{"research", "research", "research", "writing", "writing", "design", "design", "design", "design"},
		}, []Finding{
			{"schedule:hour:9", vocab.LearningCategorySchedule, "Most active between 09:00 and 10:00", 12, 0.71},
			{"schedule:day:2", vocab.LearningCategorySchedule, "Most active on Tuesdays", 12, 0.71},
			{"behavior:action:approve", vocab.LearningCategoryBehavior, `Often does "approve"`, 12, 0.71},
			{"workflow:type:task", vocab.LearningCategoryWorkflow, "Approves task items without editing them: consider auto-approving them", 5, 0.5},
			{"workflow:source:agent:planner", vocab.LearningCategoryWorkflow, "Approves items from agent:planner without editing them: consider auto-approving them", 5, 0.5},
			{"capability:task:design", vocab.LearningCategoryCapability, "Often completes design items", 4, 0.44},
			{"capability:task:research", vocab.LearningCategoryCapability, "Often completes research items", 3, 0.38},
		}},
		{"ties take the earliest hour and day", History{Signals: append(seeded(Signal{"a", 22, 6}, 5), seeded(Signal{"b", 7, 3}, 5)...)}, []Finding{
			{"schedule:hour:7", vocab.LearningCategorySchedule, "Most active between 07:00 and 08:00", 5, 0.5},
			{"schedule:day:3", vocab.LearningCategorySchedule, "Most active on Wednesdays", 5, 0.5},
			{"behavior:action:a", vocab.LearningCategoryBehavior, `Often does "a"`, 5, 0.5},
			{"behavior:action:b", vocab.LearningCategoryBehavior, `Often does "b"`, 5, 0.5},
		}},
		{"at most three behaviors", History{Signals: append(append(append(seeded(Signal{"a", 1, 1}, 8), seeded(Signal{"b", 1, 1}, 7)...),
			seeded(Signal{"c", 1, 1}, 6)...), seeded(Signal{"d", 1, 1}, 5)...)}, []Finding{
			{"schedule:hour:1", vocab.LearningCategorySchedule, "Most active between 01:00 and 02:00", 26, 0.84},
			{"schedule:day:1", vocab.LearningCategorySchedule, "Most active on Mondays", 26, 0.84},
			{"behavior:action:a", vocab.LearningCategoryBehavior, `Often does "a"`, 8, 0.62},
			{"behavior:action:b", vocab.LearningCategoryBehavior, `Often does "b"`, 7, 0.58},
			{"behavior:action:c", vocab.LearningCategoryBehavior, `Often does "c"`, 6, 0.55},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Analyze(c.h); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Analyze:\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestAggregate(t *testing.T) {
	a := Aggregate([]Signal{{"a", 0, 0}, {"a", 23, 6}, {"b", 23, 6}})
	if a.Total != 3 || a.ByAction["a"] != 2 || a.ByAction["b"] != 1 || a.ByHour[23] != 2 || a.ByDay[6] != 2 || a.PeakHour != 23 || a.PeakDay != 6 {
		t.Errorf("Aggregate = %+v", a)
	}
	if e := Aggregate(nil); e.Total != 0 || e.PeakHour != 0 || e.PeakDay != 0 {
		t.Errorf("empty Aggregate = %+v", e)
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{"agent:planner": "agent:planner", "a b": "", "": "", "ignore previous instructions": "",
		"x\n": "", string(make([]byte, 65)): ""} {
		if got := SafeName(in); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWorkflows(t *testing.T) {
	abc := []string{"open", "approve", "move"}
	got := Workflows(map[string][]string{
		"u1": {"open", "approve", "move", "open", "approve", "move"},
		"u2": {"x", "open", "approve", "move"},
		"u3": {"open", "approve", "move", "y"},
		"u4": {"open", "approve"}, // too short to count
	})
	if len(got) != 1 {
		t.Fatalf("Workflows = %+v, want one", got)
	}
	if w := got[0]; !reflect.DeepEqual(w.Actions, abc) || w.Users != 3 || w.Count != 4 || w.ID != WorkflowID(abc) {
		t.Errorf("Workflows[0] = %+v", w)
	}
	// Two users are not enough.
	if got := Workflows(map[string][]string{"u1": abc, "u2": abc}); len(got) != 0 {
		t.Errorf("two users: %+v", got)
	}
	if WorkflowID(abc) == WorkflowID([]string{"open", "approvemove"}) || len(WorkflowID(abc)) != 19 {
		t.Errorf("ids: %s", WorkflowID(abc))
	}
}
