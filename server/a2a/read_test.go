package a2a

import (
	"slices"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/a2atask"
)

// tasks/get scans the record's columns by hand (one round trip with its
// item): a column the schema gains must be scanned too.
func TestRecordColumnsAreEnts(t *testing.T) {
	got, want := slices.Clone(recordColumns), slices.Clone(a2atask.Columns)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("taskWithItem scans %v; the record has %v", recordColumns, a2atask.Columns)
	}
}
