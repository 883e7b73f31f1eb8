package rules

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Event titles come from outside (the calendar webhook): whatever the text,
// Words answers lowercase words of 3 or more runes, none a stop word, each once.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"Budget review with ACME", "don't’ ''' café Über-Meeting", "\x00\xff", "ǅemal İstanbul ΣΑΣ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, title string) {
		seen := map[string]bool{}
		for _, w := range Words(title) {
			if utf8.RuneCountInString(w) < MinWordLen || IsStopWord(w) || seen[w] || w != strings.ToLower(w) {
				t.Fatalf("Words(%q) gave %q", title, w)
			}
			seen[w] = true
		}
	})
}
