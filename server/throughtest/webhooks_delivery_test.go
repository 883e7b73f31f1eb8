package throughtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

const hookSecretA = "s3cret-key-for-target-a"

type hookEnv struct {
	s   *servertest.Server
	api *servertest.Caller
}

// setupHooks is a server whose webhooks may reach loopback, where the receivers
// run, with one account and its API key.
func setupHooks(t *testing.T) hookEnv {
	t.Helper()
	s := servertest.New(t, servertest.WithPrivateEndpoints())
	return hookEnv{s: s, api: s.WithKey(s.SignUp("ann").NewKey("agent"))}
}

func (e hookEnv) configure(t *testing.T, keys ...map[string]any) {
	t.Helper()
	if res := e.api.Do(http.MethodPatch, "/api/v2/settings", map[string]any{"serviceKeys": keys}); res.Status != 200 {
		t.Fatalf("configure targets: %d %s", res.Status, res.Body)
	}
}

func push(url, secret string) map[string]any {
	return map[string]any{"service": "webhook_push", "url": url, "secret": secret}
}

// switchMode sends the PATCH that emits settings.mode_switched.
func (e hookEnv) switchMode(t *testing.T) {
	t.Helper()
	if res := e.api.Do(http.MethodPatch, "/api/v2/settings", `{"mode":"cockpit"}`); res.Status != 200 {
		t.Fatalf("PATCH mode: %d %s", res.Status, res.Body)
	}
}

// RULINGS "Shared chat and events": a PATCH that supplies mode pushes
// settings.mode_switched to every target, signed with that target's secret,
// as {event, occurredAt, data}.
func TestModeSwitchIsPushedSigned(t *testing.T) {
	e := setupHooks(t)
	a := newHookReceiver(t, e.s.Clock.Now, always(200))
	b := newHookReceiver(t, e.s.Clock.Now, always(204))
	const secretB = "another-secret-for-b"
	e.configure(t, push(a.URL+"/hook?team=7", hookSecretA), push(b.URL, secretB))

	// A PATCH without mode pushes nothing.
	if res := e.api.Do(http.MethodPatch, "/api/v2/settings", `{"queueAutoApprove":true}`); res.Status != 200 {
		t.Fatal(res.Status)
	}
	if n := len(deliveries(t, e.s.DB.Client)); n != 0 {
		t.Fatalf("a PATCH without mode wrote %d deliveries", n)
	}

	t0 := e.s.Clock.Now()
	e.switchMode(t)
	for _, tc := range []struct {
		r      *hookReceiver
		secret string
		path   string
	}{{a, hookSecretA, "/hook?team=7"}, {b, secretB, "/"}} {
		h := tc.r.waitHits(t, 1)[0]
		if got := h.header.Get("X-Switchboard-Signature"); got != sign(tc.secret, h.body) {
			t.Errorf("signature %q does not verify with the target's secret", got)
		}
		if got := h.header.Get("X-Switchboard-Event"); got != "settings.mode_switched" {
			t.Errorf("X-Switchboard-Event = %q", got)
		}
		if got := h.header.Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type = %q", got)
		}
		if bytes.Contains(h.body, []byte(tc.secret)) {
			t.Error("the body carries the secret")
		}
		want := `{"event":"settings.mode_switched","occurredAt":"` + t0.UTC().Format("2006-01-02T15:04:05.000Z") + `","data":{"mode":"cockpit"}}`
		if string(h.body) != want {
			t.Errorf("body = %s\nwant   %s", h.body, want)
		}
	}
	// The delivery id header names the row, which is now delivered.
	servertest.WaitFor(t, "both rows delivered", func() bool {
		for _, d := range deliveries(t, e.s.DB.Client) {
			if d.Status != webhookdelivery.StatusDelivered {
				return false
			}
		}
		return true
	})
	rows := deliveries(t, e.s.DB.Client)
	if len(rows) != 2 {
		t.Fatalf("%d deliveries, want one per target", len(rows))
	}
	ids := map[string]bool{a.got()[0].header.Get("X-Switchboard-Delivery"): true, b.got()[0].header.Get("X-Switchboard-Delivery"): true}
	for _, d := range rows {
		if !ids[d.ID] || d.Attempts != 1 || d.LastStatus == nil || d.DeliveredAt == nil {
			t.Errorf("row %+v", d)
		}
	}
	// A second switch is a second event: the same URL, a new delivery.
	e.switchMode(t)
	a.waitHits(t, 2)
}

