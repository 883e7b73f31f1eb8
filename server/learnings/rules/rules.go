// Package rules is the learnings' pure half (RULINGS "The proactive layer"):
// the signals' aggregate, the deterministic analysis that turns 30 days of
// signals and the queue's history into learnings with a confidence, and the
// action sequences that recur across users (the admin's workflows). No
// storage, no transport.
package rules

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Window is how far back the analysis reads.
const Window = 30 * 24 * time.Hour

// Retention is how long a signal is kept.
const Retention = 180 * 24 * time.Hour

// The analysis's thresholds: below them a pattern is not worth a learning.
const (
	// MinSignals is how many signals the schedule needs at all.
	MinSignals = 10
	// MinPeak is how many signals the peak hour or day needs.
	MinPeak = 3
	// MinAction is how often an action must recur to be a behavior.
	MinAction = 5
	// MinApprovals is RULINGS' "at least 5 times without an edit".
	MinApprovals = 5
	// MinDone is how many completed items of a type make a capability.
	MinDone = 3
	// Top is how many behaviors and capabilities one run names at most.
	Top = 3
	// half is the evidence at which confidence reaches 0.5.
	half = 5
)

// Confidence is n/(n+5) rounded to two places: 0 without evidence, 0.5 at
// five, approaching 1 as evidence grows, never above it.
func Confidence(n int) float64 {
	if n <= 0 {
		return 0
	}
	return math.Round(float64(n)/float64(n+half)*100) / 100
}

// Signal is one behavior signal as the analysis reads it.
type Signal struct {
	Action string
	Hour   int // 0–23
	Day    int // 0 (Sunday)–6
}

// Approval is one queue item the operator approved (pending_confirmation →
// ready), with whether it was edited before.
type Approval struct {
	Type   string // queue_type
	Source string // who made the item ("" when unknown)
	Edited bool
}

// History is what one account's analysis reads.
type History struct {
	Signals   []Signal
	Approvals []Approval
	// Done are the task types of the items completed (done_today).
	Done []string
}

// Finding is one learning the analysis derives. Key says what it is about,
// stable across runs, so a finding already stored is refreshed.
type Finding struct {
	Key        string
	Category   vocab.LearningCategory
	Content    string
	Evidence   int
	Confidence float64
}

var days = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

// Analyze derives the findings of h, in a fixed order: schedule, behavior,
// workflow, capability.
func Analyze(h History) []Finding {
	var out []Finding
	add := func(key string, c vocab.LearningCategory, n int, content string) {
		out = append(out, Finding{Key: key, Category: c, Content: content, Evidence: n, Confidence: Confidence(n)})
	}
	if agg := Aggregate(h.Signals); agg.Total >= MinSignals {
		if n := agg.ByHour[agg.PeakHour]; n >= MinPeak {
			add(fmt.Sprintf("schedule:hour:%d", agg.PeakHour), vocab.LearningCategorySchedule, n,
				fmt.Sprintf("Most active between %02d:00 and %02d:00", agg.PeakHour, (agg.PeakHour+1)%24))
		}
		if n := agg.ByDay[agg.PeakDay]; n >= MinPeak {
			add(fmt.Sprintf("schedule:day:%d", agg.PeakDay), vocab.LearningCategorySchedule, n,
				"Most active on "+days[agg.PeakDay]+"s")
		}
	}
	for _, a := range top(count(h.Signals, func(s Signal) string { return s.Action }), MinAction) {
		add("behavior:action:"+a.name, vocab.LearningCategoryBehavior, a.n, fmt.Sprintf("Often does %q", a.name))
	}
	unedited := slices.DeleteFunc(slices.Clone(h.Approvals), func(a Approval) bool { return a.Edited })
	for _, t := range ranked(count(unedited, func(a Approval) string { return a.Type }), MinApprovals) {
		add("workflow:type:"+t.name, vocab.LearningCategoryWorkflow, t.n,
			fmt.Sprintf("Approves %s items without editing them: consider auto-approving them", t.name))
	}
	for _, s := range ranked(count(unedited, func(a Approval) string { return SafeName(a.Source) }), MinApprovals) {
		add("workflow:source:"+s.name, vocab.LearningCategoryWorkflow, s.n,
			fmt.Sprintf("Approves items from %s without editing them: consider auto-approving them", s.name))
	}
	for _, t := range top(count(h.Done, func(s string) string { return s }), MinDone) {
		add("capability:task:"+t.name, vocab.LearningCategoryCapability, t.n, fmt.Sprintf("Often completes %s items", t.name))
	}
	return out
}

