package server_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/switchboard-hq/switchboard/ent/idempotencyrecord"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The tests of this file run two or three servers on one database, as
// replicas behind a load balancer (RULINGS "Replicas and operations"): on
// the SQLite leg they share one file, on the PostgreSQL leg one database.

// RULINGS "Details for replicas": rate limits across replicas are counted in
// the database, with no 1/N share. A key's requests alternate between two
// replicas: the headers count both, and the request past the limit is 429
// on either; the auth class (per client IP) holds across them too; a new
// window gives the budget back on both.
func TestRateLimitAcrossReplicas(t *testing.T) {
	t.Parallel()
	const limit = 4
	rs := servertest.Replicas(t, 2, servertest.WithLimits(gate.Limits{PerKey: limit, Auth: 3}))
	a, b := rs[0], rs[1]
	key := a.SignUp("ann").NewKey("one")
	for i := range limit {
		res := rs[i%2].WithKey(key).Do(http.MethodGet, "/api/v2/settings", nil)
		if res.Status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, res.Status, res.Body)
		}
		if l, rem := rateHeaders(t, res.Header); l != limit || rem != limit-i-1 {
			t.Fatalf("request %d on replica %d: limit=%d remaining=%d", i+1, i%2, l, rem)
		}
	}
	for _, s := range rs {
		res := s.WithKey(key).Do(http.MethodGet, "/api/v2/settings", nil)
		servertest.WantError(t, res, http.StatusTooManyRequests)
		if l, rem := rateHeaders(t, res.Header); l != limit || rem != 0 || res.Header.Get("Retry-After") == "" {
			t.Fatalf("over the limit: limit=%d remaining=%d Retry-After %q", l, rem, res.Header.Get("Retry-After"))
		}
	}

	// From another address than the sign-up's, whose logins spent the
	// class at 127.0.0.1.
	body := map[string]any{"username": "nobody", "password": "whatever123"}
	for i := range 3 {
		if res := rs[i%2].From("127.0.0.2").Anonymous().Do(http.MethodPost, "/api/auth/login", body); res.Status != http.StatusUnauthorized {
			t.Fatalf("login %d: %d %s", i+1, res.Status, res.Body)
		}
	}
	res := b.From("127.0.0.2").Anonymous().Do(http.MethodPost, "/api/auth/login", body)
	if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("the 4th login, on the other replica: %d %s", res.Status, res.Body)
	}

	// Two windows on, the previous window weighs nothing.
	for _, s := range rs {
		s.Clock.Advance(2 * time.Minute)
	}
	if res := b.WithKey(key).Do(http.MethodGet, "/api/v2/settings", nil); res.Status != http.StatusOK {
		t.Fatalf("a new window: %d %s", res.Status, res.Body)
	}
}

// RULINGS "Security details" (Caps) and Reconciliation 11: once the replicas
// issue lands the stream caps are counted in the database. A key's streams
// on two replicas share its three slots; a slot given back on one replica is
// free on the other; and the slots of a replica that stopped renewing its
// row (a crash: its clock is left behind while the other's moves past the
// timer lease) stop counting.
func TestStreamCapAcrossReplicas(t *testing.T) {
	t.Parallel()
	rs := servertest.Replicas(t, 2, servertest.WithHeartbeat(100*time.Millisecond),
		servertest.WithLimits(gate.Limits{PerKey: 100000, Auth: 100000, Heavy: 100000,
			Federation: 100000, StreamsPerKey: 3, MCPSessionsPerKey: 3}))
	a, b := rs[0], rs[1]
	key := a.SignUp("ann").NewKey("one")
	onA, onB := a.WithKey(key), b.WithKey(key)

	sseOpen(t, onA)
	sseOpen(t, onA)
	closing := sseOpen(t, onB)
	sseOver(t, onA, "a fourth stream on A")
	sseOver(t, onB, "a fourth stream on B")
	_, err := connectStream(t, b, b.HTTP, connect.WithInterceptors(servertest.BearerInterceptor(key)))
	wantCapConnect(t, "a fourth stream on B over Connect", err)

	// Hanging up on B frees the slot for A.
	closing.Close()
	servertest.WaitFor(t, "the slot B gave back, on A", func() bool {
		st := onA.Stream(chatStream)
		defer st.Close()
		return st.Response.StatusCode == http.StatusOK
	})

	// B holds one stream when it dies; A holds two. (The probes above give
	// their slots back when A sees them hang up.)
	var held *servertest.SSEStream
	servertest.WaitFor(t, "a stream on B", func() bool {
		held = onB.Stream(chatStream)
		if held.Response.StatusCode != http.StatusOK {
			held.Close()
			return false
		}
		return true
	})
	t.Cleanup(held.Close)
	if ev := held.Next(); ev.Event != "connected" {
		t.Fatalf("first event %+v", ev)
	}
	sseOver(t, onA, "a fourth stream on A, B alive")
	a.Clock.Advance(a.App.Replica.Lease() + time.Second)
	sseOpen(t, onA)
	sseOver(t, onA, "a fourth stream on A, B dead")
}