// RULINGS "Shared chat and events": retries 30 s, 2 min and 8 min after the
// attempt before, then retry_exhausted. Times are the injected clock's.
func TestRetriesThenExhausted(t *testing.T) {
	e := setupHooks(t)
	r := newHookReceiver(t, e.s.Clock.Now, always(500))
	e.configure(t, push(r.URL, hookSecretA))
	t0 := e.s.Clock.Now()
	e.switchMode(t)

	want := []time.Duration{0, 30 * time.Second, 150 * time.Second, 630 * time.Second}
	for i, at := range want {
		if i > 0 {
			// Just short of the due time: nothing may go yet.
			e.s.Clock.Advance(at - want[i-1] - time.Second)
			e.s.Clock.Advance(time.Second)
		}
		hits := r.waitHits(t, i+1)
		if got := hits[i].at.Sub(t0); got != at {
			t.Fatalf("attempt %d at +%s, want +%s", i+1, got, at)
		}
		// Wait until the outcome is recorded before moving the clock on.
		servertest.WaitFor(t, "attempt recorded", func() bool { return deliveries(t, e.s.DB.Client)[0].Attempts == int32(i+1) })
		row := deliveries(t, e.s.DB.Client)[0]
		if row.LastStatus == nil || *row.LastStatus != 500 || row.LastError == nil {
			t.Fatalf("attempt %d recorded as %+v", i+1, row)
		}
		if i < len(webhooks.Retries) {
			if row.Status != webhookdelivery.StatusPending || !row.NextAttemptAt.Equal(t0.Add(want[i+1])) {
				t.Fatalf("after attempt %d: status %s next +%s, want pending next +%s", i+1, row.Status, row.NextAttemptAt.Sub(t0), want[i+1])
			}
		}
		// Every attempt sends the same signed bytes under the same delivery id.
		if !bytes.Equal(hits[i].body, hits[0].body) || hits[i].header.Get("X-Switchboard-Delivery") != row.ID {
			t.Fatalf("attempt %d differs from the first", i+1)
		}
	}
	row := deliveries(t, e.s.DB.Client)[0]
	if row.Status != webhookdelivery.StatusRetryExhausted || row.Attempts != 4 {
		t.Fatalf("after the last retry: %s with %d attempts, want retry_exhausted with 4", row.Status, row.Attempts)
	}
	if len(r.got()) != 4 {
		t.Fatalf("%d attempts, want 4", len(r.got()))
	}
}

// A failure then a success: delivered on the retry, the breaker untouched.
func TestRetrySucceeds(t *testing.T) {
	e := setupHooks(t)
	r := newHookReceiver(t, e.s.Clock.Now, func(n int) int { return map[bool]int{true: 503, false: 200}[n == 0] })
	e.configure(t, push(r.URL, hookSecretA))
	e.switchMode(t)
	r.waitHits(t, 1)
	servertest.WaitFor(t, "first attempt recorded", func() bool { return deliveries(t, e.s.DB.Client)[0].Attempts == 1 })
	e.s.Clock.Advance(30 * time.Second)
	// The worker may arm its timer for the retry just after that advance (on
	// a loaded machine): nudge the clock on until the retry comes.
	servertest.WaitFor(t, "the retry", func() bool {
		if len(r.got()) >= 2 {
			return true
		}
		e.s.Clock.Advance(time.Second)
		return false
	})
	servertest.WaitFor(t, "delivered", func() bool { return deliveries(t, e.s.DB.Client)[0].Status == webhookdelivery.StatusDelivered })
	if row := deliveries(t, e.s.DB.Client)[0]; row.Attempts != 2 || *row.LastStatus != 200 || row.LastError != nil {
		t.Fatalf("row = %+v", row)
	}
}

