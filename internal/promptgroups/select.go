package promptgroups

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"unicode/utf8"
)

// Module is a dynamic module: an approved synced capability with a
// promptGroup, in the capabilityModuleSpec shape (RULINGS "Federation:
// instances and the platform").
type Module struct {
	Name           string   `json:"name"`
	PromptGroup    string   `json:"promptGroup"`
	SignalPatterns []string `json:"signalPatterns"`
	TokenEstimate  int      `json:"tokenEstimate"`
	AlwaysLoad     bool     `json:"alwaysLoad"`
	Prompt         string   `json:"prompt"`
}

// Limits of a module's patterns: a module comes from another instance, so
// what it may make every Select compile is bounded.
const (
	MaxModulePatterns = 20
	MaxPatternLen     = 200
	// maxCountedMatches bounds the matches counted per pattern and text, so
	// a huge text cannot make one Select allocate without end.
	maxCountedMatches = 100
)

// ValidateModule checks a module as capability sync will accept it, naming
// the field at fault: a name, a promptGroup naming a static group, a prompt,
// a non-negative tokenEstimate, at most MaxModulePatterns patterns of at most
// MaxPatternLen characters each compiling under (?i) and not matching the
// empty string, and at least one pattern unless alwaysLoad.
func ValidateModule(m Module) error {
	switch {
	case m.Name == "":
		return errors.New("name is required")
	case m.Prompt == "":
		return errors.New("prompt is required")
	case m.TokenEstimate < 0:
		return errors.New("tokenEstimate must not be negative")
	case len(m.SignalPatterns) == 0 && !m.AlwaysLoad:
		return errors.New("signalPatterns is required unless alwaysLoad is true")
	}
	if !slices.ContainsFunc(groups(), func(g Group) bool { return g.Name == m.PromptGroup }) {
		return fmt.Errorf("promptGroup %q is not one of the %d groups", m.PromptGroup, len(groups()))
	}
	return ValidatePatterns(m.SignalPatterns)
}

// ValidatePatterns checks signal patterns as ValidateModule does: at most
// MaxModulePatterns of at most MaxPatternLen characters each, compiling
// under (?i) and not matching the empty string; the error names the first
// pattern at fault.
func ValidatePatterns(patterns []string) error {
	if len(patterns) > MaxModulePatterns {
		return fmt.Errorf("signalPatterns has more than %d patterns", MaxModulePatterns)
	}
	for i, p := range patterns {
		if utf8.RuneCountInString(p) > MaxPatternLen {
			return fmt.Errorf("signalPatterns[%d] is longer than %d characters", i, MaxPatternLen)
		}
		if _, err := compile(p); err != nil {
			return fmt.Errorf("signalPatterns[%d]: %w", i, err)
		}
	}
	return nil
}

// moduleTokens is what a module counts against the budget: its declared
// estimate, or its prompt's own when that is larger, so a module cannot
// understate its size.
func moduleTokens(m Module) int { return max(m.TokenEstimate, EstimateTokens(m.Prompt)) }

// modulePatterns compiles a module's usable patterns. Select is also called
// with modules nobody validated, so a pattern ValidateModule would refuse is
// left out rather than failing the whole prompt.
func modulePatterns(m Module) []*regexp.Regexp {
	var res []*regexp.Regexp
	for _, p := range m.SignalPatterns[:min(len(m.SignalPatterns), MaxModulePatterns)] {
		if utf8.RuneCountInString(p) > MaxPatternLen {
			continue
		}
		if re, err := compile(p); err == nil {
			res = append(res, re)
		}
	}
	return res
}

// Selected is one part of the assembled prompt.
type Selected struct {
	Name string
	// Module is true for a dynamic module, false for a static group.
	Module bool
	// Index is the static group's index, -1 for a module.
	Index int
	// PromptGroup is the module's group, or the static group's own name.
	PromptGroup string
	// AlwaysLoaded is the group's alwaysLoaded or the module's alwaysLoad.
	AlwaysLoaded bool
	// Matches counts the pattern matches in the message and the last turns.
	Matches       int
	TokenEstimate int
	Prompt        string
}

// count is the number of matches of res in texts, and of those in texts[0].
func count(res []*regexp.Regexp, texts []string) (total, first int) {
	for i, t := range texts {
		for _, re := range res {
			n := len(re.FindAllStringIndex(t, maxCountedMatches))
			total += n
			if i == 0 {
				first += n
			}
		}
	}
	return total, first
}

// Select picks the groups and modules for a message (RULINGS "scoring"):
//
//   - The texts scored are message and the last LastTurns entries of
//     lastTurns (oldest first, so the tail), each pattern counting its
//     matches in each text.
//   - The static always-loaded groups (core, identity) come first, in index
//     order, and are never dropped, even when they alone exceed the budget.
//   - Then the candidates, in rank order: modules with alwaysLoad (in the
//     order given), then every other group and module with at least one
//     match, by matches (most first), then by matches in the message alone,
//     then static groups by index before modules in the order given.
//   - Candidates fill what the always-loaded groups leave of budget in that
//     order; one that does not fit is passed over and the next is tried.
//     A module's alwaysLoad puts it first in line but does not exempt it
//     from the budget: it comes from another instance.
//
// So the total TokenEstimate never exceeds max(budget, the always-loaded
// groups' total). budget <= 0 loads the always-loaded groups alone.
func Select(message string, lastTurns []string, budget int, dynamic []Module) []Selected {
	texts := append([]string{message}, lastTurns[max(0, len(lastTurns)-LastTurns):]...)
	type candidate struct {
		s            Selected
		first, order int
	}
	var out []Selected
	var cands []candidate
	used := 0
	for _, g := range groups() {
		total, first := count(g.res, texts)
		s := Selected{Name: g.Name, Index: g.Index, PromptGroup: g.Name, AlwaysLoaded: g.AlwaysLoaded,
			Matches: total, TokenEstimate: g.TokenEstimate, Prompt: g.Prompt}
		switch {
		case g.AlwaysLoaded:
			out = append(out, s)
			used += s.TokenEstimate
		case total > 0:
			cands = append(cands, candidate{s: s, first: first, order: g.Index})
		}
	}
	for i, m := range dynamic {
		total, first := count(modulePatterns(m), texts)
		if total == 0 && !m.AlwaysLoad {
			continue
		}
		cands = append(cands, candidate{
			s: Selected{Name: m.Name, Module: true, Index: -1, PromptGroup: m.PromptGroup, AlwaysLoaded: m.AlwaysLoad,
				Matches: total, TokenEstimate: moduleTokens(m), Prompt: m.Prompt},
			first: first, order: len(groups()) + i,
		})
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		aAlways, bAlways := a.s.Module && a.s.AlwaysLoaded, b.s.Module && b.s.AlwaysLoaded
		switch {
		case aAlways != bAlways:
			if aAlways {
				return -1
			}
			return 1
		case a.s.Matches != b.s.Matches:
			return b.s.Matches - a.s.Matches
		case a.first != b.first:
			return b.first - a.first
		}
		return a.order - b.order
	})
	for _, c := range cands {
		if used+c.s.TokenEstimate <= budget {
			out = append(out, c.s)
			used += c.s.TokenEstimate
		}
	}
	return out
}
