package db

import "testing"

// The folding must match lower() under COLLATE "C" and SQLite's lower():
// A–Z only, so "É" and "ß" stay as they are.
func TestFoldASCII(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":          "",
		"Research":  "research",
		"ÉCOLE Ärt": "École Ärt",
		"ẞ%_Z":      "ẞ%_z",
	} {
		if got := FoldASCII(in); got != want {
			t.Errorf("FoldASCII(%q) = %q, want %q", in, got, want)
		}
	}
}
