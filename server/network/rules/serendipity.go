package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Person is one of the operator's contacts or connections, as
// serendipity_matches compares them.
type Person struct {
	ID, Name string
	Party    string // serendipity_party
	Tags     []string
	Skills   []string
	Company  string
}

// Work is one of the operator's active cards or open jobs: what it is
// called and the text its keywords come from (title, description, skills).
type Work struct {
	ID, Title string
	Text      []string
}

// Match is a pair of people who both relate to the operator's current work.
type Match struct {
	A, B Person
	// Shared are the keywords of the operator's work that both people's
	// tags, skills or company hold, alphabetically.
	Shared []string
	// Overlap is the score: how many keywords they share.
	Overlap int
	// Cards and Jobs are the ids of the work those keywords come from.
	Cards, Jobs []string
	Reason      string
}

// DefaultMaxMatches is serendipity_matches' maxResults default (document 2).
const DefaultMaxMatches = 5

// Serendipity pairs people who should meet about what the operator is
// working on (RULINGS "serendipity_matches"): two of the operator's contacts
// and connections whose tags, skills or company share keywords of the
// operator's active cards and open jobs. A pair is scored by how many such
// keywords both hold; a pair names the smaller id first, and pairs are
// ranked by overlap, then by the two ids,
// and the first limit (0 or less: DefaultMaxMatches) are answered. Each says
// why in words.
func Serendipity(people []Person, cards, jobs []Work, limit int) []Match {
	if limit <= 0 {
		limit = DefaultMaxMatches
	}
	cardWords, jobWords := workKeywords(cards), workKeywords(jobs)
	relevant := map[string]bool{}
	for _, ws := range [][]map[string]bool{cardWords, jobWords} {
		for _, w := range ws {
			for k := range w {
				relevant[k] = true
			}
		}
	}
	terms := make([]map[string]bool, len(people))
	for i, p := range people {
		terms[i] = map[string]bool{}
		for _, k := range Keywords(slices.Concat(p.Tags, p.Skills, []string{p.Company})...) {
			if relevant[k] {
				terms[i][k] = true
			}
		}
	}
	var out []Match
	for i := range people {
		for j := i + 1; j < len(people); j++ {
			var shared []string
			for k := range terms[i] {
				if terms[j][k] {
					shared = append(shared, k)
				}
			}
			if len(shared) == 0 {
				continue
			}
			slices.Sort(shared)
			a, b := people[i], people[j]
			if b.ID < a.ID {
				a, b = b, a // the pair reads the same whatever the input order
			}
			m := Match{A: a, B: b, Shared: shared, Overlap: len(shared),
				Cards: holding(cards, cardWords, shared), Jobs: holding(jobs, jobWords, shared)}
			m.Reason = reason(m, cards, jobs)
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b Match) int {
		return cmp.Or(cmp.Compare(b.Overlap, a.Overlap), strings.Compare(a.A.ID, b.A.ID), strings.Compare(a.B.ID, b.B.ID))
	})
	return out[:min(limit, len(out))]
}

func workKeywords(ws []Work) []map[string]bool {
	out := make([]map[string]bool, len(ws))
	for i, w := range ws {
		out[i] = set(Keywords(append([]string{w.Title}, w.Text...)...))
	}
	return out
}

// holding answers the ids of the work whose keywords hold any of shared.
func holding(ws []Work, kws []map[string]bool, shared []string) []string {
	var ids []string
	for i, w := range ws {
		if slices.ContainsFunc(shared, func(k string) bool { return kws[i][k] }) {
			ids = append(ids, w.ID)
		}
	}
	return ids
}

// reason says it as the assistant would: who, what they share, and which of
// the operator's work it is about (the first two titles, and how many more).
func reason(m Match, cards, jobs []Work) string {
	var about []string
	for _, id := range m.Cards {
		about = append(about, fmt.Sprintf("card %q", title(cards, id)))
	}
	for _, id := range m.Jobs {
		about = append(about, fmt.Sprintf("job %q", title(jobs, id)))
	}
	if len(about) > 2 {
		about = append(about[:2], fmt.Sprintf("%d more", len(about)-2))
	}
	return fmt.Sprintf("%s (%s) and %s (%s) both know %s, as in your %s",
		m.A.Name, m.A.Party, m.B.Name, m.B.Party, list(m.Shared), list(about))
}

func title(ws []Work, id string) string {
	for _, w := range ws {
		if w.ID == id {
			return w.Title
		}
	}
	return id
}

// list joins items as a sentence does: "a", "a and b", "a, b and c".
func list(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
