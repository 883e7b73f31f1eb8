package rules

import (
	"slices"
	"testing"
)

func TestComplete(t *testing.T) {
	t.Parallel()
	all := slices.Clone(Steps)
	for _, c := range []struct {
		name           string
		done, keys     []string
		wantDone, want []string
		finished       bool
	}{
		{"first", nil, []string{"contact"}, []string{"contact"}, []string{"contact"}, false},
		{"again", []string{"contact"}, []string{"contact"}, []string{"contact"}, nil, false},
		{"unknown", []string{"contact"}, []string{"nope", ""}, []string{"contact"}, nil, false},
		{"several in the checklist's order", []string{"store"}, []string{"assistant", "api_key", "store"},
			[]string{"store", "api_key", "assistant"}, []string{"api_key", "assistant"}, false},
		{"the sixth", all[:5], []string{all[5]}, all, all[5:], true},
		{"all at once", nil, all, all, all, true},
		{"after the end", all, []string{"contact"}, all, nil, false},
	} {
		p := Complete(c.done, c.keys...)
		if !slices.Equal(p.Done, c.wantDone) || !slices.Equal(p.New, c.want) || p.Finished != c.finished {
			t.Errorf("%s: Complete(%v, %v) = %+v, want done %v new %v finished %t", c.name, c.done, c.keys, p, c.wantDone, c.want, c.finished)
		}
	}
	done := []string{"contact"}
	Complete(done, "store")
	if !slices.Equal(done, []string{"contact"}) {
		t.Errorf("Complete changed its argument: %v", done)
	}
}

func TestListAndTexts(t *testing.T) {
	t.Parallel()
	if len(Steps) != 6 || Steps[0] != "api_key" || Steps[5] != "assistant" {
		t.Fatalf("steps: %v", Steps)
	}
	list := List([]string{"network"})
	for i, s := range list {
		if s.Key != Steps[i] || s.Text == "" || s.Text != Text(s.Key) || s.Completed != (s.Key == "network") {
			t.Errorf("step %d: %+v", i, s)
		}
	}
	if !Known("store") || Known("stores") || All(Steps[:5]) || !All(Steps) {
		t.Error("Known or All")
	}
	if BySettings.Activity() != "setup_action" || ByHand.Activity() != "onboarding_progress" || Before.Activity() != "onboarding_progress" ||
		ByAction.Activity() != "onboarding_progress" {
		t.Error("the activities of a completion")
	}
}
