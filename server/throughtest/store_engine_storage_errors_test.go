package throughtest

import (
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/store/engine"
)

// Issue 27 point 4: a storage error on writing an execution is mapped once,
// by the transports, so it is the same refusal whether the listing was free
// (the execution starts running) or busy (it is queued). A requester that
// names no account breaks the execution's reference to its user on both paths.
func TestExecuteStorageErrorIsTheSameOnBothPaths(t *testing.T) {
	t.Parallel()
	f := newEngineFixture(t)
	release := make(chan struct{})
	a := newEngineAgent(t, func(c call, w http.ResponseWriter) {
		<-release
		writeJSON(w, 200, map[string]any{"output": "ok"})
	})
	id := f.listing(t, a.URL, nil)
	eng := f.s.App.Engine
	ghost := engine.Request{AgentID: id, UserID: "usr_nobody", Input: "hello", Background: true}

	// Busy: a real requester's run holds the listing, so the ghost's is queued.
	busy, err := eng.Execute(t.Context(), engine.Request{AgentID: id, UserID: f.reqID, Input: "first", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	_, queuedErr := eng.Execute(t.Context(), ghost)
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for f.row(t, busy.Execution.ID).Status != "completed" {
		if time.Now().After(deadline) {
			t.Fatalf("the first run did not finish: %+v", f.row(t, busy.Execution.ID))
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Free: the ghost's run would start at once.
	_, runningErr := eng.Execute(t.Context(), ghost)

	queued, running := apperr.From(queuedErr), apperr.From(runningErr)
	if queuedErr == nil || runningErr == nil || queued.Kind != apperr.KindInvalid || running.Kind != queued.Kind || running.Message != queued.Message {
		t.Fatalf("queued path: %v (%d %q); running path: %v (%d %q); want the same 400 on both",
			queuedErr, queued.HTTPStatus(), queued.Message, runningErr, running.HTTPStatus(), running.Message)
	}
	if n, _ := f.s.DB.Execution.Query().Count(t.Context()); n != 1 {
		t.Fatalf("%d executions stored, want only the first", n)
	}
}
