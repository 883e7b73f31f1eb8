package rules

import (
	"slices"
	"testing"
	"time"
)

func TestWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		title string
		want  []string
	}{
		{"Budget review with ACME", []string{"budget", "review", "acme"}},
		{"Q3 plan: the budget, the BUDGET", []string{"plan", "budget"}}, // "q3", "the" dropped, repeats once
		{"Call Bob re: API", []string{"call", "bob", "api"}},
		{"Don't forget the café", []string{"forget", "café"}}, // "don't" is a stop word
		{"go to it", nil},
		{"", nil},
		{"2026 roadmap", []string{"2026", "roadmap"}},
		{"Über-Meeting", []string{"über", "meeting"}},
	} {
		if got := Words(tc.title); !slices.Equal(got, tc.want) {
			t.Errorf("Words(%q) = %q, want %q", tc.title, got, tc.want)
		}
	}
}

func TestStopWordsShipped(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"the", "and", "with", "about", "would"} {
		if !IsStopWord(w) {
			t.Errorf("%q is not a stop word", w)
		}
	}
	for _, w := range []string{"budget", "review", "#", ""} {
		if IsStopWord(w) {
			t.Errorf("%q is a stop word", w)
		}
	}
}

// The window: after now, at most 60 minutes ahead; exactly 60 counts, 61
// does not, one under way does not.
func TestStartsSoon(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   time.Duration
		want bool
	}{
		{-time.Minute, false}, {0, false}, {time.Second, true}, {59 * time.Minute, true},
		{60 * time.Minute, true}, {60*time.Minute + time.Second, false}, {61 * time.Minute, false},
	} {
		if got := StartsSoon(now.Add(tc.in), now); got != tc.want {
			t.Errorf("StartsSoon(now%+v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestCorrelate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	events := []Event{
		{ID: "late", Title: "Budget review", StartsAt: now.Add(50 * time.Minute)},
		{ID: "soon", Title: "ACME budget call", StartsAt: now.Add(10 * time.Minute)},
		{ID: "going", Title: "Hiring sync", StartsAt: now.Add(-10 * time.Minute)},
		{ID: "far", Title: "Offsite planning", StartsAt: now.Add(61 * time.Minute)},
		{ID: "stop", Title: "The one with them", StartsAt: now.Add(5 * time.Minute)},
	}
	for _, tc := range []struct {
		title, event string
		words        []string
	}{
		{"Approve the budget", "soon", []string{"budget"}}, // the soonest of two matches
		{"Review draft", "late", []string{"review"}},
		{"Hiring plan", "", nil},            // the sync is under way
		{"Offsite venue", "", nil},          // 61 minutes out
		{"Reply to them with one", "", nil}, // stop words only
		{"Budgets", "", nil},                // whole words, not substrings
	} {
		r, ok := Correlate(tc.title, events, now)
		if ok != (tc.event != "") || r.EventID != tc.event || !slices.Equal(r.Words, tc.words) {
			t.Errorf("Correlate(%q) = %+v %v, want event %q words %q", tc.title, r, ok, tc.event, tc.words)
		}
		if ok && r.Points != Boost {
			t.Errorf("Correlate(%q) points %d", tc.title, r.Points)
		}
	}
}

// The acceptance rule: an item matching an event starting in 59 minutes
// ranks 25 points up (over a newer item of its rank, level with the rank
// above); at 61 minutes it does not.
func TestOrder(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	items := []Item{
		{ID: "a", Title: "Budget deck", Priority: "medium", CreatedAt: now.Add(-3 * time.Hour)},
		{ID: "b", Title: "Other", Priority: "medium", CreatedAt: now.Add(-time.Hour)},
		{ID: "c", Title: "Urgent thing", Priority: "urgent", CreatedAt: now.Add(-5 * time.Hour)},
		{ID: "d", Title: "High thing", Priority: "high", CreatedAt: now.Add(-4 * time.Hour)},
		{ID: "e", Title: "Low thing", Priority: "low", CreatedAt: now},
	}
	ids := func(rs []Ranked) (out []string) {
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	ev := func(in time.Duration) []Event {
		return []Event{{ID: "ev", Title: "Budget review", StartsAt: now.Add(in)}}
	}
	got := Order(items, ev(59*time.Minute), now)
	if want := []string{"c", "a", "d", "b", "e"}; !slices.Equal(ids(got), want) {
		t.Fatalf("order at 59 minutes = %v, want %v", ids(got), want)
	}
	if a := got[1]; a.Score != 50 || len(a.Reasons) != 1 || a.Reasons[0].EventID != "ev" {
		t.Fatalf("the correlated item: %+v", a)
	}
	got = Order(items, ev(61*time.Minute), now)
	if want := []string{"c", "d", "b", "a", "e"}; !slices.Equal(ids(got), want) {
		t.Fatalf("order at 61 minutes = %v, want %v", ids(got), want)
	}
	if a := got[3]; a.Score != 25 || len(a.Reasons) != 0 {
		t.Fatalf("the uncorrelated item: %+v", a)
	}
}
