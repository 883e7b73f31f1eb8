package throughtest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// hit is one request a hookReceiver got.
type hit struct {
	at     time.Time // the injected clock when it arrived
	header http.Header
	body   []byte
}

// hookReceiver is a real HTTP endpoint on loopback that records what it gets
// and answers with the status reply picks for the n-th request (from 0).
type hookReceiver struct {
	*httptest.Server
	now   func() time.Time
	mu    sync.Mutex
	hits  []hit
	reply func(n int) int
}

func newHookReceiver(t *testing.T, now func() time.Time, reply func(n int) int) *hookReceiver {
	t.Helper()
	r := &hookReceiver{now: now, reply: reply}
	r.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		n := len(r.hits)
		r.hits = append(r.hits, hit{at: r.now(), header: req.Header.Clone(), body: body})
		status := r.reply(n)
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	r.Config.ReadHeaderTimeout = 10 * time.Second
	r.Start()
	t.Cleanup(r.Close)
	return r
}

func always(status int) func(int) int { return func(int) int { return status } }

func (r *hookReceiver) setReply(f func(n int) int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reply = f
}

func (r *hookReceiver) got() []hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hit(nil), r.hits...)
}

func (r *hookReceiver) waitHits(t *testing.T, n int) []hit {
	t.Helper()
	servertest.WaitFor(t, "hookReceiver hits", func() bool { return len(r.got()) >= n })
	return r.got()
}

func deliveries(t *testing.T, db *ent.Client) []*ent.WebhookDelivery {
	t.Helper()
	rows, err := db.WebhookDelivery.Query().Order(ent.Asc(webhookdelivery.FieldCreatedAt), ent.Asc(webhookdelivery.FieldID)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// sign is the signature computed independently of the package under test.
func sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}
