package prompt

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/switchboard-hq/switchboard/internal/promptgroups"
	queuerules "github.com/switchboard-hq/switchboard/server/queue/rules"
)

// statusWeight orders items of equal relevance: what waits on the operator
// first, then what is moving, then the rest.
var statusWeight = map[string]int{
	queuerules.PendingConfirmation: 4, queuerules.Blocked: 4, queuerules.InProgress: 3, queuerules.Ready: 2,
}

// rankItems picks the briefing's items: by relevance (words of the item's
// title and description found in the message count twice, in the last
// promptgroups.LastTurns turns once), then by statusWeight, then in the
// order given; at most MaxItems.
func rankItems(items []Item, message string, turns []string) []Item {
	msg := words(message)
	recent := map[string]bool{}
	for _, t := range turns[max(0, len(turns)-promptgroups.LastTurns):] {
		for w := range words(t) {
			recent[w] = true
		}
	}
	type scored struct {
		it           Item
		score, order int
	}
	ranked := make([]scored, len(items))
	for i, it := range items {
		s := 0
		for w := range words(it.Title + " " + it.Text) {
			if msg[w] {
				s += 2
			} else if recent[w] {
				s++
			}
		}
		ranked[i] = scored{it: it, score: s, order: i}
	}
	slices.SortStableFunc(ranked, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(statusWeight[b.it.Status], statusWeight[a.it.Status]),
			cmp.Compare(a.order, b.order))
	})
	out := make([]Item, 0, min(len(ranked), MaxItems))
	for _, r := range ranked[:min(len(ranked), MaxItems)] {
		out = append(out, r.it)
	}
	return out
}

// stopWords are left out of relevance: they match everything.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "you": true, "your": true, "with": true, "this": true, "that": true,
	"from": true, "are": true, "was": true, "what": true, "can": true, "all": true, "any": true, "have": true,
	"not": true, "but": true, "our": true, "please": true, "about": true, "into": true, "will": true,
}

// words is the set of lower-cased words of three letters or more in s.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 3 && !stopWords[w] {
			out[w] = true
		}
	}
	return out
}

// cut shortens s to n characters, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
