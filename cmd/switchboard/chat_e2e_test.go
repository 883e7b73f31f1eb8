package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Issue 4 acceptance, against the running binary: send → list (order, cursor,
// no overlap) → the SSE stream receives connected then new_message; an urgent
// item that becomes ready produces wake; a Connect streaming client receives
// the same events.
func TestBinaryChatEndToEnd(t *testing.T) {
	base, _ := startBinary(t, buildBinary(t), "--db", dbtest.DSN(t))
	web, key := binaryOwner(t, base, "chat", "queue")
	call := func(c *http.Client, method, path, body string, header ...string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", base)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	api := &http.Client{Timeout: 10 * time.Second}
	auth := []string{"Authorization", "Bearer " + key}

	sse := binaryStream(t, base, key)
	if ev := nextOf(t, sse, "connected"); ev.JSON(t)["agentName"] != "agent" {
		t.Fatalf("connected: %s", ev.Data)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	events := switchboardv1connect.NewEventServiceClient(&http.Client{}, base,
		connect.WithInterceptors(servertest.BearerInterceptor(key)))
	stream, err := events.StreamEvents(ctx, &switchboardv1.StreamEventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stream.Close() })
	rpc := make(chan *switchboardv1.StreamEventsResponse, 64)
	go func() {
		defer close(rpc)
		for stream.Receive() {
			rpc <- stream.Msg()
		}
	}()
	nextRPC := func(typ string) *switchboardv1.StreamEventsResponse {
		t.Helper()
		for {
			select {
			case m, ok := <-rpc:
				if !ok {
					t.Fatalf("the Connect stream ended before %s: %v", typ, stream.Err())
				}
				if m.GetEvent().GetType() == typ {
					return m
				}
			case <-time.After(servertest.StreamTimeout):
				t.Fatalf("no %s on the Connect stream", typ)
			}
		}
	}
	nextRPC("connected")

	var sent []string
	for i := range 3 {
		status, body := call(api, http.MethodPost, "/api/v2/shared-chat/send", fmt.Sprintf(`{"content":"  message %d  "}`, i), auth...)
		var m struct{ ID, Role, Content, AgentName string }
		if status != http.StatusCreated || json.Unmarshal(body, &m) != nil || m.Role != "assistant" || m.Content != fmt.Sprintf("message %d", i) {
			t.Fatalf("send %d: %d %s", i, status, body)
		}
		sent = append(sent, m.ID)
	}
	for _, id := range sent {
		if got := messageID(t, nextOf(t, sse, "new_message")); got != id {
			t.Fatalf("SSE new_message %s, want %s", got, id)
		}
		if got := nextRPC("new_message").GetEvent().GetMessage().GetId(); got != id {
			t.Fatalf("Connect new_message %s, want %s", got, id)
		}
	}

	// Pages of two: the newest two oldest-first, then the rest; no overlap.
	type page struct {
		Messages   []struct{ ID string }
		Pagination struct {
			Cursor  *string
			HasMore bool
		}
	}
	list := func(query string) page {
		t.Helper()
		status, body := call(api, http.MethodGet, "/api/v2/shared-chat/messages?"+query, "", auth...)
		var p page
		if status != http.StatusOK || json.Unmarshal(body, &p) != nil {
			t.Fatalf("list %s: %d %s", query, status, body)
		}
		return p
	}
	first := list("limit=2")
	if len(first.Messages) != 2 || first.Messages[0].ID != sent[1] || first.Messages[1].ID != sent[2] ||
		!first.Pagination.HasMore || first.Pagination.Cursor == nil {
		t.Fatalf("first page: %+v", first)
	}
	second := list("limit=2&cursor=" + *first.Pagination.Cursor)
	if len(second.Messages) != 1 || second.Messages[0].ID != sent[0] || second.Pagination.HasMore || second.Pagination.Cursor != nil {
		t.Fatalf("second page: %+v", second)
	}

	// An urgent item approved becomes ready: wake on both streams.
	status, body := call(api, http.MethodPost, "/api/v2/queue", `{"title":"Server down","priority":"urgent"}`, auth...)
	var created struct{ Item struct{ ID, Status string } }
	if status != http.StatusCreated || json.Unmarshal(body, &created) != nil || created.Item.Status != "pending_confirmation" {
		t.Fatalf("create: %d %s", status, body)
	}
	if status, body := call(web, http.MethodPost, "/api/queue/confirm", `{"id":"`+created.Item.ID+`","action":"approve"}`); status != http.StatusOK {
		t.Fatalf("approve: %d %s", status, body)
	}
	wake := nextOf(t, sse, "wake").JSON(t)
	meta, _ := wake["metadata"].(map[string]any)
	if wake["reason"] != "urgent_task" || meta["queueItemId"] != created.Item.ID || meta["priority"] != "urgent" || meta["title"] != "Server down" {
		t.Fatalf("SSE wake: %v", wake)
	}
	if w := nextRPC("wake").GetEvent(); w.GetReason() != "urgent_task" || w.GetMetadata().GetQueueItemId() != created.Item.ID {
		t.Fatalf("Connect wake: %v", w)
	}
}

// binaryOwner sets up the owner on base and answers the logged-in dashboard
// client and an API key with the given scopes.
func binaryOwner(t *testing.T, base string, scopes ...string) (*http.Client, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	// The setup and the login hash a password at the binary's own bcrypt
	// cost, in a child that may be built with -race on a loaded machine: a
	// few seconds each, sometimes more than ten. The bound only stops a hung
	// server from hanging the test.
	web := &http.Client{Timeout: time.Minute, Jar: jar}
	post := func(path, body string, want int) []byte {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", base)
		res, err := web.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != want {
			t.Fatalf("POST %s: %d %s", path, res.StatusCode, b)
		}
		return b
	}
	post("/api/setup", `{"username":"owner","email":"owner@example.com","password":"`+servertest.Password+`","name":"Owner","acceptedTerms":true}`, http.StatusCreated)
	post("/api/auth/login", `{"username":"owner","password":"`+servertest.Password+`"}`, http.StatusOK)
	sc, _ := json.Marshal(scopes)
	var created struct{ APIKey string }
	if err := json.Unmarshal(post("/api/v2/keys", `{"label":"agent","scopes":`+string(sc)+`}`, http.StatusCreated), &created); err != nil || created.APIKey == "" {
		t.Fatalf("create key: %v", err)
	}
	return web, created.APIKey
}
