package queue

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/internal/llm"
)

// maxSummary bounds displaySummary (queue.proto).
const maxSummary = 120

// genericAgent is the target when an item is not bound for a known agent.
const genericAgent = "generic"

// text is an item's title and description at one moment.
type text struct{ Title, Description string }

// suggestion is what the optimizer proposes for an edited item.
type suggestion struct {
	Summary string
	Payload map[string]any
	// Agent is the store agent the payload was fitted to ("" for none);
	// Gaps are the schema's required properties the fallback could not
	// fill.
	Agent string
	Gaps  []string
}

// payloadKeys are the generic keys of optimizedPayload.
var payloadKeys = []string{"task", "context", "deliverables", "files", "constraints"}

// fallback is the deterministic rewrite used without a language model (docs/decisions.md
// "Language model"): the first 120 characters, and the generic payload keys.
func fallback(t text) suggestion {
	return suggestion{Summary: summarize(t), Payload: map[string]any{
		"task": t.Title, "context": t.Description,
		"deliverables": []string{}, "files": []string{}, "constraints": []string{},
	}}
}

const optimizerPrompt = `You rewrite a task for the AI agent that will carry it out.
Answer only a JSON object with two keys:
"displaySummary": one plain sentence of at most 120 characters saying what is asked;
"optimizedPayload": an object with exactly the keys "task" (string), "context" (string),
"deliverables", "files" and "constraints" (arrays of strings).
Do not invent facts that are not in the task.`

// suggest asks the configured language model, and falls back to the
// deterministic rewrite when there is none or its answer does not fit.
func suggest(ctx context.Context, model *llm.Client, t text) suggestion {
	if model == nil {
		return fallback(t)
	}
	in, _ := json.Marshal(map[string]string{"title": t.Title, "description": t.Description})
	var out struct {
		DisplaySummary   string         `json:"displaySummary"`
		OptimizedPayload map[string]any `json:"optimizedPayload"`
	}
	if err := model.CompleteJSON(ctx, optimizerPrompt, string(in), &out); err != nil {
		slog.WarnContext(ctx, "prompt optimizer: using the deterministic fallback", "err", err)
		return fallback(t)
	}
	sum := strings.Join(strings.Fields(out.DisplaySummary), " ")
	if sum == "" || !validPayload(out.OptimizedPayload) {
		slog.WarnContext(ctx, "prompt optimizer: model answer did not fit; using the deterministic fallback")
		return fallback(t)
	}
	return suggestion{Summary: cut(sum), Payload: out.OptimizedPayload}
}

func validPayload(p map[string]any) bool {
	if len(p) != len(payloadKeys) {
		return false
	}
	for _, k := range payloadKeys {
		switch v := p[k].(type) {
		case string:
			if k != "task" && k != "context" {
				return false
			}
		case []any:
			if k == "task" || k == "context" {
				return false
			}
			for _, e := range v {
				if _, ok := e.(string); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// optimize writes what the prompt optimizer adds to an edited item's metadata
// (queue.proto, QueueItem). The first _original is kept, so a chain of edits
// still shows what the item said before anyone touched it. Title and
// description are never changed here.
func optimize(meta map[string]any, before text, s suggestion, now time.Time) {
	meta["displaySummary"] = s.Summary
	meta["optimizedPayload"] = s.Payload
	if _, ok := meta["_original"]; !ok {
		meta["_original"] = map[string]any{"title": before.Title, "description": before.Description}
	}
	meta["_optimizedAt"] = now.UTC().Format(time.RFC3339)
	meta["_optimizedForAgent"] = genericAgent
	delete(meta, "_optimizerGaps")
	if s.Agent != "" {
		meta["_optimizedForAgent"] = s.Agent
		if s.Gaps != nil {
			meta["_optimizerGaps"] = s.Gaps
		}
	}
}

// summarize is the first 120 characters of the description (the title when
// there is none), with runs of white space folded.
func summarize(t text) string {
	src := t.Description
	if strings.TrimSpace(src) == "" {
		src = t.Title
	}
	return cut(strings.Join(strings.Fields(src), " "))
}

func cut(s string) string {
	if utf8.RuneCountInString(s) <= maxSummary {
		return s
	}
	return string([]rune(s)[:maxSummary])
}
