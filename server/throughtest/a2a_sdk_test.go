package throughtest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// bearer adds the API key to every request of the SDK's client.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

// sdkClient is the A2A Go SDK's client (v0.3.3), made from our agent card.
func sdkClient(t *testing.T, s *servertest.Server, key string) *a2aclient.Client {
	t.Helper()
	ctx := context.Background()
	card, err := agentcard.NewResolver(s.HTTP).Resolve(ctx, s.URL)
	if err != nil {
		t.Fatalf("resolve the agent card: %v", err)
	}
	c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(&http.Client{Transport: bearer{key}}))
	if err != nil {
		t.Fatalf("client from card: %v", err)
	}
	return c
}

// sdkEvents reads a stream's events in the background.
func sdkEvents(ctx context.Context, seq func(func(a2a.Event, error) bool)) <-chan any {
	out := make(chan any, 64)
	go func() {
		defer close(out)
		for ev, err := range seq {
			if err != nil {
				out <- err
				return
			}
			out <- ev
		}
	}()
	return out
}

func next(t *testing.T, ch <-chan any) any {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("the stream ended early")
		}
		if err, isErr := ev.(error); isErr {
			t.Fatalf("stream error: %v", err)
		}
		return ev
	case <-time.After(servertest.StreamTimeout):
		t.Fatal("no event in time")
	}
	return nil
}

func statusOf(t *testing.T, ev any) *a2a.TaskStatusUpdateEvent {
	t.Helper()
	st, ok := ev.(*a2a.TaskStatusUpdateEvent)
	if !ok {
		t.Fatalf("event %T %+v, want a status update", ev, ev)
	}
	return st
}

// Issue 13 acceptance (A2A Go SDK client, v0.3): send → submitted; the
// operator approves in the API and the stream says so; then working, then
// the artifact and completed once the result is reported; cancel of another
// task answers canceled and tasks/get still answers after it.
func TestSDKClient(t *testing.T) {
	t.Parallel()
	s, acct, key := setupA2A(t)
	c := sdkClient(t, s, key)
	ctx := context.Background()

	sent, err := c.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "Order a birthday cake"})})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	plain, ok := sent.(*a2a.Task)
	if !ok || plain.Status.State != a2a.TaskStateSubmitted {
		t.Fatalf("send answered %#v", sent)
	}

	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := sdkEvents(sctx, c.SendStreamingMessage(sctx, &a2a.MessageSendParams{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "Summarise the board meeting"})}))
	first, ok := next(t, stream).(*a2a.Task)
	if !ok || first.Status.State != a2a.TaskStateSubmitted {
		t.Fatalf("first event %#v", first)
	}
	itemID := first.Metadata["queueItemId"].(string)

	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/confirm", map[string]any{"action": "approve"})
	approved := statusOf(t, next(t, stream))
	if approved.Status.State != a2a.TaskStateSubmitted || approved.Metadata["queueStatus"] != "ready" ||
		approved.Status.Message.Parts[0].(a2a.TextPart).Text != "approved by the operator" {
		t.Errorf("approval update %+v", approved)
	}
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/status", map[string]any{"status": "in_progress"})
	if st := statusOf(t, next(t, stream)); st.Status.State != a2a.TaskStateWorking || st.Final {
		t.Errorf("working update %+v", st)
	}
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/result", map[string]any{"result": "Three decisions, two follow-ups."})
	art, ok := next(t, stream).(*a2a.TaskArtifactUpdateEvent)
	if !ok || art.Artifact.Parts[0].(a2a.TextPart).Text != "Three decisions, two follow-ups." || art.Artifact.Name != "text" {
		t.Fatalf("artifact event %#v", art)
	}
	if st := statusOf(t, next(t, stream)); st.Status.State != a2a.TaskStateCompleted || !st.Final {
		t.Errorf("completed update %+v", st)
	}
	select {
	case ev, open := <-stream:
		if open {
			t.Errorf("event after the final one: %#v", ev)
		}
	case <-time.After(servertest.StreamTimeout):
		t.Error("the stream did not end after completed")
	}

	canceled, err := c.CancelTask(ctx, &a2a.TaskIDParams{ID: plain.ID})
	if err != nil || canceled.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("cancel: %v %+v", err, canceled)
	}
	got, err := c.GetTask(ctx, &a2a.TaskQueryParams{ID: plain.ID})
	if err != nil || got.Status.State != a2a.TaskStateCanceled || got.ID != plain.ID {
		t.Errorf("get after cancel: %v %+v", err, got)
	}
	if _, err := c.GetTask(ctx, &a2a.TaskQueryParams{ID: "no-such-task"}); err == nil {
		t.Error("get of an unknown task succeeded")
	}
}

// tasks/resubscribe (v0.3) follows an existing task: the task first, then
// its updates; a cancel ends it with the final canceled update.
func TestResubscribe(t *testing.T) {
	t.Parallel()
	s, _, key := setupA2A(t)
	c := sdkClient(t, s, key)
	ctx := context.Background()
	sent, err := c.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "Book flights"})})
	if err != nil {
		t.Fatal(err)
	}
	task := sent.(*a2a.Task)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := sdkEvents(sctx, c.ResubscribeToTask(sctx, &a2a.TaskIDParams{ID: task.ID}))
	if first, ok := next(t, stream).(*a2a.Task); !ok || first.ID != task.ID {
		t.Fatalf("first event %#v", first)
	}
	if _, err := c.CancelTask(ctx, &a2a.TaskIDParams{ID: task.ID}); err != nil {
		t.Fatal(err)
	}
	if st := statusOf(t, next(t, stream)); st.Status.State != a2a.TaskStateCanceled || !st.Final {
		t.Errorf("cancel update %+v", st)
	}
}
