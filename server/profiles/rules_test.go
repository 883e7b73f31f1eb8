package profiles

import (
	"testing"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// Every viewer against every visibility of both vocabularies.
func TestSees(t *testing.T) {
	t.Parallel()
	want := map[Viewer]map[string]bool{
		Anonymous: {"public": true, "network": false, "private": false},
		Network:   {"public": true, "network": true, "private": false},
		Insider:   {"public": true, "network": true, "private": true},
	}
	for _, name := range []string{"profile_visibility", "team_visibility"} {
		values := vocab.Values(name)
		if len(values) != 3 {
			t.Fatalf("%s has %v: the rule covers public, network and private", name, values)
		}
		for v, row := range want {
			for _, vis := range values {
				w, ok := row[vis]
				if !ok {
					t.Fatalf("%s's %q has no row in the table", name, vis)
				}
				if got := Sees(v, vis); got != w {
					t.Errorf("Sees(%d, %s %q) = %t, want %t", v, name, vis, got, w)
				}
			}
		}
	}
}
