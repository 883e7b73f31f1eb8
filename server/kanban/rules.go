package kanban

import (
	"slices"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// The board's vocabularies (vocabulary.proto). Statuses are listed in
// column order: the board, and ListCards, show them left to right.
var (
	Statuses   = vocab.Values("card_status")
	Priorities = vocab.Values("priority")
	Assignees  = vocab.Values("assignee")
)

// Values the rules below name.
const (
	StatusCompleted = string(vocab.CardStatusCompleted)
	// SourceQueueReview marks the review row the queue bridge adds when a task
	// completes; while one is open the card shows the pending-review badge.
	SourceQueueReview  = "queue_review"
	DefaultInvolvement = "related"
)

// checkEnum refuses a value outside allowed, naming the allowed values.
// Item is what the checklist rules need of a checklist item.
type Item struct {
	Completed  bool
	SourceType string
}

// IsComplete reports whether a checklist has items and every one is completed.
// An empty checklist is not complete: there is nothing to have finished.
func IsComplete(items []Item) bool {
	if len(items) == 0 {
		return false
	}
	for _, it := range items {
		if !it.Completed {
			return false
		}
	}
	return true
}

func hasOpen(items []Item) bool {
	for _, it := range items {
		if !it.Completed {
			return true
		}
	}
	return false
}

// AutoCompletes reports whether a change that took a card's checklist from
// before to after completes the card (kanban.proto): the card is
// not completed yet, the change closed the last open item, and none is left.
// The rule fires on that edge only, so a card the operator moves back out of
// `completed` stays where it was put until an item is reopened and closed again.
func AutoCompletes(status string, before, after []Item) bool {
	return status != StatusCompleted && hasOpen(before) && IsComplete(after)
}

// PendingReview reports whether the card shows the pending-review badge: an
// unchecked queue_review item.
func PendingReview(items []Item) bool {
	for _, it := range items {
		if it.SourceType == SourceQueueReview && !it.Completed {
			return true
		}
	}
	return false
}

// statusRank is a status's column position, for ordering the board.
func statusRank(status string) int { return slices.Index(Statuses, status) }
