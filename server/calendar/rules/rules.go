// Package rules is the calendar's pure half (RULINGS "The proactive layer",
// Calendar and its Details): the words of a title, the shipped English stop
// words, which events count as starting soon, and the Now order, priority
// rank plus the calendar boost, then age. No storage, no transport.
package rules

import (
	_ "embed"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Boost is the points a correlated item gains over its priority rank.
const Boost = 25

// Window is how far ahead an event's start correlates: an event starting
// within it (not one already under way) boosts the items that name it.
const Window = 60 * time.Minute

// MinWordLen is the shortest word that counts, in letters.
const MinWordLen = 3

//go:embed stopwords.txt
var stopwordsText string

var stopwords = func() map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(stopwordsText, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			out[line] = true
		}
	}
	return out
}()

// IsStopWord reports whether w (lowercase) is on the shipped list.
func IsStopWord(w string) bool { return stopwords[w] }

// Words are a title's words that can correlate, lowercased, each once, in
// order of first appearance: runs of letters and digits (an apostrophe inside
// a word kept, so "don't" is one word) of at least MinWordLen runes, not stop
// words.
func Words(title string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	}) {
		w = strings.Trim(strings.ReplaceAll(w, "’", "'"), "'")
		if utf8.RuneCountInString(w) < MinWordLen || stopwords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// Event is what the correlation reads of a calendar event.
type Event struct {
	ID       string
	Title    string
	StartsAt time.Time
}

// StartsSoon reports whether an event starting at start correlates at now:
// after now (an event under way, or starting this instant, no longer does)
// and at most Window ahead (exactly 60 minutes counts, a second more does not).
func StartsSoon(start, now time.Time) bool {
	return start.After(now) && !start.After(now.Add(Window))
}

// Reason is why an item gained points.
type Reason struct {
	Points   int
	EventID  string
	Event    string // the event's title
	StartsAt time.Time
	Words    []string // the words the item's title shares with the event's
}

// Correlate answers the boost an item titled title gains at now from events:
// Boost once, for the soonest event starting soon whose words the title
// shares (events later in the window are not named), or nothing.
func Correlate(title string, events []Event, now time.Time) (Reason, bool) {
	words := map[string]bool{}
	for _, w := range Words(title) {
		words[w] = true
	}
	var best Reason
	found := false
	for _, ev := range events {
		if !StartsSoon(ev.StartsAt, now) || (found && !ev.StartsAt.Before(best.StartsAt)) {
			continue
		}
		var shared []string
		for _, w := range Words(ev.Title) {
			if words[w] {
				shared = append(shared, w)
			}
		}
		if len(shared) > 0 {
			best = Reason{Points: Boost, EventID: ev.ID, Event: ev.Title, StartsAt: ev.StartsAt, Words: shared}
			found = true
		}
	}
	return best, found
}

// Rank is a priority's rank in points: urgent 75, high 50, medium 25, low
// 0, so that the boost lifts an item one priority up (ties then go by age).
func Rank(priority string) int {
	switch vocab.Priority(priority) {
	case vocab.PriorityUrgent:
		return 75
	case vocab.PriorityHigh:
		return 50
	case vocab.PriorityMedium:
		return 25
	}
	return 0
}

// Item is what the Now order reads of an item waiting for the operator.
type Item struct {
	ID        string
	Title     string
	Priority  string
	CreatedAt time.Time
}

// Ranked is an item in the Now order: its score and the reasons of its boosts.
type Ranked struct {
	Item
	Score   int
	Reasons []Reason
}

// Order ranks items at now: score (priority rank plus the calendar boost)
// highest first, then age, newest first as the Now view has always listed
// them, then id for a stable order.
func Order(items []Item, events []Event, now time.Time) []Ranked {
	out := make([]Ranked, 0, len(items))
	for _, it := range items {
		r := Ranked{Item: it, Score: Rank(it.Priority), Reasons: []Reason{}}
		if why, ok := Correlate(it.Title, events, now); ok {
			r.Score += why.Points
			r.Reasons = append(r.Reasons, why)
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.After(b.CreatedAt)
		}
		return a.ID < b.ID
	})
	return out
}
