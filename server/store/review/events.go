package review

import (
	"context"
	"time"
)

// ExecutionTracked is published in the transaction that creates a marketplace
// execution of another account's agent: the requester's queue follows it,
// opening an item for it or, when it runs for an existing item (ForItem),
// linking that one.
type ExecutionTracked struct {
	UserID      string
	ExecutionID string
	// AgentName is the store agent's name, the actor of the board and comms
	// entries.
	AgentName   string
	Title       string
	Description string
	// ItemID is the requester's existing item the execution runs for; empty
	// opens a new one.
	ItemID   string
	Metadata map[string]any
	At       time.Time
}

// ResultDelivered is published in the transaction that finishes a tracked
// execution: the requester's item takes the result (the output when
// Completed, otherwise why it failed) and, for a completed run, the shared
// document and the review widget in Metadata.
type ResultDelivered struct {
	UserID      string
	ExecutionID string
	AgentName   string
	Title       string
	Description string
	Result      string
	Completed   bool
	Metadata    map[string]any
	At          time.Time
}

type itemKey struct{}

// ForItem is ctx for running a store execution on behalf of the user's
// existing item (an approved item for a store agent, moved to in_progress):
// the execution's tracking links that item instead of opening another, and
// its delivery completes it.
func ForItem(ctx context.Context, itemID string) context.Context {
	return context.WithValue(ctx, itemKey{}, itemID)
}

// ItemFor is the item ForItem named, if any.
func ItemFor(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(itemKey{}).(string)
	return id, ok && id != ""
}
