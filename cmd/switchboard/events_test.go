package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// binaryAccount sets up the owner on base and answers an API key with the
// chat scope.
func binaryAccount(t *testing.T, base string) string {
	t.Helper()
	_, key := binaryOwner(t, base, "chat")
	return key
}

// binaryStream opens the SSE stream on base and hands over its events.
func binaryStream(t *testing.T, base, key string) <-chan servertest.SSEEvent {
	t.Helper()
	return binaryStreamAfter(t, base, key, "")
}

// binaryStreamAfter opens the stream with a Last-Event-ID (none when "").
func binaryStreamAfter(t *testing.T, base, key, lastEventID string) <-chan servertest.SSEEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v2/shared-chat/stream", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("stream on %s: %v", base, err)
	}
	t.Cleanup(func() { _ = res.Body.Close() })
	if res.StatusCode != http.StatusOK {
		t.Fatalf("stream on %s: %d", base, res.StatusCode)
	}
	out := make(chan servertest.SSEEvent, 64)
	go func(body io.Reader) {
		defer close(out)
		servertest.ParseSSE(body, func(ev servertest.SSEEvent) { out <- ev })
	}(res.Body)
	return out
}

// nextOf waits for the next event of type typ, passing over heartbeats.
func nextOf(t *testing.T, events <-chan servertest.SSEEvent, typ string) servertest.SSEEvent {
	t.Helper()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the stream ended before a %s event", typ)
			}
			if ev.Event == typ {
				return ev
			}
		case <-time.After(servertest.StreamTimeout):
			t.Fatalf("no %s event within %s", typ, servertest.StreamTimeout)
		}
	}
}

func sendOn(t *testing.T, base, key, content string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v2/shared-chat/send", strings.NewReader(`{"content":"`+content+`"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("send on %s: %v", base, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("send on %s: %d", base, res.StatusCode)
	}
	var m struct{ ID string }
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil || m.ID == "" {
		t.Fatalf("send answer: %v", err)
	}
	return m.ID
}

func messageID(t *testing.T, ev servertest.SSEEvent) string {
	t.Helper()
	msg, _ := ev.JSON(t)["message"].(map[string]any)
	id, _ := msg["id"].(string)
	return id
}

// RULINGS "Shared chat and events": events reach every subscriber of the
// account on every replica (PostgreSQL LISTEN/NOTIFY). Two server processes on
// one PostgreSQL schema: a message sent on A reaches B's stream and the other
// way round. Absent on the SQLite leg, where there is no second replica; with
// SWITCHBOARD_TEST_POSTGRES set it always runs, and an unreachable PostgreSQL
// fails it.
func TestTwoProcessesShareEvents(t *testing.T) {
	if os.Getenv(dbtest.TestPostgresEnv) == "" {
		t.Logf("needs PostgreSQL (%s): absent on the SQLite leg", dbtest.TestPostgresEnv)
		return
	}
	bin := buildBinary(t)
	dsn := dbtest.DSN(t)
	// One after the other: the second finds the schema migrated.
	a, _ := startBinary(t, bin, "--db", dsn)
	b, _ := startBinary(t, bin, "--db", dsn)
	key := binaryAccount(t, a)
	onA, onB := binaryStream(t, a, key), binaryStream(t, b, key)
	nextOf(t, onA, "connected")
	nextOf(t, onB, "connected")

	sent := sendOn(t, a, key, "from A")
	for name, events := range map[string]<-chan servertest.SSEEvent{"A": onA, "B": onB} {
		if ev := nextOf(t, events, "new_message"); messageID(t, ev) != sent || !ev.HasID {
			t.Fatalf("%s's stream: %+v, want %s", name, ev, sent)
		}
	}
	sent = sendOn(t, b, key, "from B")
	if ev := nextOf(t, onA, "new_message"); messageID(t, ev) != sent {
		t.Fatalf("A's stream: %+v, want %s", ev, sent)
	}
	if ev := nextOf(t, onB, "new_message"); messageID(t, ev) != sent {
		t.Fatalf("B's stream: %+v, want %s", ev, sent)
	}
}

// A graceful shutdown does not wait forever for open streams: SIGTERM ends
// them and the process exits 0.
func TestShutdownEndsOpenStreams(t *testing.T) {
	bin := buildBinary(t)
	base, cmd := startBinary(t, bin, "--db", dbtest.DSN(t))
	key := binaryAccount(t, base)
	events := binaryStream(t, base, key)
	nextOf(t, events, "connected")
	terminate(t, cmd, " with an open stream")
	for range events {
	}
}
