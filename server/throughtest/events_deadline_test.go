package throughtest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// A stream's write deadline bounds a write, not the wait between events: a
// stream left idle for several write timeouts (and no heartbeat meanwhile)
// still delivers the next event, after the connected event and after a live
// one. Before, the last write's deadline stayed armed and HTTP/2 reset the
// idle stream once it passed.
func TestIdleStreamOutlivesTheWriteTimeout(t *testing.T) {
	const window = 300 * time.Millisecond
	s := servertest.New(t, servertest.WithStreamWriteTimeout(window))
	s.SignUp("owner") // the first account is made through setup, alone

	// Each way of streaming, with its own account: its events reach it alone.
	type stream func(t *testing.T, ctx context.Context, key string) (next func() (typ, msgID string))
	ways := map[string]stream{
		"sse-http1": func(t *testing.T, _ context.Context, key string) func() (string, string) {
			st := s.WithKey(key).Stream(streamPath)
			return func() (string, string) { return sseEvent(t, st.Next()) }
		},
		"sse-h2c": func(t *testing.T, ctx context.Context, key string) func() (string, string) {
			return h2cSSE(t, ctx, s, key)
		},
		"connect+proto-h2c": func(t *testing.T, ctx context.Context, key string) func() (string, string) {
			return connectStream(t, ctx, s.H2C, s.URL, key, nil)
		},
	}
	for name, opts := range servertest.Protocols() {
		ways[name] = func(t *testing.T, ctx context.Context, key string) func() (string, string) {
			return connectStream(t, ctx, s.Client(name), s.URL, key, opts)
		}
	}
	keys := map[string]string{}
	for name := range ways {
		keys[name] = s.SignUp("u"+string(rune('a'+len(keys)))).NewKey("Scout", "chat")
	}
	for name, open := range ways {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), servertest.StreamTimeout)
			defer cancel()
			api := s.WithKey(keys[name])
			next := open(t, ctx, keys[name])
			if typ, _ := next(); typ != "connected" {
				t.Fatalf("first event %q", typ)
			}
			for round := range 2 {
				time.Sleep(4 * window) // real time: the deadline is the network's
				res := api.Do(http.MethodPost, "/api/v2/shared-chat/send", map[string]any{"content": "after idle"})
				if res.Status != http.StatusCreated {
					t.Fatalf("send: %d %s", res.Status, res.Body)
				}
				id := res.JSON(t)["id"].(string)
				if typ, got := next(); typ != "new_message" || got != id {
					t.Fatalf("round %d: %s %s, want new_message %s", round, typ, got, id)
				}
			}
		})
	}
}

func sseEvent(t *testing.T, ev servertest.SSEEvent) (string, string) {
	t.Helper()
	if ev.Event != "new_message" {
		return ev.Event, ""
	}
	id, _ := ev.JSON(t)["message"].(map[string]any)["id"].(string)
	return ev.Event, id
}

// h2cSSE opens the SSE stream over cleartext HTTP/2, which is not taken over.
func h2cSSE(t *testing.T, ctx context.Context, s *servertest.Server, key string) func() (string, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+streamPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := (&http.Client{Transport: s.H2C.Transport}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Body.Close() })
	if res.ProtoMajor != 2 || res.StatusCode != http.StatusOK {
		t.Fatalf("%s %d", res.Proto, res.StatusCode)
	}
	evs := make(chan servertest.SSEEvent, 16)
	go func() {
		defer close(evs)
		servertest.ParseSSE(res.Body, func(ev servertest.SSEEvent) { evs <- ev })
	}()
	return func() (string, string) {
		t.Helper()
		select {
		case ev, ok := <-evs:
			if !ok {
				t.Fatal("the stream ended")
			}
			return sseEvent(t, ev)
		case <-ctx.Done():
			t.Fatal("no event")
		}
		return "", ""
	}
}

func connectStream(t *testing.T, ctx context.Context, client *http.Client, url, key string, opts []connect.ClientOption) func() (string, string) {
	c := switchboardv1connect.NewEventServiceClient(client, url,
		append(opts, connect.WithInterceptors(streamHeaders("Authorization", "Bearer "+key)))...)
	stream, err := c.StreamEvents(ctx, &switchboardv1.StreamEventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stream.Close() })
	return func() (string, string) {
		t.Helper()
		ev := receive(t, stream).GetEvent()
		return ev.GetType(), ev.GetMessage().GetId()
	}
}
