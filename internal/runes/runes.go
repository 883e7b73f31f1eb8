// Package runes cuts text to a number of characters (runes, not bytes), so
// a cut never splits a character.
package runes

// Prefix keeps the first n runes of s.
func Prefix(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
