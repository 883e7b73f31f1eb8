// Package rules owns the queue's lifecycle without storage (issue 27, as
// server/network/rules does for relays): the statuses, the complete transition
// table with its guards, the path that completes an item, and what a move
// means to the board's bridge. server/queue applies these decisions in its
// transactions; server/a2a and server/network/rules read an item's status
// through the constants here, so the table and the names live in one place.
package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// The statuses of an item (docs/decisions.md "Queue"), as plain strings for
// the rows and requests that carry them.
const (
	PendingConfirmation = string(vocab.QueueStatusPendingConfirmation)
	Ready               = string(vocab.QueueStatusReady)
	InProgress          = string(vocab.QueueStatusInProgress)
	DoneToday           = string(vocab.QueueStatusDoneToday)
	Blocked             = string(vocab.QueueStatusBlocked)
	Later               = string(vocab.QueueStatusLater)
)

// Statuses lists every status, in lifecycle order (vocabulary.proto).
var Statuses = vocab.Values("queue_status")

// transitions is the complete transition table (docs/decisions.md "Queue").
var transitions = map[string][]string{
	PendingConfirmation: {Ready, Blocked, Later},
	Ready:               {InProgress, DoneToday, Blocked, Later},
	InProgress:          {DoneToday, Blocked, Later, Ready},
	Blocked:             {Ready, InProgress, Later},
	Later:               {Ready, InProgress, Blocked},
	DoneToday:           {},
}

// Transitions answers a copy of the transition table: status → the statuses
// it may move to.
func Transitions() map[string][]string {
	out := make(map[string][]string, len(transitions))
	for from, to := range transitions {
		out[from] = slices.Clone(to)
	}
	return out
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

// PathToDone is the moves that complete an item from status from, through
// the transition table: done_today directly where the table allows it,
// otherwise through ready (an item waiting for confirmation, blocked or
// later is approved, then completed); none when it is done already.
func PathToDone(from string) []string {
	switch {
	case from == DoneToday:
		return nil
	case CheckMove(from, DoneToday) == nil:
		return []string{DoneToday}
	case CheckMove(from, Ready) == nil && CheckMove(Ready, DoneToday) == nil:
		return []string{Ready, DoneToday}
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
