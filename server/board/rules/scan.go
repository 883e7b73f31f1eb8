// Package rules is the board analysis (RULINGS "The proactive layer"): the
// text similarity, the thresholds and the scan over plain cards. No storage,
// no transport: server/board reads the cards, persists what Scan finds and
// sets the escalated cards urgent.
package rules

import (
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// The time rules.
const (
	StaleAfter     = 14 * 24 * time.Hour // an active card with no update this long is stale
	ArchiveAfter   = 30 * 24 * time.Hour // a completed card untouched this long may be archived
	EscalateWithin = 48 * time.Hour      // due this soon (or overdue, or exactly 48 h) …
	EscalateBelow  = 30                  // … with under this percent of its checklist done
)

// Card is what the scan reads of a card (archived cards are not given).
type Card struct {
	ID        string
	Title     string
	Completed bool // in the completed column
	Urgent    bool
	CreatedAt time.Time
	UpdatedAt time.Time
	Due       *time.Time
	Items     []Item
}

// Item is one checklist line.
type Item struct {
	Text string
	Done bool
}

// Finding is one insight the scan raises: its type, the card it is about
// (a pair's source: the newer card, the one a merge folds away), the pair's
// other card ("" for one-card types), how sure, and why.
type Finding struct {
	Type       vocab.InsightType
	SourceID   string
	TargetID   string
	Confidence float64
	Reason     string
}

// Result is one scan.
type Result struct {
	Findings []Finding
	Stale    []string // card ids, in input order
	Escalate []string // due soon with little done, in input order
}

// Percent is the share of a checklist done, in whole percent rounded down;
// a card without items is 0 percent done.
func Percent(items []Item) int {
	if len(items) == 0 {
		return 0
	}
	done := 0
	for _, it := range items {
		if it.Done {
			done++
		}
	}
	return done * 100 / len(items)
}

// escalates says whether a card is due within 48 hours with under 30
// percent done. Compared on counts, not the rounded percent.
func escalates(c Card, now time.Time) bool {
	if c.Completed || c.Due == nil || c.Due.Sub(now) > EscalateWithin {
		return false
	}
	done := 0
	for _, it := range c.Items {
		if it.Done {
			done++
		}
	}
	return done*100 < EscalateBelow*len(c.Items) || len(c.Items) == 0
}

// older orders a pair: the older card is the target a merge keeps.
func older(a, b Card) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.ID < b.ID
}

// Scan analyses one account's board at now.
func Scan(cards []Card, now time.Time) Result {
	var r Result
	titles := make([]Text, len(cards))
	var items []Text
	var itemText []string
	for i, c := range cards {
		titles[i] = Text{Group: i, Text: Normalize(c.Title)}
		for _, it := range c.Items {
			items = append(items, Text{Group: i, Text: Normalize(it.Text)})
			itemText = append(itemText, it.Text)
		}
	}
	pair := func(typ vocab.InsightType, i, j int, sim float64, reason string) Finding {
		src, dst := cards[i], cards[j]
		if older(src, dst) {
			src, dst = dst, src
		}
		return Finding{Type: typ, SourceID: src.ID, TargetID: dst.ID, Confidence: sim, Reason: reason}
	}
	for _, p := range SimilarPairs(titles, TitlePercent) {
		r.Findings = append(r.Findings, pair(vocab.InsightTypeMergeSuggestion, p.I, p.J, p.Similarity,
			fmt.Sprintf("%q and %q look like the same card (%.0f%% similar titles)", cards[p.I].Title, cards[p.J].Title, p.Similarity*100)))
	}
	// One duplicate_tasks per pair of cards: the most similar of its texts.
	best := map[[2]int]Pair{}
	for _, p := range SimilarPairs(items, ChecklistPercent) {
		gi, gj := items[p.I].Group, items[p.J].Group
		k := [2]int{min(gi, gj), max(gi, gj)}
		if b, ok := best[k]; !ok || p.Similarity > b.Similarity {
			best[k] = p
		}
	}
	keys := make([][2]int, 0, len(best))
	for k := range best {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	for _, k := range keys {
		p := best[k]
		gi, gj := items[p.I].Group, items[p.J].Group
		r.Findings = append(r.Findings, pair(vocab.InsightTypeDuplicateTasks, gi, gj, p.Similarity,
			fmt.Sprintf("%q on %q and %q on %q look like the same task (%.0f%% similar)",
				itemText[p.I], cards[gi].Title, itemText[p.J], cards[gj].Title, p.Similarity*100)))
	}
	for _, c := range cards {
		idle := now.Sub(c.UpdatedAt)
		switch {
		case !c.Completed && idle >= StaleAfter:
			r.Stale = append(r.Stale, c.ID)
			r.Findings = append(r.Findings, Finding{Type: vocab.InsightTypeStaleCard, SourceID: c.ID, Confidence: 1,
				Reason: fmt.Sprintf("%q has not been updated for %d days", c.Title, int(idle/(24*time.Hour)))})
		case c.Completed && idle >= ArchiveAfter:
			r.Findings = append(r.Findings, Finding{Type: vocab.InsightTypeArchiveCandidate, SourceID: c.ID, Confidence: 1,
				Reason: fmt.Sprintf("%q was completed and untouched for %d days", c.Title, int(idle/(24*time.Hour)))})
		}
		if escalates(c, now) {
			r.Escalate = append(r.Escalate, c.ID)
			when := "is overdue"
			if left := c.Due.Sub(now); left >= 0 {
				when = fmt.Sprintf("is due in %d hours", int(left/time.Hour))
			}
			r.Findings = append(r.Findings, Finding{Type: vocab.InsightTypeAutoEscalate, SourceID: c.ID, Confidence: 1,
				Reason: fmt.Sprintf("%q %s with %d%% of its checklist done", c.Title, when, Percent(c.Items))})
		}
	}
	return r
}
