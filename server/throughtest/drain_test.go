package throughtest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Issue 32 (RULINGS "Replicas and operations"): App.Drain, which a replica
// runs on SIGTERM once its listener has closed, ends every open stream with
// a reconnect hint: the SSE chat stream (hijacked HTTP/1.1 and h2c) with a
// last event reconnect, the Connect stream with unavailable, an A2A stream
// and the MCP GET stream with the reconnect event; a stream opened afterwards
// is refused 503.
func TestDrainEndsStreamsWithAReconnectHint(t *testing.T) {
	s, acct, a2aKey := setupA2A(t, servertest.WithHeartbeat(time.Hour))
	chat := []string{"Authorization", "Bearer " + acct.NewKey("chat", "chat")}
	open := map[string]*seen{}
	for kind, openKind := range streamKinds {
		open[kind] = openKind(t, s, chat, nil)
		open[kind].until(t, events.TypeConnected)
	}
	task := a2aRawStream(t, s, a2aKey, "message/stream", map[string]any{
		"message": map[string]any{"messageId": "m", "role": "user", "parts": []any{map[string]any{"kind": "text", "text": "Wait for me"}}}})
	if first := nextRaw(t, task)["result"].(map[string]any); first["kind"] != "task" {
		t.Fatalf("first A2A event %v", first)
	}

	mcpStream := openStreamResponse(t, s, acct.NewKey("mcp", "mcp")) //nolint:bodyclose // openStreamResponse closes it at the test's end
	mcpEvents := make(chan servertest.SSEEvent, 16)
	go func() {
		defer close(mcpEvents)
		servertest.ParseSSE(mcpStream.Body, func(ev servertest.SSEEvent) { mcpEvents <- ev })
	}()

	s.App.Drain(context.Background())

	for kind, st := range open {
		last := st.rest(t, 0)
		if kind == "connect" {
			if code := connect.CodeOf(st.err); code != connect.CodeUnavailable {
				t.Errorf("connect stream ended with %v after %+v, want unavailable", st.err, last)
			}
			continue
		}
		if last.typ != events.TypeReconnect {
			t.Errorf("%s: last event %+v, want %s", kind, last, events.TypeReconnect)
		}
	}
	if last := nextRaw(t, task); last["type"] != events.TypeReconnect {
		t.Errorf("A2A stream: last event %v, want the reconnect event", last)
	}
	if !ended(task) {
		t.Error("the A2A stream did not end")
	}
	var mcpLast servertest.SSEEvent
	for ev := range mcpEvents {
		mcpLast = ev
	}
	if mcpLast.Event != events.TypeReconnect || mcpLast.Retry == "" {
		t.Errorf("MCP GET stream: last event %+v, want %s with retry", mcpLast, events.TypeReconnect)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL+streamPath, nil)
	req.Header.Set(chat[0], chat[1])
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a stream opened after the drain: %d, want 503", res.StatusCode)
	}
}
