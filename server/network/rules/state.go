package rules

import (
	"slices"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	queuerules "github.com/switchboard-hq/switchboard/server/queue/rules"
)

// The states of a relay (relay_state), RULINGS "The operator network":
// delivered → accepted (item approved) → blocked (with the reason; may
// return to accepted) → completed (item done, result attached) or declined
// (item rejected or removed).
const (
	StateDelivered = string(vocab.RelayStateDelivered)
	StateAccepted  = string(vocab.RelayStateAccepted)
	StateBlocked   = string(vocab.RelayStateBlocked)
	StateCompleted = string(vocab.RelayStateCompleted)
	StateDeclined  = string(vocab.RelayStateDeclined)
)

// The queue statuses FromQueue reads, from the queue's storage-free rules
// (TestFromQueueEveryStatus walks the vocabulary so a new status cannot go
// unmapped).
const (
	queuePending    = queuerules.PendingConfirmation
	queueReady      = queuerules.Ready
	queueInProgress = queuerules.InProgress
	queueDoneToday  = queuerules.DoneToday
	queueBlocked    = queuerules.Blocked
	queueLater      = queuerules.Later
)

// next is the complete transition table (TestNextEveryPair). Beyond the
// ruling's chain: delivered → blocked, because the queue lets a pending item
// be blocked directly and the sender must hear of it; delivered → declined
// (rejected) and accepted|blocked → declined (removed); blocked → completed,
// the ruling's own arrow. delivered → completed is not a move: the queue
// completes a pending item only through ready, so the sender hears accepted
// first.
var next = map[string][]string{
	StateDelivered: {StateAccepted, StateBlocked, StateDeclined},
	StateAccepted:  {StateBlocked, StateCompleted, StateDeclined},
	StateBlocked:   {StateAccepted, StateCompleted, StateDeclined},
	StateCompleted: {},
	StateDeclined:  {},
}

// Final reports whether s is a state a relay never leaves.
func Final(s string) bool { return s == StateCompleted || s == StateDeclined }

// Next checks a change of a relay's state on the recipient: nil when the
// table allows it; an unknown state is bad input (400), anything else an
// illegal move naming where the relay can go.
func Next(from, to string) error {
	for _, s := range []string{from, to} {
		if !States.Has(s) {
			return apperr.OneOf("state", s, States.Values)
		}
	}
	switch {
	case from == to:
		return apperr.IllegalMove("relay is already %s", to)
	case Final(from):
		return apperr.IllegalMove("relay is %s and cannot move to %s: a finished relay stays finished", from, to)
	case !slices.Contains(next[from], to):
		return apperr.IllegalMove("relay cannot move from %s to %s; from %s it can move to %s",
			from, to, from, strings.Join(next[from], ", "))
	}
	return nil
}

// FromQueue answers the relay state of a queue item's status: pending is
// delivered; ready, in_progress and later are accepted (the operator took the
// item on: the queue lets a later item start without approval); blocked is
// blocked; done_today is completed. An item rejected or removed has no
// status: its relay is StateDeclined, which Next refuses after completed (an
// item cleared away once done leaves its relay completed).
func FromQueue(status string) (string, error) {
	switch status {
	case queuePending:
		return StateDelivered, nil
	case queueReady, queueInProgress, queueLater:
		return StateAccepted, nil
	case queueBlocked:
		return StateBlocked, nil
	case queueDoneToday:
		return StateCompleted, nil
	}
	return "", apperr.Invalid("queue status %q has no relay state", status)
}

// Change decides what a queue move means for the relay the item came from:
// the new relay state and whether it changed (in_progress → ready is accepted
// both sides: nothing to send). A move the relay table refuses is an error;
// the queue's own table never produces one (TestChangeFollowsQueueMoves).
func Change(fromStatus, toStatus string) (state string, changed bool, err error) {
	from, err := FromQueue(fromStatus)
	if err != nil {
		return "", false, err
	}
	to, err := FromQueue(toStatus)
	if err != nil {
		return "", false, err
	}
	if from == to {
		return from, false, nil
	}
	if err := Next(from, to); err != nil {
		return "", false, err
	}
	return to, true, nil
}

// rank orders the states for acks: blocked and accepted share a rank, since
// a relay goes back and forth between them.
var rank = map[string]int{
	StateDelivered: 0,
	StateAccepted:  1,
	StateBlocked:   1,
	StateCompleted: 2,
	StateDeclined:  2,
}

// Ack is a relay-ack as the sender receives it. OccurredAt is when the
// change happened on the recipient; the service fills an absent one with
// its clock's now before deciding.
type Ack struct {
	State      string
	OccurredAt time.Time
}

// ApplyAck decides whether the sender applies an ack to its relay, which is
// in state cur since curAt (the OccurredAt of the last ack applied; zero
// while delivered). Acks travel through the outbox and its retries, so they
// may arrive late, twice or out of order; the sender applies one only if it
// moves the relay forward (RULINGS), read as:
//   - a finished relay never changes;
//   - a later rank applies at once (a late accepted after completed is then
//     ignored, and a completed may overtake a delayed accepted);
//   - accepted ⇄ blocked applies only when it happened after the last
//     applied change, so a replayed older ack changes nothing;
//   - the same state again changes nothing.
//
// An ack of delivered, or of no relay state at all, is bad input (400).
func ApplyAck(cur string, curAt time.Time, ack Ack) (bool, error) {
	if ack.State == StateDelivered || !States.Has(ack.State) {
		acks := slices.DeleteFunc(slices.Clone(States.Values), func(s string) bool { return s == StateDelivered })
		return false, apperr.Invalid("state %q is not one of %s", ack.State, strings.Join(acks, ", "))
	}
	switch {
	case Final(cur) || ack.State == cur:
		return false, nil
	case rank[ack.State] > rank[cur]:
		return true, nil
	case rank[ack.State] == rank[cur]:
		return ack.OccurredAt.After(curAt), nil
	}
	return false, nil
}
