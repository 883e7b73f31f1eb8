package rules

import (
	"fmt"
	"slices"
	"testing"
)

// A provider's extracted items: whitespace folded, empties and repeats
// (whatever their case) dropped, at most MaxExtracted; none found is an
// empty list, not nil (nil means "ask the action lines").
func TestCleanActions(t *testing.T) {
	many := make([]string, 30)
	for i := range many {
		many[i] = fmt.Sprintf("Task %d", i)
	}
	for _, tt := range []struct {
		in, want []string
	}{
		{nil, []string{}},
		{[]string{"", "  ", "\n"}, []string{}},
		{[]string{" Book the\n  venue ", "book the venue", "Call Sam"}, []string{"Book the venue", "Call Sam"}},
		{[]string{"bad \xff text", "Fine"}, []string{"Fine"}},
		{many, many[:MaxExtracted]},
	} {
		got := CleanActions(tt.in)
		if got == nil || !slices.Equal(got, tt.want) {
			t.Errorf("CleanActions(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