// RULINGS "Replicas and operations": idempotency keys hold across replicas.
// The key's first use on A stores its answer; the second on B answers it
// again with Idempotent-Replayed and makes nothing.
func TestIdempotencyKeyAcrossReplicas(t *testing.T) {
	t.Parallel()
	rs := servertest.Replicas(t, 2)
	a, b := rs[0], rs[1]
	ann := a.SignUp("ann")
	key := ann.NewKey("agent")
	body := `{"title":"Once"}`
	first := a.WithKey(key).Do(http.MethodPost, "/api/v2/queue", body, "Idempotency-Key", "k-1")
	servertest.WantStatus(t, first, http.StatusCreated)
	again := b.WithKey(key).Do(http.MethodPost, "/api/v2/queue", body, "Idempotency-Key", "k-1")
	if again.Status != first.Status || again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) {
		t.Fatalf("the retry on B: %d %v %s", again.Status, again.Header, again.Body)
	}
	if n := b.DB.QueueItem.Query().Where(queueitem.UserIDEQ(ann.ID)).CountX(t.Context()); n != 1 {
		t.Fatalf("%d queue items, want 1", n)
	}
}

// RULINGS "Details for replicas": an idempotency claim of a dead replica is
// released within the timer lease, not the 5 minutes a live replica's
// request may take. Claims as a crash leaves them (running, naming their
// replica): while their replica lives a retry elsewhere is 409; once it is
// dead, an unapplied claim is taken over and an applied one is "took effect"
// at once. A replica that closed (its row deleted) is dead at once; one that
// stopped renewing is dead once the lease has passed on the retrying
// replica's clock.
func TestIdempotencyClaimOfADeadReplica(t *testing.T) {
	t.Parallel()
	rs := servertest.Replicas(t, 3)
	a, b, c := rs[0], rs[1], rs[2]
	acct := a.SignUp("ann")
	key := acct.NewKey("agent")
	api := a.WithKey(key)
	body := `{"title":"Task"}`
	done := api.Do(http.MethodPost, "/api/v2/queue", body, "Idempotency-Key", "done")
	servertest.WantStatus(t, done, http.StatusCreated)
	rec := a.DB.IdempotencyRecord.Query().Where(idempotencyrecord.KeyEQ("done")).OnlyX(t.Context())
	crashed := func(name, replica string, applied bool) {
		now := a.Clock.Now()
		a.DB.IdempotencyRecord.Create().SetScope(rec.Scope).SetKey(name).SetProcedure(rec.Procedure).
			SetFingerprint(rec.Fingerprint).SetToken("dead-" + name).SetApplied(applied).SetReplica(replica).
			SetClaimedAt(now).SetExpiresAt(now.Add(24 * time.Hour)).SaveX(context.Background())
	}
	retry := func(name string) *servertest.Response {
		return api.Do(http.MethodPost, "/api/v2/queue", body, "Idempotency-Key", name)
	}

	crashed("closed", c.App.Replica.ID(), false)
	servertest.WantErrorContaining(t, retry("closed"), http.StatusConflict, "still running")
	c.App.Close()
	servertest.WantStatus(t, retry("closed"), http.StatusCreated)

	crashed("lost", b.App.Replica.ID(), false)
	crashed("applied", b.App.Replica.ID(), true)
	servertest.WantErrorContaining(t, retry("lost"), http.StatusConflict, "still running")
	servertest.WantErrorContaining(t, retry("applied"), http.StatusConflict, "still running")
	a.Clock.Advance(a.App.Replica.Lease() + time.Second)
	servertest.WantStatus(t, retry("lost"), http.StatusCreated)
	servertest.WantErrorContaining(t, retry("applied"), http.StatusConflict, "took effect")
	if n := a.DB.QueueItem.Query().Where(queueitem.UserIDEQ(acct.ID)).CountX(t.Context()); n != 3 {
		t.Fatalf("%d queue items, want 3 (the first create and the two dead claims' runs)", n)
	}
}

// Counted in the database, a limit is never passed by requests racing on
// two replicas: of twice the limit's requests sent at once, exactly the
// limit pass (each upsert counts under the row's lock); of streams opened at
// once, at most the cap are open (a slot is written before the count), and
// once the race is over the key can open exactly up to the cap.
func TestLimitsHoldUnderConcurrentReplicas(t *testing.T) {
	t.Parallel()
	const limit, streams = 20, 3
	rs := servertest.Replicas(t, 2, servertest.WithHeartbeat(100*time.Millisecond),
		servertest.WithLimits(gate.Limits{PerKey: limit, Auth: 100000, Heavy: 100000,
			Federation: 100000, StreamsPerKey: streams, MCPSessionsPerKey: streams}))
	ann := rs[0].SignUp("ann")
	key, other := ann.NewKey("one"), ann.NewKey("two")

	codes := make(chan int, 2*limit)
	var wg sync.WaitGroup
	for i := range 2 * limit {
		wg.Go(func() { codes <- rs[i%2].WithKey(key).Do(http.MethodGet, "/api/v2/settings", nil).Status })
	}
	wg.Wait()
	close(codes)
	passed := 0
	for c := range codes {
		switch c {
		case http.StatusOK:
			passed++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("status %d", c)
		}
	}
	if passed != limit {
		t.Fatalf("%d of %d requests passed a limit of %d", passed, 2*limit, limit)
	}

	opened := make(chan *servertest.SSEStream, 4*streams)
	for i := range 4 * streams {
		wg.Go(func() {
			st := rs[i%2].WithKey(other).Stream(chatStream)
			if st.Response.StatusCode == http.StatusOK {
				opened <- st
				return
			}
			st.Close()
		})
	}
	wg.Wait()
	close(opened)
	held := 0
	for st := range opened {
		t.Cleanup(st.Close)
		held++
	}
	if held > streams {
		t.Fatalf("%d streams open at once, cap %d", held, streams)
	}
	for ; held < streams; held++ {
		t.Cleanup(sseOpen(t, rs[held%2].WithKey(other)).Close)
	}
	sseOver(t, rs[0].WithKey(other), "past the cap after the race")
	sseOver(t, rs[1].WithKey(other), "past the cap after the race, on B")
}
