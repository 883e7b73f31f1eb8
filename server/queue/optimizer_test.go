package queue

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestSummarize(t *testing.T) {
	long := strings.Repeat("é", 200)
	cases := []struct {
		name string
		in   text
		want string
	}{
		{"description wins", text{"Title", "  the   description\n here "}, "the description here"},
		{"title when no description", text{"Just a title", "  "}, "Just a title"},
		{"cut at 120 characters, not bytes", text{"t", long}, strings.Repeat("é", 120)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(tc.in)
			if got != tc.want || utf8.RuneCountInString(got) > maxSummary {
				t.Fatalf("summarize = %q", got)
			}
		})
	}
}

func TestOptimizeKeepsFirstOriginal(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	meta := map[string]any{"cardId": "c1"}
	optimize(meta, text{"v1", "d1"}, fallback(text{"v2", "d2"}), now)
	optimize(meta, text{"v2", "d2"}, fallback(text{"v3", "d3"}), now.Add(time.Minute))
	orig := meta["_original"].(map[string]any)
	if orig["title"] != "v1" || orig["description"] != "d1" {
		t.Fatalf("_original = %v, want the first version", orig)
	}
	payload := meta["optimizedPayload"].(map[string]any)
	for _, k := range []string{"task", "context", "deliverables", "files", "constraints"} {
		if _, ok := payload[k]; !ok {
			t.Errorf("optimizedPayload lacks %s", k)
		}
	}
	if payload["task"] != "v3" || meta["displaySummary"] != "d3" || meta["_optimizedAt"] != "2026-11-21T12:01:00Z" ||
		meta["_optimizedForAgent"] != "generic" || meta["cardId"] != "c1" {
		t.Fatalf("meta = %v", meta)
	}
}
