package rules

import (
	"strings"
	"unicode"
)

// stopWords are the words too common to say what a text is about: English
// function words, the verbs every task uses, and company suffixes (so two
// people at "Acme Inc" and "Foo Inc" do not share "inc").
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a about above after again against all also am an and any are as at be because been before being below
		between both but by can could did do does doing down during each few for from further had has have
		having he her here hers herself him himself his how i if in into is it its itself just me more most my
		myself no nor not now of off on once only or other our ours ourselves out over own same she should so
		some such than that the their theirs them themselves then there these they this those through to too
		under until up very was we were what when where which while who whom why will with would you your
		yours yourself yourselves us let get got make made need needs needed want wants please new via per
		etc inc llc ltd corp co gmbh`) {
		m[w] = true
	}
	return m
}()

// Words splits s into lowercase words: runs of letters and digits, with '+'
// and '#' kept after a word's first letter so c++ and c# stay themselves
// while #fintech is fintech. Nothing else is dropped; muted topics match on
// these.
func Words(s string) []string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+' && r != '#'
	})
	out := fields[:0]
	for _, f := range fields {
		if f = strings.TrimLeft(f, "+#"); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// Keywords answers the words of the texts that say what they are about: the
// Words of each, without stop words, single characters and bare numbers,
// each once, in the order first met (TestKeywords).
func Keywords(texts ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range texts {
		for _, w := range Words(t) {
			if seen[w] || stopWords[w] || len([]rune(w)) < 2 || isNumber(w) {
				continue
			}
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
