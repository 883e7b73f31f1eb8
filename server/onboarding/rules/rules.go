// Package rules holds the onboarding checklist's pure decisions (RULINGS
// "Onboarding, sprite, admin views, the developer portal"): the six steps in
// order with their texts (vocabulary onboarding_step), what completing
// steps does to the completed list, and which activity a completion writes.
// No storage, no transport.
package rules

import (
	"slices"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Steps are the checklist's step keys in order.
var Steps = vocab.Values("onboarding_step")

// The names the checklist and its card carry.
const (
	// Title names the project and its card.
	Title = "Getting started"
	// Source is the checklist items' sourceType on the card.
	Source = "onboarding"
	// Phase is onboardingPhase once the intro was held.
	Phase = 6
)

// Text is a step's checklist item.
func Text(key string) string { return vocab.Get("onboarding_step").Labels[key] }

// Known says whether key is a step.
func Known(key string) bool { return slices.Contains(Steps, key) }

// How says what completed a step.
type How int

// What completes a step.
const (
	// ByAction is the step's real action (a key created, a contact added…).
	ByAction How = iota
	// BySettings is a settings save with auto-approve on.
	BySettings
	// ByHand is POST /api/onboarding/advance.
	ByHand
	// Before is an action done before setup-project made the checklist.
	Before
)

// Activity is the action of the activity entry a completion writes: a
// settings save's is setup_action, every other one onboarding_progress.
func (h How) Activity() string {
	if h == BySettings {
		return "setup_action"
	}
	return "onboarding_progress"
}

// Plan is what completing some steps does.
type Plan struct {
	// Done is the completed keys afterwards, in the order they were
	// completed.
	Done []string
	// New is the keys this completion completed, in the checklist's order.
	New []string
	// Finished: this completion completed the last open step.
	Finished bool
}

// Complete plans completing keys when done are completed already: unknown
// keys and completed ones change nothing.
func Complete(done []string, keys ...string) Plan {
	p := Plan{Done: slices.Clone(done)}
	for _, k := range Steps {
		if slices.Contains(keys, k) && !slices.Contains(p.Done, k) {
			p.New = append(p.New, k)
			p.Done = append(p.Done, k)
		}
	}
	p.Finished = len(p.New) > 0 && All(p.Done)
	return p
}

// All says whether done holds every step.
func All(done []string) bool {
	for _, k := range Steps {
		if !slices.Contains(done, k) {
			return false
		}
	}
	return true
}

// Step is one item of the checklist as the answers show it.
type Step struct {
	Key, Text string
	Completed bool
}

// List is the checklist in order with done marked.
func List(done []string) []Step {
	out := make([]Step, len(Steps))
	for i, k := range Steps {
		out[i] = Step{Key: k, Text: Text(k), Completed: slices.Contains(done, k)}
	}
	return out
}
