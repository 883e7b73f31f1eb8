package peerwire

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestDirectory: a peer's document is read once and remembered for a
// while; a document that cannot be read keeps what was known (REST when
// nothing was) for another while, without asking again on every call; what
// a verification taught is used without a read; Known never reads and keeps
// an old entry.
func TestDirectory(t *testing.T) {
	var reads atomic.Int32
	var answer atomic.Value
	answer.Store(`{"name":"p","version":"1","protocols":["connect","rest"]}`)
	peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reads.Add(1)
		if r.URL.Path != WellKnownPath || r.URL.RawQuery != "" {
			http.NotFound(w, r)
			return
		}
		if a := answer.Load().(string); a != "" {
			_, _ = w.Write([]byte(a))
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer peer.Close()
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	d := NewDirectory(peer.Client(), func() time.Time { return now })
	ctx := context.Background()

	if got := d.Known(peer.URL); got != REST || reads.Load() != 0 {
		t.Fatalf("Known of an unknown peer: %s after %d reads", got, reads.Load())
	}
	if got := d.Of(ctx, peer.URL+"/"); got != Connect || reads.Load() != 1 {
		t.Fatalf("first Of: %s after %d reads", got, reads.Load())
	}
	if got := d.Of(ctx, peer.URL); got != Connect || d.Known(peer.URL) != Connect || reads.Load() != 1 {
		t.Fatalf("remembered: %s after %d reads", got, reads.Load())
	}
	now = now.Add(remember + time.Second)
	if got := d.Known(peer.URL); got != Connect || reads.Load() != 1 {
		t.Fatalf("Known of an old entry: %s after %d reads", got, reads.Load())
	}
	answer.Store("")
	if got := d.Of(ctx, peer.URL); got != Connect || reads.Load() != 2 {
		t.Fatalf("expired, unreadable: %s after %d reads, want what was known", got, reads.Load())
	}
	if got := d.Of(ctx, peer.URL); got != Connect || reads.Load() != 2 {
		t.Fatalf("unreadable, asked again at once: %s after %d reads", got, reads.Load())
	}
	now = now.Add(remember + time.Second)
	answer.Store(`{"name":"p","version":"0.9"}`)
	if got := d.Of(ctx, peer.URL); got != REST || reads.Load() != 3 {
		t.Fatalf("no protocols: %s after %d reads", got, reads.Load())
	}
	d.Learn(peer.URL, []string{"connect"})
	if got := d.Of(ctx, peer.URL); got != Connect || reads.Load() != 3 {
		t.Fatalf("learned: %s after %d reads", got, reads.Load())
	}

	// A peer never heard from whose document cannot be read: REST, and not
	// asked again within the period.
	var downReads atomic.Int32
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		downReads.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer down.Close()
	for range 2 {
		if got := d.Of(ctx, down.URL); got != REST || downReads.Load() != 1 {
			t.Fatalf("an unknown peer that is down: %s after %d reads", got, downReads.Load())
		}
	}
}
