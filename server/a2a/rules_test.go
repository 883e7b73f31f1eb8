package a2a

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
)

// RULINGS "A2A": task state follows the item.
func TestStateOfEveryStatus(t *testing.T) {
	t.Parallel()
	want := map[string]a2a.TaskState{
		"pending_confirmation": a2a.TaskStateSubmitted, "ready": a2a.TaskStateSubmitted, "later": a2a.TaskStateSubmitted,
		"in_progress": a2a.TaskStateWorking, "blocked": a2a.TaskStateInputRequired, "done_today": a2a.TaskStateCompleted,
		"nonsense": a2a.TaskStateUnknown,
	}
	for status, state := range want {
		if got := stateOf(status); got != state {
			t.Errorf("stateOf(%q) = %q, want %q", status, got, state)
		}
	}
}

// RULINGS "A2A": rejected by the operator → rejected; cancelled → canceled;
// a done item stays completed.
func TestFinalState(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status   string
		rejected bool
		want     a2a.TaskState
	}{
		{"pending_confirmation", true, a2a.TaskStateRejected},
		{"pending_confirmation", false, a2a.TaskStateCanceled},
		{"in_progress", false, a2a.TaskStateCanceled},
		{"done_today", false, a2a.TaskStateCompleted},
	}
	for _, c := range cases {
		if got, _ := finalState(c.status, c.rejected); got != c.want {
			t.Errorf("finalState(%q, %v) = %q, want %q", c.status, c.rejected, got, c.want)
		}
	}
}

// RULINGS "A2A": title is the first line of the text, at most 200 characters.
func TestTitleOf(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"Book a table\nfor four at eight": "Book a table",
		"\n\n  Call Ana  \nlater":         "Call Ana",
		strings.Repeat("é", 250):          strings.Repeat("é", 200),
		"   \n  ":                         "",
	}
	for in, want := range cases {
		if got := titleOf(in); got != want {
			t.Errorf("titleOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// Document 2 "A2A endpoint": seven artifact types, text by default.
func TestArtifactType(t *testing.T) {
	t.Parallel()
	for _, typ := range ArtifactTypes {
		if got := artifactType(map[string]any{"artifactType": typ}); got != typ {
			t.Errorf("artifactType(%q) = %q", typ, got)
		}
	}
	for _, meta := range []map[string]any{nil, {"artifactType": "video"}, {"artifactType": 3}} {
		if got := artifactType(meta); got != "text" {
			t.Errorf("artifactType(%v) = %q, want text", meta, got)
		}
	}
	if len(ArtifactTypes) != 7 {
		t.Errorf("%d artifact types, want 7", len(ArtifactTypes))
	}
}

// RULINGS "Input at the boundary": a NUL arrives in JSON only as the escape
// \u0000; an escaped backslash before "u0000" is text.
func TestHasNULEscape(t *testing.T) {
	t.Parallel()
	cases := map[string]bool{
		`{"t":"a\u0000b"}`:   true,
		`{"t":"a\\u0000b"}`:  false,
		`{"t":"a\\\u0000b"}`: true,
		`{"t":"u0000"}`:      false,
		`{"t":"\u00001"}`:    true,
		`{"t":"\u0001"}`:     false,
		`{"u0000":"x"}`:      false,
	}
	for in, want := range cases {
		if got := hasNULEscape([]byte(in)); got != want {
			t.Errorf("hasNULEscape(%s) = %v, want %v", in, got, want)
		}
	}
}
