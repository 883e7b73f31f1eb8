package queue_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Queue" and "Shared chat and events": the comms messages a move
// writes reach the stream as new_message, an urgent item becoming ready wakes
// the agents, and a refused move says nothing. Events come after the commit,
// in order.
func TestQueueEventsReachTheStream(t *testing.T) {
	e := setup(t)
	st := e.api.Stream("/api/v2/shared-chat/stream")
	st.NextOf("connected")
	next := func() servertest.SSEEvent {
		t.Helper()
		for {
			if ev := st.Next(); ev.Event != "heartbeat" {
				return ev
			}
		}
	}
	approve := func(id string) {
		t.Helper()
		if res := e.ann.Session.Do(http.MethodPost, "/api/queue/confirm", map[string]any{"id": id, "action": "approve"}); res.Status != http.StatusOK {
			t.Fatalf("approve: %d %s", res.Status, res.Body)
		}
	}
	plain := e.create(t, map[string]any{"title": "Write report"})["id"].(string)
	approve(plain) // ready, but not urgent: no wake
	if res := e.move(t, plain, "pending_confirmation"); res.Status != http.StatusBadRequest {
		t.Fatalf("illegal move: %d %s", res.Status, res.Body)
	}
	e.mustMove(t, plain, "in_progress")
	ev := next()
	var started struct {
		Type    string
		Message struct{ Role, Content, Metadata string }
	}
	if err := json.Unmarshal([]byte(ev.Data), &started); err != nil || ev.Event != "new_message" ||
		started.Message.Role != "assistant" || started.Message.Content != "Started: Write report" {
		t.Fatalf("after dispatch: %s %s (%v)", ev.Event, ev.Data, err)
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(started.Message.Metadata), &meta); err != nil || meta["type"] != "agent_execution_started" || meta["queueItemId"] != plain {
		t.Fatalf("comms metadata %q", started.Message.Metadata)
	}

	urgent := e.create(t, map[string]any{"title": "Server down", "priority": "urgent"})["id"].(string)
	approve(urgent)
	if ev := next(); ev.Event != "wake" {
		t.Fatalf("after approving an urgent item: %s %s", ev.Event, ev.Data)
	} else if w := ev.JSON(t); w["reason"] != "urgent_task" || w["metadata"].(map[string]any)["queueItemId"] != urgent {
		t.Fatalf("wake: %s", ev.Data)
	}
	e.mustMove(t, plain, "done_today")
	if ev := next(); ev.Event != "new_message" || ev.JSON(t)["message"].(map[string]any)["content"] != "Completed: Write report" {
		t.Fatalf("after completion: %s %s", ev.Event, ev.Data)
	}
}
