package federation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store"
)

// flakySpoke is a spoke on loopback that verifies its registration and
// whose webhook answers 503, with a long error body quoting a token, while
// it is down.
type flakySpoke struct {
	*httptest.Server
	key  string
	up   atomic.Bool
	hits atomic.Int32
}

func newFlakySpoke(t *testing.T, key string) *flakySpoke {
	f := &flakySpoke{key: key}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == federation.WellKnownPath {
			nonce := r.URL.Query().Get("nonce")
			_ = json.NewEncoder(w).Encode(map[string]string{"nonce": nonce, "signature": federation.Sign(key, nonce)})
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		f.hits.Add(1)
		if !f.up.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, `{"error":"down for maintenance, token %s rejected","detail":%q}`,
				r.Header.Get(federation.InstanceHeader), strings.Repeat("busy ", 200))
			return
		}
		_, _ = w.Write([]byte(`{"success":true,"applied":true}`))
	}))
	t.Cleanup(f.Close)
	return f
}

// outboxNet is a hub with its admin and the platform callers of the
// spokes registered with it.
type outboxNet struct {
	hub   *servertest.Server
	admin *servertest.Account
}

func newOutboxNet(t *testing.T, opts ...servertest.Option) *outboxNet {
	t.Helper()
	hub := servertest.New(t, append([]servertest.Option{servertest.WithRole("hub"), servertest.WithPrivateEndpoints(),
		servertest.WithReviewPolicy(store.Review)}, opts...)...)
	return &outboxNet{hub: hub, admin: hub.SignUp("owner")}
}

// register registers a spoke at baseURL with key and links its store; it
// answers the spoke's platform caller.
func (o *outboxNet) register(t *testing.T, name, baseURL, key string) *servertest.Caller {
	t.Helper()
	n := &network{hub: o.hub, hubAdmin: o.admin}
	res := o.hub.WithKey(n.connectToken(t)).Do(http.MethodPost, "/api/v2/federation/register",
		map[string]any{"name": name, "baseUrl": baseURL, "apiKey": key})
	if res.Status != http.StatusCreated {
		t.Fatalf("register %s: %d %s", name, res.Status, res.Body)
	}
	platform := o.hub.WithKey(res.JSON(t)["platformToken"].(string))
	if res := platform.Do(http.MethodPost, "/api/v2/federation/marketplace-link", map[string]any{"action": "enable"}); res.Status != http.StatusOK {
		t.Fatalf("link %s: %d %s", name, res.Status, res.Body)
	}
	return platform
}

// approve syncs one agent per id through platform and approves each, so
// that each decision writes one federation row for its spoke.
func (o *outboxNet) approve(t *testing.T, platform *servertest.Caller, ids ...string) {
	t.Helper()
	agents := make([]any, len(ids))
	for i, id := range ids {
		agents[i] = map[string]any{"id": id, "name": "Agent " + id}
	}
	got := results(t, platform.Do(http.MethodPost, "/api/v2/federation/agents", map[string]any{"agents": agents}))
	for _, id := range ids {
		mid, _ := got[id]["marketplaceId"].(string)
		if res := o.admin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+mid+"/approve", map[string]any{}); res.Status != http.StatusOK {
			t.Fatalf("approve %s: %d %s", id, res.Status, res.Body)
		}
	}
}

// webhookRows are the outbound audit rows of approval webhooks, oldest
// first.
func (o *outboxNet) webhookRows(t *testing.T) []map[string]any {
	t.Helper()
	rows := auditRows(t, o.admin, "direction=outbound&endpoint="+url.QueryEscape(federation.WebhookPath))
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	return rows
}

// settle waits for n webhook audit rows and checks that no more come.
func (o *outboxNet) settle(t *testing.T, n int) []map[string]any {
	t.Helper()
	eventually(t, fmt.Sprintf("%d webhook audit rows", n), func() bool { return len(o.webhookRows(t)) >= n })
	time.Sleep(150 * time.Millisecond)
	rows := o.webhookRows(t)
	if len(rows) != n {
		t.Fatalf("%d webhook audit rows, want %d: %v", len(rows), n, rows)
	}
	return rows
}

// recorded waits until every federation row of the outbox has recorded its
// attempts-th attempt (no dispatcher holds it any more).
func (o *outboxNet) recorded(t *testing.T, attempts int32) {
	t.Helper()
	eventually(t, fmt.Sprintf("attempt %d recorded", attempts), func() bool {
		rows, err := o.hub.DB.WebhookDelivery.Query().Where(webhookdelivery.KindEQ(webhookdelivery.KindFederation)).All(context.Background())
		if err != nil || len(rows) == 0 {
			return false
		}
		for _, r := range rows {
			if r.Attempts < attempts || r.ClaimToken != "" {
				return false
			}
		}
		return true
	})
}

