package lists

import (
	"slices"
	"strconv"
	"testing"
)

func TestMap(t *testing.T) {
	got := Map([]int{3, 1, 2}, strconv.Itoa)
	if want := []string{"3", "1", "2"}; !slices.Equal(got, want) {
		t.Fatalf("Map = %q, want %q", got, want)
	}
	if empty := Map([]int(nil), strconv.Itoa); empty == nil || len(empty) != 0 {
		t.Fatalf("Map(nil) = %#v, want an empty, non-nil list", empty)
	}
}
