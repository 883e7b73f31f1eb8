package throughtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/schema"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// outboxStore is one database opened as several replicas would: a handle each.
type outboxStore struct {
	dsn   string
	clock *clockwork.FakeClock
}

func newOutboxStore(t *testing.T) outboxStore {
	return outboxStore{dsn: dbtest.DSN(t), clock: clockwork.NewFakeClockAt(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))}
}

func (s outboxStore) open(t *testing.T) *db.DB {
	t.Helper()
	d, err := db.Open(context.Background(), s.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	d.SetClock(func() time.Time { return s.clock.Now().UTC() }) // every replica on the one clock
	return d
}

func (s outboxStore) start(t *testing.T, d *db.DB, allowPrivate bool, log *slog.Logger) *webhooks.Dispatcher {
	t.Helper()
	disp := webhooks.Start(webhooks.Config{
		DB: d.Client, Clock: s.clock, Logger: log, Egress: egress.Policy{AllowPrivate: allowPrivate},
	})
	t.Cleanup(disp.Close)
	return disp
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// account makes a user whose settings list the given targets, written
// straight to the database (as if saved before the rules changed).
func account(t *testing.T, d *db.DB, name string, keys ...schema.ServiceKey) *ent.Setting {
	t.Helper()
	ctx := context.Background()
	u, err := d.User.Create().SetUsername(name).SetEmail(name + "@example.com").SetName(name).SetPasswordHash("x").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	row, err := d.Setting.Create().SetUserID(u.ID).SetServiceKeys(keys).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return row
}

func enqueue(t *testing.T, d *db.DB, userID string, at time.Time, n int) {
	t.Helper()
	err := d.InTx(context.Background(), func(tx *db.Tx) error {
		for i := range n {
			if err := webhooks.Enqueue(context.Background(), tx, userID, webhooks.Event{
				Name: webhooks.EventQueueUpdated, At: at,
				Data: webhooks.QueueUpdated{QueueItemID: fmt.Sprintf("q%d", i), Status: "ready", Action: "queue_added"},
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The outbox is written in the caller's transaction: rolled back with it, and
// nothing at all for an account without push targets.
func TestEnqueueIsTransactional(t *testing.T) {
	st := newOutboxStore(t)
	d := st.open(t)
	ctx := context.Background()
	with := account(t, d, "ann", schema.ServiceKey{Service: webhooks.ServicePush, URL: "https://hooks.example.com/a", Secret: hookSecretA},
		schema.ServiceKey{Service: "other_service", URL: "https://other.example.com", Secret: "not-a-push-target"})
	without := account(t, d, "bob")
	boom := errors.New("the change failed")
	err := d.InTx(ctx, func(tx *db.Tx) error {
		if err := webhooks.EnqueueFor(ctx, tx, with, webhooks.Event{Name: webhooks.EventQueueUpdated, At: st.clock.Now()}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if n := len(deliveries(t, d.Client)); n != 0 {
		t.Fatalf("a rolled-back change left %d deliveries", n)
	}
	enqueue(t, d, without.UserID, st.clock.Now(), 3)
	if n := len(deliveries(t, d.Client)); n != 0 {
		t.Fatalf("an account without targets got %d deliveries", n)
	}
	enqueue(t, d, with.UserID, st.clock.Now(), 1)
	rows := deliveries(t, d.Client)
	if len(rows) != 1 || rows[0].URL != "https://hooks.example.com/a" || rows[0].Status != webhookdelivery.StatusPending {
		t.Fatalf("rows = %v (one per webhook_push target, none for other services)", rows)
	}
	want := `{"event":"queue.updated","occurredAt":"2026-03-01T09:00:00Z","data":{"queueItemId":"q0","status":"ready","action":"queue_added"}}`
	if rows[0].Payload != want {
		t.Fatalf("payload %s\nwant    %s", rows[0].Payload, want)
	}
}

// A dispatcher stopped in the middle of the schedule loses nothing: the rows
// are durable and a new dispatcher on the same database delivers them, on
// schedule, each attempt once.
func TestRestartMidSchedule(t *testing.T) {
	st := newOutboxStore(t)
	r := newHookReceiver(t, st.clock.Now, always(500))
	d1 := st.open(t)
	ann := account(t, d1, "ann", schema.ServiceKey{Service: webhooks.ServicePush, URL: r.URL, Secret: hookSecretA})
	first := st.start(t, d1, true, discard())
	t0 := st.clock.Now()
	enqueue(t, d1, ann.UserID, t0, 1)
	r.waitHits(t, 1)
	servertest.WaitFor(t, "first attempt recorded", func() bool { return deliveries(t, d1.Client)[0].Attempts == 1 })
	first.Close()

	// While no dispatcher runs, another event is committed.
	st.clock.Advance(10 * time.Second)
	enqueue(t, d1, ann.UserID, st.clock.Now(), 1)
	if n := len(r.got()); n != 1 {
		t.Fatalf("%d requests with no dispatcher running", n)
	}

	// A new process: its own handle on the database, its own dispatcher.
	r.setReply(always(200))
	d2 := st.open(t)
	st.start(t, d2, true, discard())
	hits := r.waitHits(t, 2) // the second event is due at once
	if !hits[1].at.Equal(t0.Add(10 * time.Second)) {
		t.Fatalf("second event delivered at +%s, want at once (+10s)", hits[1].at.Sub(t0))
	}
	st.clock.Advance(20 * time.Second) // +30 s: the first event's retry
	hits = r.waitHits(t, 3)
	if !hits[2].at.Equal(t0.Add(30*time.Second)) || hits[2].header.Get("X-Switchboard-Delivery") != hits[0].header.Get("X-Switchboard-Delivery") {
		t.Fatalf("retry at +%s for %s, want +30s for the first delivery", hits[2].at.Sub(t0), hits[2].header.Get("X-Switchboard-Delivery"))
	}
	servertest.WaitFor(t, "both delivered", func() bool {
		rows := deliveries(t, d2.Client)
		return rows[0].Status == webhookdelivery.StatusDelivered && rows[1].Status == webhookdelivery.StatusDelivered
	})
	if rows := deliveries(t, d2.Client); rows[0].Attempts != 2 || rows[1].Attempts != 1 {
		t.Fatalf("attempts %d and %d, want 2 and 1", rows[0].Attempts, rows[1].Attempts)
	}
}

// Several replicas on one database: every delivery is sent exactly once.
func TestReplicasSendEachDeliveryOnce(t *testing.T) {
	st := newOutboxStore(t)
	var targets []*hookReceiver
	var keys []schema.ServiceKey
	for i := range 3 {
		r := newHookReceiver(t, st.clock.Now, always(200))
		targets = append(targets, r)
		keys = append(keys, schema.ServiceKey{Service: webhooks.ServicePush, URL: r.URL, Secret: fmt.Sprintf("secret-number-%d-padding", i)})
	}
	d1 := st.open(t)
	ann := account(t, d1, "ann", keys...)
	// Rows first, then the replicas, so they race for the same rows.
	enqueue(t, d1, ann.UserID, st.clock.Now(), 20)
	for range 3 {
		st.start(t, st.open(t), true, discard())
	}
	seen := map[string]int{}
	for _, r := range targets {
		for _, h := range r.waitHits(t, 20) {
			seen[h.header.Get("X-Switchboard-Delivery")]++
		}
	}
	servertest.WaitFor(t, "all delivered", func() bool {
		n, err := d1.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusDelivered)).Count(context.Background())
		return err == nil && n == 60
	})
	if len(seen) != 60 {
		t.Fatalf("%d distinct deliveries received, want 60", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("delivery %s sent %d times", id, n)
		}
	}
	for _, r := range targets {
		if n := len(r.got()); n != 20 {
			t.Errorf("a target got %d requests, want 20", n)
		}
	}
}

// RULINGS "Store, federation, MCP, A2A": the address rule holds at delivery
// time too (a name may resolve elsewhere later): without the allowance a
// loopback target is never called, the attempt fails and is retried. No log
// line carries the secret.
func TestDeliveryRefusesPrivateAddresses(t *testing.T) {
	st := newOutboxStore(t)
	r := newHookReceiver(t, st.clock.Now, always(200))
	d := st.open(t)
	const secret = "never-in-a-log-line-please"
	ann := account(t, d, "ann", schema.ServiceKey{Service: webhooks.ServicePush, URL: r.URL + "/in?token=abc", Secret: secret})
	var logs syncBuffer
	st.start(t, d, false, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	enqueue(t, d, ann.UserID, st.clock.Now(), 1)
	servertest.WaitFor(t, "attempt recorded", func() bool { return deliveries(t, d.Client)[0].Attempts == 1 })
	row := deliveries(t, d.Client)[0]
	if row.Status != webhookdelivery.StatusPending || row.LastError == nil || !strings.Contains(*row.LastError, "private") || row.LastStatus != nil {
		t.Fatalf("row = %+v, want a failed attempt naming the address rule", row)
	}
	if n := len(r.got()); n != 0 {
		t.Fatalf("the loopback target was called %d times", n)
	}
	out := logs.String()
	if !strings.Contains(out, "webhook attempt failed") {
		t.Fatalf("no log line for the failed attempt:\n%s", out)
	}
	if strings.Contains(out, secret) || strings.Contains(out, "token=abc") {
		t.Fatalf("the log carries the secret or the URL's query:\n%s", out)
	}
}
