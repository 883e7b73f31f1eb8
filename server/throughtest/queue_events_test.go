package throughtest

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
	e := setupQueue(t)
	st := e.api.Stream("/api/v2/shared-chat/stream")
	st.NextOf("connected")
	next := func() servertest.SSEEvent {
		t.Helper()
		for {
			// queue_updated has its own test below.
			if ev := st.Next(); ev.Event != "heartbeat" && ev.Event != "queue_updated" {
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

// Issue 12, "Live queue": every change of an item reaches every stream of the
// account as queue_updated {change, item}, in order, after the commit; a
// refused change says nothing; another account hears nothing; a client that
// reconnects with Last-Event-ID receives what it missed.
func TestQueueUpdatedReachesTheStream(t *testing.T) {
	e := setupQueue(t)
	st := e.api.Stream("/api/v2/shared-chat/stream")
	st.NextOf("connected")
	bob := e.s.SignUp("bob")
	other := e.s.WithKey(bob.NewKey("Bob's agent")).Stream("/api/v2/shared-chat/stream")
	other.NextOf("connected")

	type update struct {
		Change string
		Item   struct{ ID, Title, Status, Priority, Source string }
	}
	// nextUpdate skips the stream's other events (comms messages, heartbeats).
	nextUpdate := func(st *servertest.SSEStream) servertest.SSEEvent {
		t.Helper()
		for {
			if ev := st.Next(); ev.Event == "queue_updated" {
				return ev
			}
		}
	}
	var lastID string
	want := func(change, id, status string) update {
		t.Helper()
		ev := nextUpdate(st)
		var u update
		if err := json.Unmarshal([]byte(ev.Data), &u); err != nil || u.Change != change || u.Item.ID != id || u.Item.Status != status {
			t.Fatalf("want queue_updated %s %s %s, got %s (%v)", change, id, status, ev.Data, err)
		}
		if !ev.HasID {
			t.Fatalf("queue_updated carries no id, so it cannot be resumed: %+v", ev)
		}
		lastID = ev.ID
		return u
	}

	id := e.create(t, map[string]any{"title": "Book the venue", "priority": "high", "source": "Planner"})["id"].(string)
	if u := want("created", id, "pending_confirmation"); u.Item.Title != "Book the venue" || u.Item.Priority != "high" || u.Item.Source != "Planner" {
		t.Fatalf("created: %+v", u)
	}
	if res := e.api.Do(http.MethodPut, "/api/v2/queue/"+id, map[string]any{"id": id, "title": "Book the hall"}); res.Status != http.StatusOK {
		t.Fatalf("update: %d %s", res.Status, res.Body)
	}
	if u := want("updated", id, "pending_confirmation"); u.Item.Title != "Book the hall" {
		t.Fatalf("updated: %+v", u)
	}
	e.approve(t, id)
	want("updated", id, "ready")
	if res := e.move(t, id, "pending_confirmation"); res.Status != http.StatusBadRequest {
		t.Fatalf("illegal move: %d %s", res.Status, res.Body)
	}
	resumeFrom := lastID
	e.mustMove(t, id, "in_progress")
	want("updated", id, "in_progress")
	if res := e.api.Do(http.MethodDelete, "/api/v2/queue/"+id, nil); res.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	want("deleted", id, "in_progress")

	// A client that missed the last two reconnects and receives them, in order.
	again := e.api.Stream("/api/v2/shared-chat/stream", "Last-Event-ID", resumeFrom)
	for _, change := range []string{"updated", "deleted"} {
		var u update
		ev := nextUpdate(again)
		if err := json.Unmarshal([]byte(ev.Data), &u); err != nil || u.Change != change || u.Item.ID != id {
			t.Fatalf("resumed: want %s, got %s", change, ev.Data)
		}
	}
	// Bob's stream heard none of Ann's queue.
	for _, ev := range other.Drain() {
		if ev.Event == "queue_updated" {
			t.Fatalf("another account's stream received %s", ev.Data)
		}
	}
}
