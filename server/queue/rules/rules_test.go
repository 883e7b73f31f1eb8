package rules

import (
	"go/build"
	"strings"
	"testing"
)

// The queue's rules stay storage-free (issue 27): server/a2a and
// server/network/rules import this package to name statuses and read the
// table, so it must not bring ent or the database with it.
func TestImportsNoStorage(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/switchboard-hq/switchboard/"
	for _, imp := range pkg.Imports {
		if rest, ok := strings.CutPrefix(imp, module); ok && rest != "internal/vocab" {
			t.Errorf("server/queue/rules imports %s; it may import only internal/vocab of this module", imp)
		}
	}
}

// Every status has a row of the table, and every target in it is a status.
func TestTableCoversTheVocabulary(t *testing.T) {
	table := Transitions()
	if len(table) != len(Statuses) {
		t.Fatalf("the table has %d rows for %d statuses", len(table), len(Statuses))
	}
	for _, from := range Statuses {
		to, ok := table[from]
		if !ok {
			t.Errorf("status %s has no row", from)
		}
		for _, s := range to {
			if CheckMove(from, s) != nil {
				t.Errorf("%s → %s is in the table but CheckMove refuses it", from, s)
			}
		}
	}
	table[Ready] = nil // a copy: the table itself is untouched
	if len(Transitions()[Ready]) == 0 {
		t.Error("Transitions answers the table itself, not a copy")
	}
}
