package throughtest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Shared chat and events": queue.updated is pushed, signed, for any
// queue change; the delivery is written in the change's own transaction.
func TestQueueChangesArePushed(t *testing.T) {
	const secret = "a-long-enough-secret"
	type push struct {
		Event string
		Data  struct{ QueueItemID, Status, Action string }
	}
	var mu sync.Mutex
	var got []push
	recv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		if r.Header.Get("X-Switchboard-Signature") != "sha256="+hex.EncodeToString(mac.Sum(nil)) {
			t.Errorf("bad signature on %s", body)
		}
		var p push
		if err := json.Unmarshal(body, &p); err != nil || r.Header.Get("X-Switchboard-Event") != p.Event {
			t.Errorf("body %s, event header %q: %v", body, r.Header.Get("X-Switchboard-Event"), err)
		}
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	}))
	recv.Config.ReadHeaderTimeout = 10 * time.Second
	recv.Start()
	t.Cleanup(recv.Close)

	s := servertest.New(t, servertest.WithPrivateEndpoints())
	ann := s.SignUp("ann")
	api := s.WithKey(ann.NewKey("Scout"))
	if res := api.Do(http.MethodPatch, "/api/v2/settings", map[string]any{
		"serviceKeys": []map[string]any{{"service": "webhook_push", "url": recv.URL, "secret": secret}},
	}); res.Status != http.StatusOK {
		t.Fatalf("settings: %d %s", res.Status, res.Body)
	}
	res := api.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Pushed"})
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["item"].(map[string]any)["id"].(string)
	if res := ann.Session.Do(http.MethodPost, "/api/queue/confirm", map[string]any{"id": id, "action": "approve"}); res.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
	// A refused move changes nothing and pushes nothing.
	if res := api.Do(http.MethodPost, "/api/v2/queue/"+id+"/status", map[string]any{"id": id, "status": "pending_confirmation"}); res.Status != http.StatusBadRequest {
		t.Fatalf("illegal move: %d %s", res.Status, res.Body)
	}
	if res := api.Do(http.MethodDelete, "/api/v2/queue/"+id, nil); res.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	want := []string{"queue_added/pending_confirmation", "queue_status_changed/ready", "queue_deleted/ready"}
	servertest.WaitFor(t, "every push", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= len(want)
	})
	mu.Lock()
	defer mu.Unlock()
	seen := map[string]bool{}
	for _, p := range got {
		if p.Event != "queue.updated" || p.Data.QueueItemID != id {
			t.Errorf("push %+v", p)
		}
		seen[p.Data.Action+"/"+p.Data.Status] = true
	}
	if len(got) != len(want) {
		t.Errorf("%d pushes, want %d: %+v", len(got), len(want), got)
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("no push for %s: %+v", w, got)
		}
	}
}
