package rules

import (
	"slices"
	"strings"
	"testing"
)

// docs/decisions.md "The operator network": keywords are lowercase words
// without stop words, single characters and bare numbers, each once, in the
// order first met.
func TestKeywords(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   []string
		want []string
	}{
		{[]string{"Build the Payments API for Acme"}, []string{"build", "payments", "api", "acme"}},
		{[]string{"Go, go, GO!"}, []string{"go"}},
		{[]string{"Q3 2026 budget: 12 items"}, []string{"q3", "budget", "items"}},
		{[]string{"a I x"}, nil},
		{[]string{"C++ and C# developers", "#fintech"}, []string{"c++", "c#", "developers", "fintech"}},
		{[]string{"Acme Inc", "acme LLC"}, []string{"acme"}},
		{[]string{"Café Zürich — naïve"}, []string{"café", "zürich", "naïve"}},
		{[]string{"data-driven/ML"}, []string{"data", "driven", "ml"}},
		{[]string{"", "   "}, nil},
		{nil, nil},
	}
	for _, tc := range cases {
		if got := Keywords(tc.in...); !slices.Equal(got, tc.want) {
			t.Errorf("Keywords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// RULINGS "serendipity_matches": pairs among the operator's contacts and
// connections whose tags, skills or company overlap the keywords of the
// operator's active cards and open jobs, scored by overlap, each with its
// reason.
func TestSerendipity(t *testing.T) {
	t.Parallel()
	ana := Person{ID: "p1", Name: "Ana", Party: PartyContact, Tags: []string{"Fintech"}, Skills: []string{"payments", "go"}}
	ben := Person{ID: "p2", Name: "Ben", Party: PartyConnection, Skills: []string{"Go", "Payments"}, Company: "Acme Inc"}
	cy := Person{ID: "p3", Name: "Cy", Party: PartyContact, Company: "Acme", Tags: []string{"golf"}}
	dee := Person{ID: "p4", Name: "Dee", Party: PartyConnection, Tags: []string{"golf", "fintech"}}
	cards := []Work{{ID: "k1", Title: "Payments revamp", Text: []string{"Move Acme to the new payments API"}}}
	jobs := []Work{{ID: "j1", Title: "Go developer", Text: []string{"Fintech startup", "go"}}}

	got := Serendipity([]Person{dee, cy, ben, ana}, cards, jobs, 0)
	type pair struct {
		a, b    string
		shared  string
		overlap int
		cards   []string
		jobs    []string
	}
	want := []pair{
		{"p1", "p2", "go,payments", 2, []string{"k1"}, []string{"j1"}}, // ana & ben
		{"p1", "p4", "fintech", 1, nil, []string{"j1"}},                // ana & dee
		{"p2", "p3", "acme", 1, []string{"k1"}, nil},                   // ben & cy: the company
	}
	if len(got) != len(want) {
		t.Fatalf("got %d matches, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.A.ID != w.a || g.B.ID != w.b || strings.Join(g.Shared, ",") != w.shared || g.Overlap != w.overlap ||
			!slices.Equal(g.Cards, w.cards) || !slices.Equal(g.Jobs, w.jobs) {
			t.Errorf("match %d = %s & %s sharing %v (%d) cards %v jobs %v; want %+v", i, g.A.ID, g.B.ID, g.Shared, g.Overlap, g.Cards, g.Jobs, w)
		}
	}
	// golf is shared by Cy and Dee but no card or job is about it: no pair.
	wantReason := `Ana (contact) and Ben (connection) both know go and payments, as in your card "Payments revamp" and job "Go developer"`
	if got[0].Reason != wantReason {
		t.Errorf("reason = %q\nwant     %q", got[0].Reason, wantReason)
	}

	if got := Serendipity([]Person{dee, cy, ben, ana}, cards, jobs, 1); len(got) != 1 || got[0].Overlap != 2 {
		t.Errorf("limit 1: %+v", got)
	}
	if got := Serendipity([]Person{ana, ben}, nil, nil, 5); len(got) != 0 {
		t.Errorf("no cards or jobs: %+v, want no matches", got)
	}
	if got := Serendipity([]Person{ana}, cards, jobs, 5); len(got) != 0 {
		t.Errorf("one person: %+v, want no pairs", got)
	}
}

// Ties rank by the pair's ids, the default limit is 5, and a reason names
// at most two pieces of work and counts the rest.
func TestSerendipityOrderAndLimit(t *testing.T) {
	t.Parallel()
	var people []Person
	for _, id := range []string{"f", "c", "a", "e", "b", "d"} {
		people = append(people, Person{ID: id, Name: strings.ToUpper(id), Party: PartyContact, Skills: []string{"rust"}})
	}
	cards := []Work{{ID: "k1", Title: "Rust port"}, {ID: "k2", Title: "Rust audit"}, {ID: "k3", Title: "Rust training"}}
	got := Serendipity(people, cards, nil, 0)
	if len(got) != DefaultMaxMatches {
		t.Fatalf("got %d matches, want the default %d", len(got), DefaultMaxMatches)
	}
	var pairs []string
	for _, m := range got {
		pairs = append(pairs, m.A.ID+m.B.ID)
	}
	// Whatever the input order: the smaller id first, ranked by the first id,
	// then the second.
	if strings.Join(pairs, " ") != "ab ac ad ae af" {
		t.Errorf("pairs = %v, want ab ac ad ae af", pairs)
	}
	if !strings.HasSuffix(got[0].Reason, `as in your card "Rust port", card "Rust audit" and 1 more`) {
		t.Errorf("reason = %q", got[0].Reason)
	}
}

// Keywords holds its promises on any text: lowercase, once each, no stop
// words, no single characters or bare numbers, no leading + or #.
func FuzzKeywords(f *testing.F) {
	for _, s := range []string{"Build the Payments API", "C++ / C# #go", "Ünïcode ÇAFÉ 42 x", "\x00\xff++##", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		seen := map[string]bool{}
		for _, k := range Keywords(s, s) {
			switch {
			case seen[k]:
				t.Errorf("%q twice", k)
			case k != strings.ToLower(k):
				t.Errorf("%q is not lowercase", k)
			case stopWords[k] || len([]rune(k)) < 2 || isNumber(k):
				t.Errorf("%q should have been dropped", k)
			case strings.HasPrefix(k, "+") || strings.HasPrefix(k, "#"):
				t.Errorf("%q starts with + or #", k)
			}
			seen[k] = true
		}
	})
}
