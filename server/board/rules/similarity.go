package rules

import (
	"math/bits"
	"slices"
	"strings"
)

// Thresholds in whole percent: the decision compares integers, so a pair
// exactly at the threshold (3 edits in 12 runes is 0.75) is never lost to
// floating-point rounding.
const (
	TitlePercent     = 75 // cards' titles (merge_suggestion)
	ChecklistPercent = 80 // checklist texts across cards (duplicate_tasks)
)

// Normalize is the form texts are compared in: lowercased and trimmed.
func Normalize(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// Similarity is 1 − Levenshtein distance / the longer length, in runes, of
// two normalized texts; two empty texts are identical.
func Similarity(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	m := max(len(ra), len(rb))
	if m == 0 {
		return 1
	}
	return 1 - float64(Levenshtein(ra, rb, m))/float64(m)
}

// AtLeast says whether distance d over the longer length m is a similarity
// of at least pct percent: (m − d) / m ≥ pct / 100.
func AtLeast(d, m, pct int) bool { return m == 0 || (m-d)*100 >= pct*m }

// maxDistance is the largest distance that keeps a pair of longer length m
// at pct percent or more.
func maxDistance(m, pct int) int { return (100 - pct) * m / 100 }

// Levenshtein is the edit distance of a and b, or any value above k once it
// is certain to exceed k (the early exit: a row's minimum never decreases).
func Levenshtein(a, b []rune, k int) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > k {
		return k + 1
	}
	if len(a) == 0 {
		return len(b)
	}
	prev := make([]int, len(a)+1)
	cur := make([]int, len(a)+1)
	for i := range prev {
		prev[i] = i
	}
	for j := 1; j <= len(b); j++ {
		cur[0] = j
		rowMin := cur[0]
		for i := 1; i <= len(a); i++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[i]+1, cur[i-1]+1, prev[i-1]+cost)
			cur[i] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > k {
			return k + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(a)]
}

// Text is one text in a pairwise comparison, with the group it belongs to
// (its card): texts of one group are not compared with each other.
type Text struct {
	Group int
	Text  string // normalized
}

// Pair is two texts (indexes into the input, I < J) at or above the
// threshold, with their similarity.
type Pair struct {
	I, J       int
	Similarity float64
}

// profile is what the pre-filter knows of a text without comparing it.
type profile struct {
	idx   int
	runes []rune
	set   uint64     // which of 64 rune classes occur
	hist  [32]uint16 // occurrences per rune class (folded to 32)
}

func classOf(r rune) uint { return uint(r) * 0x9E3779B1 >> 26 & 63 }

func newProfile(i int, s string) profile {
	p := profile{idx: i, runes: []rune(s)}
	for _, r := range p.runes {
		c := classOf(r)
		p.set |= 1 << c
		p.hist[c&31]++
	}
	return p
}

// SimilarPairs finds every pair of texts of different groups whose
// similarity is at least pct percent. It never compares all pairs with the
// edit distance; the pre-filters are exact bounds, so no pair at or above
// the threshold is dropped (FuzzSimilarPairs holds it to NaivePairs):
//   - length: a distance is at least the difference of the lengths, so with
//     the texts sorted by length a text is compared only with those up to
//     len·100/pct runes long;
//   - rune classes: every occurrence of a rune the other text lacks costs an
//     edit, so the classes present in one text and absent from the other
//     bound the distance from below, as does the longer length minus the
//     common occurrences per class (a class merges runes, which only
//     overstates what is common);
//   - the edit distance itself stops once it must exceed the bound.
func SimilarPairs(texts []Text, pct int) []Pair {
	ps := make([]profile, len(texts))
	for i, t := range texts {
		ps[i] = newProfile(i, t.Text)
	}
	slices.SortStableFunc(ps, func(a, b profile) int { return len(a.runes) - len(b.runes) })
	var out []Pair
	for x := range ps {
		a := &ps[x]
		la := len(a.runes)
		for y := x + 1; y < len(ps); y++ {
			b := &ps[y]
			m := len(b.runes) // ≥ la
			if la*100 < pct*m {
				break // every later text is longer still
			}
			if texts[a.idx].Group == texts[b.idx].Group {
				continue
			}
			k := maxDistance(m, pct)
			if bits.OnesCount64(a.set&^b.set) > k || bits.OnesCount64(b.set&^a.set) > k {
				continue
			}
			common := 0
			for c := range a.hist {
				common += int(min(a.hist[c], b.hist[c]))
			}
			if m-common > k {
				continue
			}
			d := Levenshtein(a.runes, b.runes, k)
			if d > k || !AtLeast(d, m, pct) {
				continue
			}
			i, j := a.idx, b.idx
			if i > j {
				i, j = j, i
			}
			out = append(out, Pair{I: i, J: j, Similarity: 1 - float64(d)/float64(max(m, 1))})
		}
	}
	slices.SortFunc(out, func(p, q Pair) int {
		if p.I != q.I {
			return p.I - q.I
		}
		return p.J - q.J
	})
	return out
}

// NaivePairs is the comparison without pre-filters: the full edit distance
// of every pair of different groups. It is the reference the fuzz test and
// the benchmark measure SimilarPairs against.
func NaivePairs(texts []Text, pct int) []Pair {
	var out []Pair
	for i := range texts {
		for j := i + 1; j < len(texts); j++ {
			if texts[i].Group == texts[j].Group {
				continue
			}
			a, b := []rune(texts[i].Text), []rune(texts[j].Text)
			m := max(len(a), len(b))
			d := Levenshtein(a, b, m)
			if AtLeast(d, m, pct) {
				out = append(out, Pair{I: i, J: j, Similarity: 1 - float64(d)/float64(max(m, 1))})
			}
		}
	}
	return out
}
