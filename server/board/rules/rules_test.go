package rules

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// variant is base with its first n runes replaced: n edits.
func variant(base string, n int) string { return variantWith(base, n, "#") }

func variantWith(base string, n int, ch string) string {
	return strings.Repeat(ch, n) + base[n:]
}

func TestSimilarityAtTheThresholds(t *testing.T) {
	base28 := "abcdefghijklmnopqrstuvwxyz01"
	for _, tc := range []struct {
		name string
		a, b string
		pct  int
		want bool
		sim  float64
	}{
		{"titles 0.7407 (7 edits in 27)", base28[:27], variant(base28[:27], 7), TitlePercent, false, 1 - 7.0/27},
		{"titles 0.75 (7 edits in 28)", base28, variant(base28, 7), TitlePercent, true, 0.75},
		{"titles 0.75 (1 edit in 4)", "abcd", "abce", TitlePercent, true, 0.75},
		{"titles 0.74 by length (20 vs 27 runes)", base28[:20], base28[:27], TitlePercent, false, 20.0 / 27},
		{"checklists 0.7917 (5 edits in 24)", base28[:24], variant(base28[:24], 5), ChecklistPercent, false, 1 - 5.0/24},
		{"checklists 0.80 (5 edits in 25)", base28[:25], variant(base28[:25], 5), ChecklistPercent, true, 0.8},
		{"checklists 0.80 (1 edit in 5)", "abcde", "abcdx", ChecklistPercent, true, 0.8},
		{"checklists 0.75 is not enough", "abcd", "abce", ChecklistPercent, false, 0.75},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Similarity(tc.a, tc.b); got < tc.sim-1e-9 || got > tc.sim+1e-9 {
				t.Errorf("Similarity = %v, want %v", got, tc.sim)
			}
			texts := []Text{{Group: 0, Text: tc.a}, {Group: 1, Text: tc.b}}
			if got := len(SimilarPairs(texts, tc.pct)) == 1; got != tc.want {
				t.Errorf("SimilarPairs raised = %v, want %v", got, tc.want)
			}
			if got := len(NaivePairs(texts, tc.pct)) == 1; got != tc.want {
				t.Errorf("NaivePairs raised = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNormalizeComparesLowercasedTrimmed(t *testing.T) {
	if s := Similarity(Normalize("  Launch Plan "), Normalize("launch plan")); s != 1 {
		t.Fatalf("similarity %v, want 1", s)
	}
}

func TestScanTitlesAndChecklists(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	base := "abcdefghijklmnopqrstuvwxyz01"
	cards := []Card{
		{ID: "a", Title: strings.ToUpper(base), CreatedAt: now.Add(-2 * time.Hour), UpdatedAt: now,
			Items: []Item{{Text: base[:25]}, {Text: "zzzzzzzzzz"}}},
		{ID: "b", Title: "  " + variant(base, 7) + " ", CreatedAt: now.Add(-time.Hour), UpdatedAt: now,
			Items: []Item{{Text: variant(base[:25], 5)}}},
		{ID: "c", Title: variantWith(base[:27], 7, "@"), CreatedAt: now, UpdatedAt: now,
			Items: []Item{{Text: variantWith(base[:24], 5, "@")}, {Text: "zzzzzzzzzx"}}},
	}
	r := Scan(cards, now)
	var got []string
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%s %s→%s", f.Type, f.SourceID, f.TargetID))
	}
	// a/b titles at 0.75; a/c and b/c below (c is 27 runes, 7+ edits).
	// Checklists: a's 25 and b's at 0.80; the z-texts at 0.90 (a/c); c's 24
	// against a's 25 is under 0.80.
	want := []string{
		"merge_suggestion b→a",
		"duplicate_tasks b→a",
		"duplicate_tasks c→a",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("findings %q, want %q", got, want)
	}
	if !strings.Contains(r.Findings[1].Reason, base[:25]) {
		t.Errorf("duplicate_tasks reason %q does not name the texts", r.Findings[1].Reason)
	}
}

func TestChecklistsOfOneCardAreNotDuplicates(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	r := Scan([]Card{{ID: "a", Title: "one", UpdatedAt: now, Items: []Item{{Text: "call the bank"}, {Text: "call the bank"}}}}, now)
	if len(r.Findings) != 0 {
		t.Fatalf("findings %v, want none", r.Findings)
	}
}

func TestScanTimeRules(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	items := func(done, total int) []Item {
		out := make([]Item, total)
		for i := range done {
			out[i].Done = true
		}
		return out
	}
	for _, tc := range []struct {
		name string
		card Card
		want []vocab.InsightType
	}{
		{"active, 13 d 23 h idle", Card{UpdatedAt: now.Add(-(13*day + 23*time.Hour))}, nil},
		{"active, 14 d idle", Card{UpdatedAt: now.Add(-14 * day)}, []vocab.InsightType{vocab.InsightTypeStaleCard}},
		{"completed, 14 d idle", Card{Completed: true, UpdatedAt: now.Add(-14 * day)}, nil},
		{"completed, 29 d 23 h idle", Card{Completed: true, UpdatedAt: now.Add(-(29*day + 23*time.Hour))}, nil},
		{"completed, 30 d idle", Card{Completed: true, UpdatedAt: now.Add(-30 * day)}, []vocab.InsightType{vocab.InsightTypeArchiveCandidate}},
		{"due in 47 h 59 m, no items", Card{UpdatedAt: now, Due: at(47*time.Hour + 59*time.Minute)}, []vocab.InsightType{vocab.InsightTypeAutoEscalate}},
		{"due in exactly 48 h", Card{UpdatedAt: now, Due: at(48 * time.Hour), Items: items(0, 3)}, []vocab.InsightType{vocab.InsightTypeAutoEscalate}},
		{"due in 48 h 1 m", Card{UpdatedAt: now, Due: at(48*time.Hour + time.Minute)}, nil},
		{"overdue", Card{UpdatedAt: now, Due: at(-3 * day)}, []vocab.InsightType{vocab.InsightTypeAutoEscalate}},
		{"due soon, 29 percent done (29/100)", Card{UpdatedAt: now, Due: at(time.Hour), Items: items(29, 100)}, []vocab.InsightType{vocab.InsightTypeAutoEscalate}},
		{"due soon, 30 percent done (3/10)", Card{UpdatedAt: now, Due: at(time.Hour), Items: items(3, 10)}, nil},
		{"due soon, 2/7 done (28.6 percent)", Card{UpdatedAt: now, Due: at(time.Hour), Items: items(2, 7)}, []vocab.InsightType{vocab.InsightTypeAutoEscalate}},
		{"due soon, completed", Card{Completed: true, UpdatedAt: now, Due: at(time.Hour)}, nil},
		{"no due date", Card{UpdatedAt: now}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.card.ID, tc.card.Title = "x", "x"
			r := Scan([]Card{tc.card}, now)
			var got []vocab.InsightType
			for _, f := range r.Findings {
				got = append(got, f.Type)
				if f.Confidence < 0 || f.Confidence > 1 {
					t.Errorf("confidence %v", f.Confidence)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("findings %v, want %v", got, tc.want)
			}
			if esc := slices.Contains(tc.want, vocab.InsightTypeAutoEscalate); esc != (len(r.Escalate) == 1) {
				t.Errorf("Escalate %v", r.Escalate)
			}
		})
	}
}

func TestPercentOfNoItemsIsZero(t *testing.T) {
	if p := Percent(nil); p != 0 {
		t.Fatalf("Percent(nil) = %d", p)
	}
}

// FuzzSimilarPairs holds the pre-filtered comparison to the naive one: the
// pre-filters never drop a pair the full edit distance finds at or above
// either threshold. The input is split into texts at newlines, each given
// a group by its first byte.
func FuzzSimilarPairs(f *testing.F) {
	f.Add("abcd\nabce\nabxx\nlaunch plan\nlaunch plans\n")
	f.Add("call the bank\ncall the bnak\nemail anna\nemail ann\né\nè\n")
	f.Add("abcdefghijklmnopqrstuvwxy\n#####fghijklmnopqrstuvwxy\n")
	f.Fuzz(func(t *testing.T, in string) {
		lines := strings.Split(in, "\n")
		if len(lines) > 60 {
			lines = lines[:60]
		}
		texts := make([]Text, 0, len(lines))
		for i, l := range lines {
			g := i
			if len(l) > 0 && l[0]%3 == 0 {
				g = 0 // some texts share a group
			}
			texts = append(texts, Text{Group: g, Text: Normalize(l)})
		}
		for _, pct := range []int{TitlePercent, ChecklistPercent} {
			fast, naive := SimilarPairs(texts, pct), NaivePairs(texts, pct)
			if !slices.Equal(fast, naive) {
				t.Fatalf("pct %d: SimilarPairs %v, NaivePairs %v", pct, fast, naive)
			}
		}
	})
}
