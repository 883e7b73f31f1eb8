package rules

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// words make the synthetic boards of the benchmarks (BenchmarkScan, go run
// ./bench cortex): texts of English task words, a tenth of them near copies.
var words = strings.Fields(`call email draft review send book plan fix update write check order pay invoice
client budget report meeting venue slides launch website design logo copy contract renew insurance tax
filing hire interview onboard migrate server backup test release notes team offsite travel flights hotel
grant proposal deadline survey research vendor quote shipping inventory audit payroll security training`)

// SyntheticBoard is a deterministic board of n cards with perCard checklist
// items each, at now.
func SyntheticBoard(n, perCard int, now time.Time) []Card {
	r := rand.New(rand.NewPCG(1, 2))
	phrase := func(lo, hi int) string {
		k := lo + r.IntN(hi-lo+1)
		out := make([]string, k)
		for i := range out {
			out[i] = words[r.IntN(len(words))]
		}
		return strings.Join(out, " ")
	}
	mutate := func(s string) string {
		b := []rune(s)
		b[r.IntN(len(b))] = 'x'
		return string(b)
	}
	cards := make([]Card, n)
	var titles, items []string
	for i := range cards {
		title := phrase(2, 5)
		if i > 0 && r.IntN(10) == 0 {
			title = mutate(titles[r.IntN(len(titles))])
		}
		titles = append(titles, title)
		c := Card{ID: fmt.Sprintf("card-%04d", i), Title: title, CreatedAt: now.Add(-time.Duration(n-i) * time.Hour),
			UpdatedAt: now.Add(-time.Duration(r.IntN(40*24)) * time.Hour), Completed: r.IntN(5) == 0}
		if r.IntN(8) == 0 {
			due := now.Add(time.Duration(r.IntN(96)-24) * time.Hour)
			c.Due = &due
		}
		for range perCard {
			text := phrase(3, 7)
			if len(items) > 0 && r.IntN(10) == 0 {
				text = mutate(items[r.IntN(len(items))])
			}
			items = append(items, text)
			c.Items = append(c.Items, Item{Text: text, Done: r.IntN(3) == 0})
		}
		cards[i] = c
	}
	return cards
}

// Texts are a board's normalized titles and checklist texts, as Scan
// compares them.
func Texts(cards []Card) (titles, items []Text) {
	for i, c := range cards {
		titles = append(titles, Text{Group: i, Text: Normalize(c.Title)})
		for _, it := range c.Items {
			items = append(items, Text{Group: i, Text: Normalize(it.Text)})
		}
	}
	return titles, items
}