// RULINGS "Shared chat and events": the breaker per target URL opens after 5
// failures; while it is open deliveries are deferred (not attempted, not
// counted) to when it half-opens 60 s later; 2 successes close it.
func TestBreakerDefersDeliveries(t *testing.T) {
	e := setupHooks(t)
	r := newHookReceiver(t, e.s.Clock.Now, always(500))
	other := newHookReceiver(t, e.s.Clock.Now, always(200))
	e.configure(t, push(r.URL, hookSecretA), push(other.URL, "a-secret-for-the-other"))
	t0 := e.s.Clock.Now()
	for range 6 {
		e.switchMode(t)
	}
	failing := func() []*ent.WebhookDelivery {
		var out []*ent.WebhookDelivery
		for _, d := range deliveries(t, e.s.DB.Client) {
			if d.URL == r.URL {
				out = append(out, d)
			}
		}
		return out
	}
	// Five attempts fail; the sixth is deferred to +60 s without an attempt.
	servertest.WaitFor(t, "5 failures and 1 deferral", func() bool {
		var tried, deferred int
		for _, d := range failing() {
			switch {
			case d.Attempts == 1 && d.NextAttemptAt.Equal(t0.Add(30*time.Second)):
				tried++
			case d.Attempts == 0 && d.NextAttemptAt.Equal(t0.Add(60*time.Second)):
				deferred++
			}
		}
		return tried == 5 && deferred == 1
	})
	if n := len(r.got()); n != 5 {
		t.Fatalf("%d requests reached the failing target, want 5", n)
	}
	// The other URL's breaker is its own: all six delivered.
	other.waitHits(t, 6)

	// At +30 s the retries fall due, but the breaker is still open: deferred.
	e.s.Clock.Advance(30 * time.Second)
	servertest.WaitFor(t, "retries deferred to +60s", func() bool {
		for _, d := range failing() {
			if !d.NextAttemptAt.Equal(t0.Add(60 * time.Second)) {
				return false
			}
		}
		return true
	})
	if n := len(r.got()); n != 5 {
		t.Fatalf("%d requests while open, want still 5", n)
	}
	for _, d := range failing() {
		if d.Attempts > 1 {
			t.Fatalf("a deferral counted as an attempt: %+v", d)
		}
	}

	// At +60 s it half-opens. Two successes close it, so the four failures
	// after them are all attempted (a half-open breaker would reopen on the
	// first and defer the rest).
	r.setReply(func(n int) int {
		if n < 7 {
			return 200
		}
		return 500
	})
	e.s.Clock.Advance(30 * time.Second)
	r.waitHits(t, 11)
	servertest.WaitFor(t, "all six attempted at +60s", func() bool {
		for _, d := range failing() {
			if d.LastAttemptAt == nil || !d.LastAttemptAt.Equal(t0.Add(60*time.Second)) {
				return false
			}
		}
		return true
	})
	var delivered, retrying int
	for _, d := range failing() {
		switch {
		case d.Status == webhookdelivery.StatusDelivered:
			delivered++
		case d.Status == webhookdelivery.StatusPending &&
			d.NextAttemptAt.Equal(t0.Add(60*time.Second).Add(webhooks.Retries[d.Attempts-1])):
			retrying++ // on the schedule of its own attempt count
		}
	}
	if delivered != 2 || retrying != 4 {
		t.Fatalf("delivered %d, retrying %d; want 2 and 4", delivered, retrying)
	}
	for _, h := range r.got()[5:] {
		if !h.at.Equal(t0.Add(60 * time.Second)) {
			t.Fatalf("a request at +%s, want every one at +60s", h.at.Sub(t0))
		}
	}
}

// A target removed from the settings is not called again: its pending
// deliveries end as cancelled.
func TestRemovedTargetCancels(t *testing.T) {
	e := setupHooks(t)
	r := newHookReceiver(t, e.s.Clock.Now, always(500))
	e.configure(t, push(r.URL, hookSecretA))
	e.switchMode(t)
	servertest.WaitFor(t, "first attempt recorded", func() bool { return deliveries(t, e.s.DB.Client)[0].Attempts == 1 })
	if res := e.api.Do(http.MethodPatch, "/api/v2/settings", `{"clearFields":["serviceKeys"]}`); res.Status != 200 {
		t.Fatal(res.Status, string(res.Body))
	}
	e.s.Clock.Advance(30 * time.Second)
	servertest.WaitFor(t, "cancelled", func() bool { return deliveries(t, e.s.DB.Client)[0].Status == webhookdelivery.StatusCancelled })
	if n := len(r.got()); n != 1 {
		t.Fatalf("%d requests, want 1 (none after the removal)", n)
	}
	// And with no targets a mode switch writes nothing.
	e.switchMode(t)
	if n := len(deliveries(t, e.s.DB.Client)); n != 1 {
		t.Fatalf("%d deliveries, want still 1", n)
	}
}

// A new secret signs the retries of older events: the secret is read at each
// attempt, never copied into the outbox.
func TestRetrySignedWithCurrentSecret(t *testing.T) {
	e := setupHooks(t)
	r := newHookReceiver(t, e.s.Clock.Now, func(n int) int { return map[bool]int{true: 500, false: 200}[n == 0] })
	e.configure(t, push(r.URL, hookSecretA))
	e.switchMode(t)
	servertest.WaitFor(t, "first attempt recorded", func() bool { return deliveries(t, e.s.DB.Client)[0].Attempts == 1 })
	const rotated = "the-rotated-secret-value"
	e.configure(t, push(r.URL, rotated))
	e.s.Clock.Advance(30 * time.Second)
	h := r.waitHits(t, 2)[1]
	if h.header.Get("X-Switchboard-Signature") != sign(rotated, h.body) {
		t.Fatal("the retry is not signed with the current secret")
	}
	var body map[string]any
	if err := json.Unmarshal(h.body, &body); err != nil || len(body) != 3 {
		t.Fatalf("body %s: want exactly event, occurredAt, data", h.body)
	}
}