// SafeName is an item's source when it is a plain token (letters, digits
// and ":_.@-", at most 64): a learning's text reaches the assistant's
// prompt as the operator's, and a source may be written by an agent.
func SafeName(s string) string {
	if len(s) == 0 || len(s) > 64 {
		return ""
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(":_.@-", r)) {
			return ""
		}
	}
	return s
}

type tally struct {
	name string
	n    int
}

func count[T any](xs []T, key func(T) string) map[string]int {
	m := map[string]int{}
	for _, x := range xs {
		if k := key(x); k != "" {
			m[k]++
		}
	}
	return m
}

// ranked are the entries of at least min, most first, ties by name.
func ranked(m map[string]int, least int) []tally {
	var out []tally
	for k, n := range m {
		if n >= least {
			out = append(out, tally{k, n})
		}
	}
	slices.SortFunc(out, func(a, b tally) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.name, b.name)) })
	return out
}

// top are the first Top of ranked.
func top(m map[string]int, least int) []tally {
	r := ranked(m, least)
	return r[:min(len(r), Top)]
}

// Agg is the signals' aggregate (GET /api/behavior-signals?days=N).
type Agg struct {
	Total    int
	ByAction map[string]int
	ByHour   [24]int
	ByDay    [7]int
	PeakHour int // the earliest of the busiest hours; 0 without signals
	PeakDay  int
}

// Aggregate counts signals by action, hour and day.
func Aggregate(signals []Signal) Agg {
	a := Agg{Total: len(signals), ByAction: map[string]int{}}
	for _, s := range signals {
		a.ByAction[s.Action]++
		if s.Hour >= 0 && s.Hour < 24 {
			a.ByHour[s.Hour]++
		}
		if s.Day >= 0 && s.Day < 7 {
			a.ByDay[s.Day]++
		}
	}
	for h, n := range a.ByHour {
		if n > a.ByHour[a.PeakHour] {
			a.PeakHour = h
		}
	}
	for d, n := range a.ByDay {
		if n > a.ByDay[a.PeakDay] {
			a.PeakDay = d
		}
	}
	return a
}

// Sequence lengths of the admin's workflows, and how many users must share one.
const (
	MinSteps = 3
	MaxSteps = 5
	MinUsers = 3
)

// Workflow is one action sequence that recurs across users.
type Workflow struct {
	ID      string
	Actions []string
	Users   int
	Count   int
}

// WorkflowID is the sequence's stable id: wf_ and the first 16 hex digits
// of SHA-256 over the actions joined by a unit separator.
func WorkflowID(actions []string) string {
	sum := sha256.Sum256([]byte(strings.Join(actions, "\x1f")))
	return "wf_" + hex.EncodeToString(sum[:8])
}

// Workflows finds every run of MinSteps to MaxSteps consecutive actions
// (each user's, in time order) that occurs in at least MinUsers users'
// signals: most users first, then most occurrences, then by id.
func Workflows(byUser map[string][]string) []Workflow {
	type acc struct {
		actions []string
		users   map[string]bool
		n       int
	}
	seen := map[string]*acc{}
	for user, actions := range byUser {
		for n := MinSteps; n <= MaxSteps; n++ {
			for i := 0; i+n <= len(actions); i++ {
				seq := actions[i : i+n]
				id := WorkflowID(seq)
				a := seen[id]
				if a == nil {
					a = &acc{actions: slices.Clone(seq), users: map[string]bool{}}
					seen[id] = a
				}
				a.users[user] = true
				a.n++
			}
		}
	}
	var out []Workflow
	for id, a := range seen {
		if len(a.users) >= MinUsers {
			out = append(out, Workflow{ID: id, Actions: a.actions, Users: len(a.users), Count: a.n})
		}
	}
	slices.SortFunc(out, func(a, b Workflow) int {
		return cmp.Or(cmp.Compare(b.Users, a.Users), cmp.Compare(b.Count, a.Count), cmp.Compare(a.ID, b.ID))
	})
	return out
}
