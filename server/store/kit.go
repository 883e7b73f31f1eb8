package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/memoryentry"
	"github.com/switchboard-hq/switchboard/internal/db"
)

// MemorySource marks the memory entries an installed store agent writes.
const MemorySource = "store_agent"

// MaxMemoryEntries is how many entries one installation writes at most
// (docs/decisions.md "Store limits": up to 8).
const MaxMemoryEntries = 8

// KitEntry is one memory entry an installation writes.
type KitEntry struct{ Kind, Title, Content string }

// Decompose turns a listing's integration kit into memory entries: an
// overview (always), then one entry per kit part that is set, in the order
// the document lists them. Empty parts write nothing, so an agent with a
// bare kit writes one entry and a full kit eight.
func Decompose(a *ent.StoreAgent) []KitEntry {
	var over strings.Builder
	fmt.Fprintf(&over, "%s (@%s) is an installed store agent.", a.Name, a.Slug)
	if a.Description != nil {
		fmt.Fprintf(&over, "\n%s", *a.Description)
	}
	fmt.Fprintf(&over, "\nInput format: %s.", a.InputFormat)
	out := []KitEntry{{"overview", a.Name, over.String()}}
	part := func(kind, title string, v *string) {
		if v != nil && strings.TrimSpace(*v) != "" {
			out = append(out, KitEntry{kind, a.Name + ": " + title, *v})
		}
	}
	if len(a.TaskTypes) > 0 {
		tt := strings.Join(a.TaskTypes, ", ")
		part("task_types", "task types", &tt)
	}
	part("context_instructions", "context instructions", a.ContextInstructions)
	part("required_input_schema", "required input schema", a.RequiredInputSchema)
	part("output_schema", "output schema", a.OutputSchema)
	part("usage_examples", "usage examples", a.UsageExamples)
	part("context_preparation", "context preparation", a.ContextPreparation)
	part("execution_notes", "execution notes", a.ExecutionNotes)
	return out
}

// writeMemory replaces userID's memory entries of agent a with its current
// kit, in tx, and answers them in order.
func writeMemory(ctx context.Context, tx *db.Tx, userID string, a *ent.StoreAgent, now time.Time) ([]*ent.MemoryEntry, error) {
	if _, err := removeMemory(ctx, tx, userID, a.ID); err != nil {
		return nil, err
	}
	entries := Decompose(a)
	creates := make([]*ent.MemoryEntryCreate, len(entries))
	for i, e := range entries {
		creates[i] = tx.MemoryEntry.Create().SetUserID(userID).SetSource(MemorySource).SetSourceID(a.ID).
			SetKind(e.Kind).SetTitle(e.Title).SetContent(e.Content).SetPosition(i).SetCreatedAt(now).SetUpdatedAt(now)
	}
	return tx.MemoryEntry.CreateBulk(creates...).Save(ctx)
}

// removeMemory deletes userID's memory entries of one agent.
func removeMemory(ctx context.Context, tx *db.Tx, userID, agentID string) (int, error) {
	return tx.MemoryEntry.Delete().Where(memoryentry.UserID(userID), memoryentry.Source(MemorySource),
		memoryentry.SourceID(agentID)).Exec(ctx)
}
