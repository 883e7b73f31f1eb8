package throughtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// a2aRawStream posts a streaming call and reads its events' JSON-RPC answers.
func a2aRawStream(t *testing.T, s *servertest.Server, key, method string, params any, hdr ...string) <-chan map[string]any {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	res := a2aPost(ctx, t, s, key, bytes.NewReader(body), hdr...) //nolint:bodyclose // the reading goroutine closes it
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("%s: %d %s", method, res.StatusCode, ct)
	}
	out := make(chan map[string]any, 64)
	go func() {
		defer close(out)
		defer res.Body.Close()
		servertest.ParseSSE(res.Body, func(ev servertest.SSEEvent) {
			var m map[string]any
			if json.Unmarshal([]byte(ev.Data), &m) == nil {
				out <- m
			}
		})
	}()
	return out
}

// a2aPost posts body to /api/a2a with the key and header pairs.
func a2aPost(ctx context.Context, t *testing.T, s *servertest.Server, key string, body io.Reader, hdr ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/a2a", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func nextRaw(t *testing.T, ch <-chan map[string]any) map[string]any {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("the stream ended early")
		}
		return ev
	case <-time.After(servertest.StreamTimeout):
		t.Fatal("no event in time")
	}
	return nil
}

func ended(ch <-chan map[string]any) bool {
	select {
	case _, ok := <-ch:
		return !ok
	case <-time.After(servertest.StreamTimeout):
		return false
	}
}

