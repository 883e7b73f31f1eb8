package review

import (
	"testing"
	"time"
)

// Document 2 "Agent store" (agent-quality weights): the mean weight mapped
// onto 0 to 100.
func TestQualityScore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sum  float64
		n    int
		want float64
	}{
		{0, 0, 0},
		{1.0, 1, 100},
		{-0.5, 1, 0},
		{0.8 + -0.3, 2, 50},
		{0.9, 1, 93.3},
	} {
		if got := QualityScore(tc.sum, tc.n); got != tc.want {
			t.Errorf("QualityScore(%v, %d) = %v, want %v", tc.sum, tc.n, got, tc.want)
		}
	}
}

// Document 2 "Limits": review window 48 hours from reviewWidgetShownAt.
func TestDue(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	if got := Due(at); !got.Equal(at.Add(48 * time.Hour)) {
		t.Fatalf("Due = %v", got)
	}
}
