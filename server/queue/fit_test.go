package queue

import (
	"slices"
	"testing"
)

// RULINGS "The assistant": decompose_task's $N references are 0-indexed and
// name earlier subtasks only.
func TestRef(t *testing.T) {
	cases := []struct {
		ref  string
		i    int
		want int
		ok   bool
	}{
		{"", 0, -1, true}, {"$0", 1, 0, true}, {"$1", 3, 1, true},
		{"$0", 0, 0, false}, {"$1", 1, 0, false}, {"$2", 1, 0, false},
		{"0", 1, 0, false}, {"$", 1, 0, false}, {"$-1", 1, 0, false}, {"$01", 2, 0, false}, {"$+1", 2, 0, false},
		{"$1x", 2, 0, false}, {" $0", 1, 0, false},
	}
	for _, tc := range cases {
		got, err := Ref(tc.ref, tc.i)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("Ref(%q, %d) = %d, %v", tc.ref, tc.i, got, err)
		}
	}
}

// RULINGS "The assistant": without a provider the generic keys map onto the
// schema's properties by name; a value of the wrong type or an empty one is
// not used; required properties left are the gaps.
func TestFitFallback(t *testing.T) {
	tg := parseTarget("a1", `{"type":"object","required":["Task","deliverables","audience"],"properties":{`+
		`"Task":{"type":"string"},"context":{"type":"array"},"deliverables":{"type":"array"},"audience":{"type":"string"}}}`)
	if tg == nil {
		t.Fatal("schema did not resolve")
	}
	got := tg.fitFallback(fallback(text{"Ship it", "on Friday"}))
	if got.Payload["Task"] != "Ship it" || len(got.Payload) != 1 || got.Agent != "a1" {
		t.Fatalf("payload %v", got)
	}
	if !slices.Equal(got.Gaps, []string{"audience", "deliverables"}) {
		t.Fatalf("gaps %v", got.Gaps)
	}
	for _, bad := range []string{``, `{`, `{"type":12}`, `{"$ref":"https://example.com/s.json"}`} {
		if parseTarget("a1", bad) != nil {
			t.Errorf("schema %q was used", bad)
		}
	}
}
