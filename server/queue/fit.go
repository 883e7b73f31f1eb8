package queue

import (
	"context"
	"encoding/json"
	"log/slog"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/server/store"
)

// target is the store agent an item is for, with the input schema its
// optimizedPayload must fit (an item is for a store agent when its
// metadata names agentId: docs/decisions.md "The assistant (issue 16)").
type target struct {
	ID     string
	schema *jsonschema.Schema
	valid  *jsonschema.Resolved
	raw    string
}

// targetOf is the store agent meta names, when the caller may see it and it
// has a usable requiredInputSchema; nil otherwise (the generic payload). A
// schema that does not read or resolve is as none (docs/decisions.md "The
// assistant (issue 16)").
func targetOf(ctx context.Context, c *ent.Client, userID string, meta map[string]any) *target {
	id, _ := meta["agentId"].(string)
	if id == "" {
		return nil
	}
	// Only a listing the caller may see in the store: another's draft keeps
	// its schema.
	a, err := c.StoreAgent.Query().Where(storeagent.ID(id), store.VisibleTo(userID)).Only(ctx)
	if err != nil || a.RequiredInputSchema == nil || strings.TrimSpace(*a.RequiredInputSchema) == "" {
		return nil
	}
	return parseTarget(id, *a.RequiredInputSchema)
}

// parseTarget reads and resolves a schema; remote $refs are not fetched
// (the library's default loader refuses them).
func parseTarget(id, raw string) *target {
	sch := &jsonschema.Schema{}
	if err := json.Unmarshal([]byte(raw), sch); err != nil {
		return nil
	}
	res, err := sch.Resolve(nil)
	if err != nil {
		return nil
	}
	return &target{ID: id, schema: sch, valid: res, raw: raw}
}

// validates reports whether payload fits the schema, read as JSON values.
func (t *target) validates(payload map[string]any) bool {
	v, ok := asJSON(payload)
	return ok && t.valid.Validate(v) == nil
}

func asJSON(payload map[string]any) (map[string]any, bool) {
	b, err := json.Marshal(payload)
	if err != nil {
		return nil, false
	}
	var out map[string]any
	return out, json.Unmarshal(b, &out) == nil && out != nil
}

// fitFallback maps the generic payload's keys onto the schema's properties
// by name (case-insensitively); a generic value that is empty or does not
// validate against its property is not used. The schema's required
// properties left unfilled are the gaps (never nil, so an empty list says
// nothing is missing).
func (t *target) fitFallback(s suggestion) suggestion {
	generic, _ := asJSON(s.Payload)
	out := map[string]any{}
	for name, prop := range t.schema.Properties {
		for _, k := range payloadKeys {
			v, ok := generic[k]
			if !ok || !strings.EqualFold(name, k) || empty(v) {
				continue
			}
			if prop != nil {
				if r, err := prop.Resolve(nil); err != nil || r.Validate(v) != nil {
					continue
				}
			}
			out[name] = v
		}
	}
	gaps := []string{}
	for _, name := range t.schema.Required {
		if _, ok := out[name]; !ok {
			gaps = append(gaps, name)
		}
	}
	sort.Strings(gaps)
	return suggestion{Summary: s.Summary, Payload: out, Agent: t.ID, Gaps: gaps}
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case []any:
		return len(x) == 0
	}
	return false
}

const fitPrompt = `You rewrite a task for the AI agent that will carry it out.
Answer only a JSON object with two keys:
"displaySummary": one plain sentence of at most 120 characters saying what is asked;
"optimizedPayload": an object that validates against the agent's input JSON Schema below.
Do not invent facts that are not in the task.
The agent's input schema:
`

// suggestFor is the optimizer's proposal for an item for t: with a model it
// asks for a payload in t's schema and keeps it only if it validates;
// otherwise (no model, a failed call, an answer that does not validate)
// the generic fallback mapped onto the schema, with its gaps. Without a
// target it is suggest.
func suggestFor(ctx context.Context, model *llm.Client, t *target, in text) suggestion {
	if t == nil {
		return suggest(ctx, model, in)
	}
	if model != nil {
		q, _ := json.Marshal(map[string]string{"title": in.Title, "description": in.Description})
		var out struct {
			DisplaySummary   string         `json:"displaySummary"`
			OptimizedPayload map[string]any `json:"optimizedPayload"`
		}
		err := model.CompleteJSON(ctx, fitPrompt+t.raw, string(q), &out)
		sum := strings.Join(strings.Fields(out.DisplaySummary), " ")
		if err == nil && sum != "" && out.OptimizedPayload != nil && t.validates(out.OptimizedPayload) {
			return suggestion{Summary: cut(sum), Payload: out.OptimizedPayload, Agent: t.ID}
		}
		slog.WarnContext(ctx, "prompt optimizer: no payload that fits the agent's schema; using the fallback", "agent", t.ID, "err", err)
	}
	return t.fitFallback(fallback(in))
}
