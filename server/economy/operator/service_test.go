package operator

import (
	"strings"
	"testing"
)

// An amendment's number travels as text (a path variable, as every other
// one is): a whole number from 1, else 400 naming n.
func TestAmendmentNumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"1", 1, true},
		{"12", 12, true},
		{"0", 0, false},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"abc", 0, false},
		{"99999999999999999999999", 0, false},
	} {
		got, err := amendment(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("amendment(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "n must be") {
			t.Errorf("amendment(%q): %v, want a refusal naming n", tc.in, err)
		}
	}
}