// RULINGS "A2A" (v1.0 streams): SendStreamingMessage answers {task} then
// {statusUpdate}s in v1.0 shapes; SubscribeToTask follows an existing task.
func TestV1Stream(t *testing.T) {
	t.Parallel()
	s, acct, key := setupA2A(t)
	v1 := []string{"A2A-Version", "1.0"}
	stream := a2aRawStream(t, s, key, "SendStreamingMessage", map[string]any{
		"message": map[string]any{"messageId": "m-1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "Collect the receipts"}}}}, v1...)
	first := nextRaw(t, stream)
	a2aGolden(t, "v1_stream_task", first)
	task := first["result"].(map[string]any)["task"].(map[string]any)
	itemID := task["metadata"].(map[string]any)["queueItemId"].(string)
	sub := a2aRawStream(t, s, key, "SubscribeToTask", map[string]any{"id": task["id"]}, v1...)
	if got := nextRaw(t, sub)["result"].(map[string]any)["task"].(map[string]any)["id"]; got != task["id"] {
		t.Errorf("subscribe's first event names %v", got)
	}
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/confirm", map[string]any{"action": "approve"})
	approved := nextRaw(t, stream)
	a2aGolden(t, "v1_stream_approved", approved)
	upd := approved["result"].(map[string]any)["statusUpdate"].(map[string]any)
	if upd["status"].(map[string]any)["state"] != "TASK_STATE_SUBMITTED" || upd["metadata"].(map[string]any)["queueStatus"] != "ready" {
		t.Errorf("approval %v", upd)
	}
	if st := nextRaw(t, sub)["result"].(map[string]any)["statusUpdate"].(map[string]any)["metadata"].(map[string]any)["queueStatus"]; st != "ready" {
		t.Errorf("subscriber saw %v", st)
	}
	operator(t, acct, http.MethodPost, "/api/v2/queue/"+itemID+"/result", map[string]any{"result": "12 receipts, 840 EUR"})
	art := nextRaw(t, stream)
	a2aGolden(t, "v1_stream_artifact", art)
	done := nextRaw(t, stream)["result"].(map[string]any)["statusUpdate"].(map[string]any)
	if done["status"].(map[string]any)["state"] != "TASK_STATE_COMPLETED" {
		t.Errorf("completed %v", done)
	}
	if !ended(stream) {
		t.Error("the stream did not end after completed")
	}
}

// RULINGS "Streams and credentials": a stream ends when its key is deleted,
// with a final JSON-RPC error event.
func TestStreamEndsWhenKeyDeleted(t *testing.T) {
	t.Parallel()
	s, acct, _ := setupA2A(t)
	key := acct.NewKey("short-lived", "a2a")
	stream := a2aRawStream(t, s, key, "message/stream", map[string]any{
		"message": map[string]any{"messageId": "m", "role": "user", "parts": []any{map[string]any{"kind": "text", "text": "Wait for me"}}}})
	if first := nextRaw(t, stream)["result"].(map[string]any); first["kind"] != "task" {
		t.Fatalf("first event %v", first)
	}
	res := acct.Session.Do(http.MethodGet, "/api/v2/keys", nil)
	var keyID string
	for _, k := range res.JSON(t)["keys"].([]any) {
		if k.(map[string]any)["label"] == "short-lived" {
			keyID = k.(map[string]any)["id"].(string)
		}
	}
	if keyID == "" {
		t.Fatalf("no key in %s", res.Body)
	}
	operator(t, acct, http.MethodDelete, "/api/v2/keys/"+keyID, nil)
	last := nextRaw(t, stream)
	if e, ok := last["error"].(map[string]any); !ok || e["code"].(float64) != -32000 {
		t.Errorf("last event %v, want a -32000 error", last)
	}
	if !ended(stream) {
		t.Error("the stream did not end")
	}
}

// RULINGS "A2A" (agent card): public, v0.3 fields and v1.0 interfaces,
// absolute URLs on the request's host.
func TestAgentCard(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	res := s.Anonymous().Do(http.MethodGet, "/.well-known/agent-card.json", nil)
	servertest.WantStatus(t, res, http.StatusOK)
	card := res.JSON(t)
	a2aGolden(t, "agent_card", card)
	if card["url"] != s.URL+"/api/a2a" || card["preferredTransport"] != "JSONRPC" || card["protocolVersion"] != "0.3.0" ||
		card["capabilities"].(map[string]any)["streaming"] != true {
		t.Errorf("card %v", card)
	}
	var skillIDs []string
	for _, sk := range card["skills"].([]any) {
		skillIDs = append(skillIDs, sk.(map[string]any)["id"].(string))
	}
	if strings.Join(skillIDs, ",") != "tasks,approvals,scheduling,questions" {
		t.Errorf("skills %v", skillIDs)
	}
	ifaces := card["supportedInterfaces"].([]any)
	if len(ifaces) != 2 || ifaces[0].(map[string]any)["protocolVersion"] != "1.0" || ifaces[0].(map[string]any)["url"] != s.URL+"/api/a2a" {
		t.Errorf("supportedInterfaces %v", ifaces)
	}
	if v := res.Header.Get("Vary"); v != "A2A-Version" {
		t.Errorf("Vary %q: the card depends on A2A-Version", v)
	}

	// RULINGS "A2A" details of 2026-11-28: A2A-Version: 1.0 gets the 1.0
	// card (its security scheme shape, securityRequirements, no v0.3 fields).
	v1 := s.Anonymous().Do(http.MethodGet, "/.well-known/agent-card.json", nil, "A2A-Version", "1.0")
	servertest.WantStatus(t, v1, http.StatusOK)
	card1 := v1.JSON(t)
	a2aGolden(t, "agent_card_v1", card1)
	scheme, _ := card1["securitySchemes"].(map[string]any)["bearer"].(map[string]any)["httpAuthSecurityScheme"].(map[string]any)
	if scheme["scheme"] != "Bearer" || card1["securityRequirements"] == nil || card1["security"] != nil ||
		card1["url"] != nil || card1["protocolVersion"] != nil {
		t.Errorf("1.0 card %v", card1)
	}
	// The same card as a query parameter, which the specification allows.
	if q := s.Anonymous().Do(http.MethodGet, "/.well-known/agent-card.json?A2A-Version=1.0", nil); !bytes.Equal(q.Body, v1.Body) {
		t.Errorf("card by parameter: %s", q.Body)
	}
	// The path older clients read answers the same cards.
	for _, h := range [][]string{nil, {"A2A-Version", "1.0"}} {
		want := res
		if h != nil {
			want = v1
		}
		old := s.Anonymous().Do(http.MethodGet, "/.well-known/agent.json", nil, h...)
		servertest.WantStatus(t, old, http.StatusOK)
		if !bytes.Equal(old.Body, want.Body) {
			t.Errorf("/.well-known/agent.json with %v differs from agent-card.json: %s", h, old.Body)
		}
	}
}

// An idle stream carries the bus's heartbeats as SSE comments, which A2A
// clients skip (docs/decisions.md "A2A (issue 13)").
func TestStreamKeepAlive(t *testing.T) {
	t.Parallel()
	s, _, key := setupA2A(t, servertest.WithHeartbeat(50*time.Millisecond))
	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"messageId":"m","role":"user","parts":[{"kind":"text","text":"Idle"}]}}}`
	ctx, cancel := context.WithTimeout(context.Background(), servertest.StreamTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/a2a", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if sc.Text() == ": keep-alive" {
			return
		}
	}
	t.Fatalf("no keep-alive comment before the stream ended: %v", sc.Err())
}
