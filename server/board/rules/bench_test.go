package rules

import (
	"testing"
	"time"
)

// A full scan of 1,000 cards with 5,000 checklist items (issue 30: under
// 1 s of CPU; bench/RESULTS.md).
func BenchmarkScan(b *testing.B) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	cards := SyntheticBoard(1000, 5, now)
	for b.Loop() {
		Scan(cards, now)
	}
}

// The same board's titles all-pairs without the pre-filters, the baseline.
func BenchmarkNaiveTitles(b *testing.B) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	titles, _ := Texts(SyntheticBoard(1000, 5, now))
	for b.Loop() {
		NaivePairs(titles, TitlePercent)
	}
}

// The synthetic board's pairs found by the pre-filtered comparison are the
// naive comparison's.
func TestSyntheticBoardPairsAgree(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	titles, items := Texts(SyntheticBoard(100, 5, now))
	for _, c := range []struct {
		texts []Text
		pct   int
	}{{titles, TitlePercent}, {items, ChecklistPercent}} {
		fast, naive := SimilarPairs(c.texts, c.pct), NaivePairs(c.texts, c.pct)
		if len(fast) != len(naive) || len(fast) == 0 {
			t.Fatalf("pct %d: %d pairs, naive %d", c.pct, len(fast), len(naive))
		}
		for i := range fast {
			if fast[i] != naive[i] {
				t.Fatalf("pair %d: %v, naive %v", i, fast[i], naive[i])
			}
		}
	}
}
