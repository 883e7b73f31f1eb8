package queue

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// RULINGS "Queue": the complete transition table, every ordered pair of states.
func TestTransitionTableEveryPair(t *testing.T) {
	legal := map[string]bool{
		"pending_confirmation>ready": true, "pending_confirmation>blocked": true, "pending_confirmation>later": true,
		"ready>in_progress": true, "ready>done_today": true, "ready>blocked": true, "ready>later": true,
		"in_progress>done_today": true, "in_progress>blocked": true, "in_progress>later": true, "in_progress>ready": true,
		"blocked>ready": true, "blocked>in_progress": true, "blocked>later": true,
		"later>ready": true, "later>in_progress": true, "later>blocked": true,
	}
	pairs := 0
	for _, from := range Statuses {
		for _, to := range Statuses {
			pairs++
			err := CheckMove(from, to)
			if want := legal[from+">"+to]; (err == nil) != want {
				t.Errorf("%s → %s: legal = %v, want %v (%v)", from, to, err == nil, want, err)
			}
			if err != nil && (err.Reason == "" || err.Unknown) {
				t.Errorf("%s → %s: refusal %+v must give a reason and not be 'unknown'", from, to, err)
			}
		}
	}
	if pairs != 36 {
		t.Fatalf("checked %d pairs", pairs)
	}
}

// Document 1, "Guards" 1–3.
func TestGuards(t *testing.T) {
	cases := []struct {
		name, from, to, wantInReason string
	}{
		{"guard 1: pending cannot start", PendingConfirmation, InProgress, "approve it first"},
		{"guard 1: pending cannot finish", PendingConfirmation, DoneToday, "approve it first"},
		{"guard 2: done cannot revert to ready", DoneToday, Ready, "cannot be reopened"},
		{"guard 2: done cannot revert to in_progress", DoneToday, InProgress, "cannot be reopened"},
		{"guard 3: a move to the same status", Ready, Ready, "already ready"},
		{"guard 3: any other illegal move names the options", Blocked, DoneToday, "it can move to ready, in_progress, later"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckMove(tc.from, tc.to)
			if err == nil || !strings.Contains(err.Reason, tc.wantInReason) {
				t.Fatalf("CheckMove(%s, %s) = %v, want a reason containing %q", tc.from, tc.to, err, tc.wantInReason)
			}
		})
	}
}

func TestUnknownTarget(t *testing.T) {
	for _, to := range []string{"", "done", "READY", "in-progress"} {
		err := CheckMove(Ready, to)
		if err == nil || !err.Unknown || !strings.Contains(err.Reason, "statuses are") {
			t.Errorf("CheckMove(ready, %q) = %+v", to, err)
		}
	}
}

func TestEventOf(t *testing.T) {
	want := map[string]Event{InProgress: EventDispatched, DoneToday: EventCompleted, Blocked: EventFailed,
		Ready: EventNone, Later: EventNone, PendingConfirmation: EventNone}
	for to, ev := range want {
		if got := EventOf(to); got != ev {
			t.Errorf("EventOf(%s) = %d, want %d", to, got, ev)
		}
	}
}

func TestConfirmMessages(t *testing.T) {
	if got := approvedMessage("Write the report"); got != `"Write the report" approved and added to queue` {
		t.Errorf("approved = %s", got)
	}
	if got := rejectedMessage(`Say "hi"`); got != fmt.Sprintf("%q rejected and removed", `Say "hi"`) {
		t.Errorf("rejected = %s", got)
	}
	if !slices.Equal(transitions[DoneToday], []string{}) {
		t.Errorf("done_today must lead nowhere")
	}
}

// RULINGS "A2A" (terminal widget actions complete the item): the path to
// done_today from every status, through the transition table only.
func TestPathToDoneEveryStatus(t *testing.T) {
	want := map[string][]string{
		PendingConfirmation: {Ready, DoneToday},
		Ready:               {DoneToday},
		InProgress:          {DoneToday},
		Blocked:             {Ready, DoneToday},
		Later:               {Ready, DoneToday},
		DoneToday:           nil,
	}
	for _, from := range Statuses {
		got := PathToDone(from)
		if !slices.Equal(got, want[from]) {
			t.Errorf("PathToDone(%s) = %v, want %v", from, got, want[from])
		}
		at := from
		for _, to := range got {
			if err := CheckMove(at, to); err != nil {
				t.Errorf("PathToDone(%s) takes an illegal step %s → %s", from, at, to)
			}
			at = to
		}
	}
}
