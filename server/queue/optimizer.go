package queue

import (
	"strings"
	"time"
	"unicode/utf8"
)

// maxSummary bounds displaySummary (document 1, "Optimizer summary").
const maxSummary = 120

// text is an item's title and description at one moment.
type text struct{ Title, Description string }

// optimize writes what the prompt optimizer adds to an edited item's metadata
// (document 1, "QueueItem"). Without a language model it is deterministic
// (RULINGS, last ruling): the summary is the first 120 characters and the
// payload uses the generic keys. The first _original is kept, so a chain of
// edits still shows what the item said before anyone touched it. Title and
// description are never changed here.
func optimize(meta map[string]any, before, after text, now time.Time) {
	meta["displaySummary"] = summarize(after)
	meta["optimizedPayload"] = map[string]any{
		"task":         after.Title,
		"context":      after.Description,
		"deliverables": []string{},
		"files":        []string{},
		"constraints":  []string{},
	}
	if _, ok := meta["_original"]; !ok {
		meta["_original"] = map[string]any{"title": before.Title, "description": before.Description}
	}
	meta["_optimizedAt"] = now.UTC().Format(time.RFC3339)
	meta["_optimizedForAgent"] = "generic"
}

// summarize is the first 120 characters of the description (the title when
// there is none), with runs of white space folded.
func summarize(t text) string {
	src := t.Description
	if strings.TrimSpace(src) == "" {
		src = t.Title
	}
	s := strings.Join(strings.Fields(src), " ")
	if utf8.RuneCountInString(s) <= maxSummary {
		return s
	}
	return string([]rune(s)[:maxSummary])
}
