package queue

import (
	"fmt"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/kanban"
	"github.com/switchboard-hq/switchboard/server/queue/rules"
)

// The statuses of an item, owned by server/queue/rules.
const (
	PendingConfirmation = rules.PendingConfirmation
	Ready               = rules.Ready
	InProgress          = rules.InProgress
	DoneToday           = rules.DoneToday
	Blocked             = rules.Blocked
	Later               = rules.Later
)

// Statuses lists every status, in lifecycle order (vocabulary.proto).
var Statuses = rules.Statuses

// Types and Priorities are the other enumerated values of an item.
var (
	Types = vocab.Values("queue_type")
	// Priorities are the card priorities: the bridge gives a new card its item's.
	Priorities = kanban.Priorities
)

// transitions is the transition table of server/queue/rules.
var transitions = rules.Transitions()

// MoveError says why a move is refused (server/queue/rules).
type MoveError = rules.MoveError

// CheckMove applies the transition table and its guards to a move from one
// status to another; nil means the move is legal.
func CheckMove(from, to string) *MoveError { return rules.CheckMove(from, to) }

// Event is what a move means to the kanban bridge.
type Event = rules.Event

// The bridge events (server/queue/rules).
const (
	EventNone       = rules.EventNone
	EventDispatched = rules.EventDispatched
	EventCompleted  = rules.EventCompleted
	EventFailed     = rules.EventFailed
)

// EventOf classifies a move by its target status.
func EventOf(to string) Event { return rules.EventOf(to) }

// Confirm messages (docs/decisions.md "Queue").
func approvedMessage(title string) string {
	return fmt.Sprintf("%q approved and added to queue", title)
}
func rejectedMessage(title string) string { return fmt.Sprintf("%q rejected and removed", title) }
