package assistant

import (
	"testing"

	"github.com/switchboard-hq/switchboard/server/chat"
)

// Issue 35 point 2: one table lists each tag's effects, and a tag added
// without an entry fails here (every tag the executor runs, and every tag
// the documents name, built or not).
func TestEveryTagDeclaresItsEffects(t *testing.T) {
	t.Parallel()
	e := New(Config{})
	defer e.Close()
	names := map[string]bool{}
	for _, c := range e.Commands() {
		names[c.Name] = true
	}
	for _, c := range chat.Commands {
		names[c.Name] = true
	}
	if len(names) < len(chat.Commands) {
		t.Fatalf("only %d tags", len(names))
	}
	for name := range names {
		if _, ok := tagEffects[name]; !ok {
			t.Errorf("tag %q has no entry in tagEffects: say what it deletes, rejects, spends, reaches or grants", name)
		}
	}
	for name := range tagEffects {
		if !names[name] {
			t.Errorf("tagEffects lists %q, which no document names and the executor does not run", name)
		}
	}
	// The rulings' named cases (Reconciliation 7 among them).
	for name, want := range map[string]Effect{"remove_queue_item": Deletes, "relay_send": Reaches, "job_post": Reaches,
		"generate_image": Spends, "remove_capability": Deletes, "assign_team_to_project": Grants, "hire_provider": Spends} {
		if tagEffects[name].Always&want == 0 {
			t.Errorf("%s: effects %v, want %v among them", name, tagEffects[name].Always, want)
		}
	}
}

// A tag the table does not know is held as if it did everything.
func TestUnknownTagIsHeld(t *testing.T) {
	t.Parallel()
	e := &Executor{}
	fx, err := e.effectsOf(t.Context(), nil, "not_in_the_table", nil)
	if err != nil || fx != Deletes|Rejects|Spends|Reaches|Grants {
		t.Fatalf("effects %v, %v", fx, err)
	}
	if got := (Rejects | Reaches).String(); got != "rejects, reaches" {
		t.Fatalf("String %q", got)
	}
}
