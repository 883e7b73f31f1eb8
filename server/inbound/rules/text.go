package rules

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// asking are the words that make an email ask for something.
var asking = []string{"please", "can you", "could you", "request", "action required"}

// AsksForSomething says whether an email's subject or first line asks for
// something: it ends with "?" or holds one of the asking words
// (case-insensitive).
func AsksForSomething(subject, text string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	for _, s := range []string{subject, first} {
		s = strings.ToLower(strings.TrimSpace(s))
		if s == "" {
			continue
		}
		if strings.HasSuffix(s, "?") {
			return true
		}
		for _, w := range asking {
			if strings.Contains(s, w) {
				return true
			}
		}
	}
	return false
}

// actionLine matches a transcript's action lines: "Action:", "TODO" (with
// an optional colon) or an open checkbox "- [ ]", after optional bullets.
var actionLine = regexp.MustCompile(`^\s*(?:[-*•]\s+)?(?:(?i:action)\s*:|TODO\b:?|- \[ \])\s*(.*)$`)

// ActionItems answers the text of each action line of a transcript, in
// order, blank ones skipped.
func ActionItems(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		m := actionLine.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		if t := strings.TrimSpace(m[1]); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// MaxExtracted bounds the action items a provider's extraction makes.
const MaxExtracted = 20

// CleanActions is a provider's extracted action items as items may take
// them: trimmed, single-line, non-empty, without repeats, at most
// MaxExtracted; a provider that found none answers an empty, non-nil list.
func CleanActions(in []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, a := range in {
		a = strings.Join(strings.Fields(a), " ")
		if a == "" || seen[strings.ToLower(a)] || !utf8.ValidString(a) {
			continue
		}
		seen[strings.ToLower(a)] = true
		out = append(out, a)
		if len(out) == MaxExtracted {
			break
		}
	}
	return out
}
