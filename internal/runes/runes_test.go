package runes

import "testing"

func TestPrefix(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc"},
		{"héllo", 2, "hé"},
		{"日本語", 0, ""},
	} {
		if got := Prefix(tt.in, tt.n); got != tt.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