// checkAttempt checks one attempt's audit row.
func checkAttempt(t *testing.T, row map[string]any, status string, retry int, code int, target string) {
	t.Helper()
	if row["status"] != status || row["retryCount"] != float64(retry) || row["statusCode"] != float64(code) ||
		row["targetInstanceName"] != target || row["direction"] != "outbound" {
		t.Fatalf("attempt row: want %s retry %d code %d to %s, got %v", status, retry, code, target, row)
	}
	for _, field := range []string{"payload", "responsePreview"} {
		p := row[field].(string)
		if utf8.RuneCountInString(p) > 500 || unredacted.MatchString(p) {
			t.Fatalf("%s preview too long or holding a token (%d runes): %s", field, utf8.RuneCountInString(p), p)
		}
	}
	if !strings.Contains(row["payload"].(string), federation.EventAgentApproval) {
		t.Fatalf("payload preview lacks the webhook's body: %v", row["payload"])
	}
}

// TestOutboxAttemptsAreAudited: RULINGS "Federation: instances and the
// platform" (Audit) and document 2 "Outbound delivery retry": every attempt
// of a federation delivery writes one outbound audit row; failures are
// retry_pending with their retry count, the success after them
// retry_success; the stats view counts them.
func TestOutboxAttemptsAreAudited(t *testing.T) {
	t.Parallel()
	o := newOutboxNet(t)
	spoke := newFlakySpoke(t, secret('d'))
	o.approve(t, o.register(t, "Flaky", spoke.URL, secret('d')), "a1")

	rows := o.settle(t, 1)
	checkAttempt(t, rows[0], "retry_pending", 0, http.StatusServiceUnavailable, spoke.URL)
	if !strings.Contains(rows[0]["responsePreview"].(string), "down for maintenance") {
		t.Fatalf("the answer's preview: %v", rows[0]["responsePreview"])
	}
	o.hub.Clock.Advance(31 * time.Second)
	rows = o.settle(t, 2)
	checkAttempt(t, rows[1], "retry_pending", 1, http.StatusServiceUnavailable, spoke.URL)

	spoke.up.Store(true)
	o.hub.Clock.Advance(2*time.Minute + time.Second)
	rows = o.settle(t, 3)
	checkAttempt(t, rows[2], "retry_success", 2, http.StatusOK, spoke.URL)
	if spoke.hits.Load() != 3 {
		t.Fatalf("the spoke was called %d times, the audit shows 3", spoke.hits.Load())
	}
	row, err := o.hub.DB.WebhookDelivery.Query().Only(context.Background())
	if err != nil || row.Status != webhookdelivery.StatusDelivered || row.Attempts != 3 {
		t.Fatalf("delivery: %+v %v", row, err)
	}
	storedRowsClean(t, o.hub.DB, secret('d'))
	checkStats(t, o.admin, "direction=outbound&endpoint="+url.QueryEscape(federation.WebhookPath))
	res := o.admin.Session.Do(http.MethodGet, "/api/admin/federation-audit?view=stats&direction=outbound&endpoint="+
		url.QueryEscape(federation.WebhookPath), nil)
	var st struct {
		Stats struct {
			ByStatus []struct {
				Value string `json:"value"`
				Count int    `json:"count"`
			} `json:"byStatus"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(res.Body, &st); err != nil || len(st.Stats.ByStatus) != 2 ||
		st.Stats.ByStatus[0].Value != "retry_pending" || st.Stats.ByStatus[0].Count != 2 ||
		st.Stats.ByStatus[1].Value != "retry_success" || st.Stats.ByStatus[1].Count != 1 {
		t.Fatalf("stats by status: %s %v", res.Body, err)
	}
}

// TestOutboxRetriesExhausted: document 2 "Outbound delivery retry": after
// the third retry (30 s, 2 min, 8 min) fails, the delivery and its last
// audit row are retry_exhausted, with the retry count 3; nothing more is
// sent.
func TestOutboxRetriesExhausted(t *testing.T) {
	t.Parallel()
	o := newOutboxNet(t)
	spoke := newFlakySpoke(t, secret('e'))
	o.approve(t, o.register(t, "Down", spoke.URL, secret('e')), "x1")
	o.settle(t, 1)
	for i, wait := range []time.Duration{30 * time.Second, 2 * time.Minute, 8 * time.Minute} {
		o.hub.Clock.Advance(wait + time.Second)
		o.settle(t, i+2)
	}
	rows := o.webhookRows(t)
	for i := range 3 {
		checkAttempt(t, rows[i], "retry_pending", i, http.StatusServiceUnavailable, spoke.URL)
	}
	checkAttempt(t, rows[3], "retry_exhausted", 3, http.StatusServiceUnavailable, spoke.URL)
	row, err := o.hub.DB.WebhookDelivery.Query().Only(context.Background())
	if err != nil || row.Status != webhookdelivery.StatusRetryExhausted || row.Attempts != 4 {
		t.Fatalf("delivery: %+v %v", row, err)
	}
	if got := auditRows(t, o.admin, "status=retry_exhausted"); len(got) != 1 {
		t.Fatalf("filter status=retry_exhausted: %v", got)
	}
	o.hub.Clock.Advance(time.Hour)
	o.settle(t, 4)
	if spoke.hits.Load() != 4 {
		t.Fatalf("the spoke was called %d times after exhaustion", spoke.hits.Load())
	}
}

// TestOutboxBreakerPerTarget: document 2 "Circuit breaker states" (applies
// to federation pushes, per target URL): five failed deliveries to one
// spoke open its breaker, so the next ones are deferred without a call (and
// without an audit row) until it half-opens after 60 s; another spoke's
// deliveries go on meanwhile; two successes close it.
func TestOutboxBreakerPerTarget(t *testing.T) {
	t.Parallel()
	o := newOutboxNet(t)
	down := newFlakySpoke(t, secret('f'))
	other := newFlakySpoke(t, secret('g'))
	other.up.Store(true)
	downPlatform := o.register(t, "Down", down.URL, secret('f'))
	otherPlatform := o.register(t, "Other", other.URL, secret('g'))
	o.approve(t, downPlatform, "b1", "b2", "b3", "b4", "b5", "b6")
	o.settle(t, 5)
	if down.hits.Load() != 5 {
		t.Fatalf("calls before the breaker opened: %d", down.hits.Load())
	}
	// The dispatcher defers the sixth after the fifth call's outcome is
	// recorded: wait for it rather than read once (a loaded machine may not
	// have got to it yet).
	halfOpen := o.hub.Clock.Now().UTC().Add(60 * time.Second)
	eventually(t, "the sixth delivery deferred to the half-open time", func() bool {
		sixth, err := o.hub.DB.WebhookDelivery.Query().Where(webhookdelivery.Attempts(0)).Only(context.Background())
		return err == nil && sixth.NextAttemptAt.Equal(halfOpen)
	})
	// The other spoke's breaker is its own.
	o.approve(t, otherPlatform, "c1")
	eventually(t, "the other spoke's delivery", func() bool { return other.hits.Load() == 1 })
	o.settle(t, 6)

	// The retries come due at 30 s; the breaker still holds them.
	o.hub.Clock.Advance(31 * time.Second)
	o.settle(t, 6)
	if down.hits.Load() != 5 {
		t.Fatalf("calls while the breaker is open: %d", down.hits.Load())
	}
	down.up.Store(true)
	o.hub.Clock.Advance(30 * time.Second)
	eventually(t, "every delivery after the breaker closed", func() bool {
		n, err := o.hub.DB.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusDelivered)).Count(context.Background())
		return err == nil && n == 7
	})
	rows := o.settle(t, 12)
	statuses := map[string]int{}
	for _, r := range rows {
		statuses[r["status"].(string)]++
	}
	// b1–b5 failed once and then succeeded; b6 and c1 succeeded at once.
	if statuses["retry_pending"] != 5 || statuses["retry_success"] != 5 || statuses["ok"] != 2 || down.hits.Load() != 11 {
		t.Fatalf("statuses %v, %d calls to the spoke that was down", statuses, down.hits.Load())
	}
}

// processRetries posts the admin's action.
func processRetries(a *servertest.Account, action string) *servertest.Response {
	return a.Session.Do(http.MethodPost, "/api/admin/federation-audit", map[string]any{"action": action})
}

// TestProcessRetries: RULINGS (Audit: POST {action: process_retries} runs
// due retries now, hub): a delivery waiting for its retry is sent at once
// on the admin's request, without the schedule's time passing, and the
// answer counts it; another action is 400; a non-admin 403; a standalone
// 404. Nothing else is sent.
func TestProcessRetries(t *testing.T) {
	t.Parallel()
	o := newOutboxNet(t)
	spoke := newFlakySpoke(t, secret('p'))
	o.approve(t, o.register(t, "Back", spoke.URL, secret('p')), "p1", "p2")
	o.settle(t, 2)

	for _, bad := range []map[string]any{{"action": "purge"}, {"action": ""}, {}} {
		if res := o.admin.Session.Do(http.MethodPost, "/api/admin/federation-audit", bad); res.Status != http.StatusBadRequest {
			t.Errorf("action %v: %d %s", bad, res.Status, res.Body)
		}
	}
	member := o.hub.SignUp("member")
	if res := processRetries(member, "process_retries"); res.Status != http.StatusForbidden {
		t.Errorf("a member: %d %s", res.Status, res.Body)
	}
	o.settle(t, 2) // none of the refusals sent anything

	spoke.up.Store(true)
	res := processRetries(o.admin, "process_retries")
	if res.Status != http.StatusOK {
		t.Fatalf("process_retries: %d %s", res.Status, res.Body)
	}
	got := res.JSON(t)
	want := map[string]any{"action": "process_retries", "processed": float64(2), "delivered": float64(2),
		"retryPending": float64(0), "retryExhausted": float64(0), "deferred": float64(0), "cancelled": float64(0)}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("answer %s = %v, want %v: %s", k, got[k], v, res.Body)
		}
	}
	rows := o.settle(t, 4)
	checkAttempt(t, rows[2], "retry_success", 1, http.StatusOK, spoke.URL)
	checkAttempt(t, rows[3], "retry_success", 1, http.StatusOK, spoke.URL)
	if n, _ := o.hub.DB.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusDelivered)).Count(context.Background()); n != 2 {
		t.Fatalf("%d delivered", n)
	}
	// Nothing left: a second run sends nothing.
	if got := processRetries(o.admin, "process_retries").JSON(t); got["processed"] != float64(0) {
		t.Fatalf("second run: %v", got)
	}
	if spoke.hits.Load() != 4 {
		t.Fatalf("%d calls", spoke.hits.Load())
	}

	standalone := servertest.New(t)
	if res := processRetries(standalone.SignUp("owner"), "process_retries"); res.Status != http.StatusNotFound {
		t.Fatalf("standalone: %d %s", res.Status, res.Body)
	}
}

// TestProcessRetriesCountsWhatFails: a delivery that fails again stays
// retry_pending (its next retry on the schedule), one that fails its last
// attempt is retry_exhausted, and a target whose breaker is open is
// deferred, not sent.
func TestProcessRetriesCountsWhatFails(t *testing.T) {
	t.Parallel()
	o := newOutboxNet(t)
	spoke := newFlakySpoke(t, secret('q'))
	platform := o.register(t, "Still down", spoke.URL, secret('q'))
	o.approve(t, platform, "q1")
	o.settle(t, 1)
	// Two more failures by hand: retries 1 and 2 of 3.
	for i := range 2 {
		// The audit row is written during the attempt; the outbox records
		// its outcome just after. Only a recorded failure waits for a retry.
		o.recorded(t, int32(i+1))
		got := processRetries(o.admin, "process_retries").JSON(t)
		if got["processed"] != float64(1) || got["retryPending"] != float64(1) {
			t.Fatalf("run %d: %v", i, got)
		}
	}
	o.recorded(t, 3)
	got := processRetries(o.admin, "process_retries").JSON(t)
	if got["processed"] != float64(1) || got["retryExhausted"] != float64(1) {
		t.Fatalf("last retry: %v", got)
	}
	rows := o.settle(t, 4)
	checkAttempt(t, rows[3], "retry_exhausted", 3, http.StatusServiceUnavailable, spoke.URL)

	// The fifth failure in a row (q2's first attempt) opens the breaker;
	// q3 and q4 wait for it without an attempt. process_retries takes q2,
	// which waits for its retry, and defers it again without a call.
	o.approve(t, platform, "q2", "q3", "q4")
	o.settle(t, 5)
	// The dispatcher records q2's failure and defers q3 and q4 just after
	// q2's audit row; until it has, q3 and q4 are due (process_retries would
	// take them too) and q2 is held (process_retries would leave it).
	now := o.hub.Clock.Now()
	eventually(t, "q2 recorded, q3 and q4 deferred by the open breaker", func() bool {
		rows, err := o.hub.DB.WebhookDelivery.Query().Where(webhookdelivery.KindEQ(webhookdelivery.KindFederation), webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).All(context.Background())
		if err != nil || len(rows) != 3 {
			return false
		}
		for _, r := range rows {
			if r.ClaimToken != "" || (r.Attempts == 0 && !r.NextAttemptAt.After(now)) {
				return false
			}
		}
		return true
	})
	got = processRetries(o.admin, "process_retries").JSON(t)
	if got["processed"] != float64(0) || got["deferred"] != float64(1) {
		t.Fatalf("breaker open: %v", got)
	}
	o.settle(t, 5)
	if spoke.hits.Load() != 5 {
		t.Fatalf("%d calls", spoke.hits.Load())
	}
}

// TestFederationRateLimitPerInstance: document 2 "Limits" (federation
// endpoints 30 per minute) and issue 14 item 9: the class counts per
// calling instance, so the 31st call in a minute from one instance is 429
// with Retry-After while another instance (from the same address) and an
// anonymous discover go on; --federation-rate-limit-per-minute sets the
// number.
func TestFederationRateLimitPerInstance(t *testing.T) {
	t.Parallel()
	limits := gate.Limits{PerKey: 100000, Auth: 100000, Heavy: 100000}
	o := newOutboxNet(t, servertest.WithLimits(limits))
	a := o.register(t, "A", newFlakySpoke(t, secret('r')).URL, secret('r'))
	b := o.register(t, "B", newFlakySpoke(t, secret('s')).URL, secret('s'))
	// Registration linked each store: one federation call each so far.
	for i := range 29 {
		if res := a.Do(http.MethodGet, "/api/v2/prompt-groups", nil); res.Status != http.StatusOK {
			t.Fatalf("call %d of A: %d %s", i+2, res.Status, res.Body)
		}
	}
	res := a.Do(http.MethodGet, "/api/v2/prompt-groups", nil)
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("A's 31st call: %d %v %s", res.Status, res.Header, res.Body)
	}
	if res := a.Do(http.MethodPost, "/api/v2/federation/heartbeat", map[string]any{"status": "healthy"}); res.Status != http.StatusTooManyRequests {
		t.Fatalf("A on another platform route: %d %s", res.Status, res.Body)
	}
	if res := b.Do(http.MethodGet, "/api/v2/prompt-groups", nil); res.Status != http.StatusOK {
		t.Fatalf("B is not A: %d %s", res.Status, res.Body)
	}
	if res := o.hub.Anonymous().Do(http.MethodGet, "/api/v2/network/discover", nil); res.Status != http.StatusOK {
		t.Fatalf("an anonymous discover from the same address: %d %s", res.Status, res.Body)
	}

	limits.Federation = 5
	small := newOutboxNet(t, servertest.WithLimits(limits))
	c := small.register(t, "C", newFlakySpoke(t, secret('t')).URL, secret('t'))
	for i := range 4 {
		if res := c.Do(http.MethodGet, "/api/v2/prompt-groups", nil); res.Status != http.StatusOK {
			t.Fatalf("call %d of C: %d %s", i+2, res.Status, res.Body)
		}
	}
	if res := c.Do(http.MethodGet, "/api/v2/prompt-groups", nil); res.Status != http.StatusTooManyRequests {
		t.Fatalf("C's 6th call with a limit of 5: %d %s", res.Status, res.Body)
	}
}

// TestFederationRateLimitOnASpoke: on a spoke, a request presenting its
// hub's X-Federation-Token (this instance's own secret) is counted as the
// hub, not by address: the hub's 4th call with a limit of 3 is 429 while an
// anonymous call from the same address is still counted on its own. (The
// route is a hub's, so the spoke answers 404 once admitted.)
func TestFederationRateLimitOnASpoke(t *testing.T) {
	t.Parallel()
	s := servertest.New(t, servertest.WithLimits(gate.Limits{PerKey: 100000, Auth: 100000, Heavy: 100000, Federation: 3}))
	s.DB.FederationMembership.Create().SetHubURL("https://hub.example").SetAPIKeyHash(auth.HashToken(secret('h'))).
		SetJoinedAt(s.Clock.Now()).SetInstanceID("inst-1").ExecX(context.Background())
	hub := s.Anonymous()
	hub.Header().Set(federation.InstanceHeader, secret('h'))
	for i := range 3 {
		if res := hub.Do(http.MethodGet, "/api/v2/prompt-groups", nil); res.Status != http.StatusNotFound {
			t.Fatalf("the hub's call %d: %d %s", i+1, res.Status, res.Body)
		}
	}
	if res := hub.Do(http.MethodGet, "/api/v2/prompt-groups", nil); res.Status != http.StatusTooManyRequests {
		t.Fatalf("the hub's 4th call: %d %s", res.Status, res.Body)
	}
	if res := s.Anonymous().Do(http.MethodGet, "/api/v2/prompt-groups", nil); res.Status != http.StatusNotFound {
		t.Fatalf("an anonymous call from the same address: %d %s", res.Status, res.Body)
	}
}
