package queue

import (
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/kanban"
)

// The statuses of an item (docs/decisions.md "Queue").
const (
	PendingConfirmation = "pending_confirmation"
	Ready               = "ready"
	InProgress          = "in_progress"
	DoneToday           = "done_today"
	Blocked             = "blocked"
	Later               = "later"
)

// Statuses lists every status, in lifecycle order (vocabulary.proto).
var Statuses = vocab.Values("queue_status")

// Types and Priorities are the other enumerated values of an item.
var (
	Types = vocab.Values("queue_type")
	// Priorities are the card priorities: the bridge gives a new card its item's.
	Priorities = kanban.Priorities
)

// transitions is the complete transition table (docs/decisions.md "Queue").
var transitions = map[string][]string{
	PendingConfirmation: {Ready, Blocked, Later},
	Ready:               {InProgress, DoneToday, Blocked, Later},
	InProgress:          {DoneToday, Blocked, Later, Ready},
	Blocked:             {Ready, InProgress, Later},
	Later:               {Ready, InProgress, Blocked},
	DoneToday:           {},
}

// MoveError says why a move is refused. Unknown is set when the target is not a
// status at all (bad input rather than an illegal move).
type MoveError struct {
	Reason  string
	Unknown bool
}

func (e *MoveError) Error() string { return e.Reason }

// CheckMove applies the transition table and its guards to a move from one
// status to another; nil means the move is legal.
func CheckMove(from, to string) *MoveError {
	if !slices.Contains(Statuses, to) {
		return &MoveError{Reason: fmt.Sprintf("unknown status %q; statuses are %s", to, strings.Join(Statuses, ", ")), Unknown: true}
	}
	switch {
	case from == to:
		return &MoveError{Reason: fmt.Sprintf("item is already %s", to)}
	case from == DoneToday:
		// Guard 2: completed items cannot be resurrected.
		return &MoveError{Reason: fmt.Sprintf("item is done_today and cannot move to %s: completed items cannot be reopened", to)}
	case from == PendingConfirmation && (to == InProgress || to == DoneToday):
		// Guard 1.
		return &MoveError{Reason: fmt.Sprintf("item is waiting for confirmation and cannot move to %s: approve it first (it then becomes ready)", to)}
	case !slices.Contains(transitions[from], to):
		return &MoveError{Reason: fmt.Sprintf("item cannot move from %s to %s; from %s it can move to %s", from, to, from, strings.Join(transitions[from], ", "))}
	}
	return nil
}

// Event is what a move means to the kanban bridge.
type Event uint8

// The bridge events (docs/decisions.md "Queue": dispatched, completes, fails).
const (
	EventNone Event = iota
	EventDispatched
	EventCompleted
	EventFailed
)

// EventOf classifies a move by its target status.
func EventOf(to string) Event {
	switch to {
	case InProgress:
		return EventDispatched
	case DoneToday:
		return EventCompleted
	case Blocked:
		return EventFailed
	}
	return EventNone
}

// Confirm messages (docs/decisions.md "Queue").
func approvedMessage(title string) string {
	return fmt.Sprintf("%q approved and added to queue", title)
}
func rejectedMessage(title string) string { return fmt.Sprintf("%q rejected and removed", title) }
