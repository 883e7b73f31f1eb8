package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/streamevent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newBus(t *testing.T, d *db.DB, cfg Config) *Bus {
	t.Helper()
	cfg.DB = d
	cfg.Logger = slog.New(slog.DiscardHandler)
	if cfg.Now == nil { // the test is the injector: real time unless it brings a clock
		cfg.Now = func() time.Time { return time.Now().UTC() }
	}
	d.SetClock(cfg.Now) // rows on the bus's clock, as server.New does
	b, err := New(cfg)
	if err != nil {
		t.Fatalf("events.New: %v", err)
	}
	t.Cleanup(b.Close)
	return b
}

func newUser(t *testing.T, d *db.DB, name string) string {
	t.Helper()
	u, err := d.User.Create().SetUsername(name).SetEmail(name + "@example.com").SetName(name).SetPasswordHash("x").
		Save(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

func message(content string) *switchboardv1.ChatEvent {
	return &switchboardv1.ChatEvent{Type: TypeNewMessage, Message: &switchboardv1.ChatMessage{Id: content, Content: content}}
}

// waitFor polls cond until it holds or a generous deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A subscriber that never reads is dropped once its buffer is full, while
// 1,000 others each receive every event, in order (RULINGS "Shared chat and
// events"; counted, not timed). Events are published in rounds no larger than
// the buffer, each round read by everyone who reads before the next, so only
// the subscriber that never reads can overflow, however loaded the machine.
func TestSlowSubscriberDroppedOthersGetEverything(t *testing.T) {
	const (
		subscribers = 1000
		buffer      = 8
		rounds      = 3
	)
	d := dbtest.Open(t)
	bus := newBus(t, d, Config{Buffer: buffer})
	ann := newUser(t, d, "ann")
	ctx := context.Background()

	stuck, _, err := bus.Subscribe(ctx, ann, -1)
	if err != nil {
		t.Fatal(err)
	}
	var (
		received atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		bad      []string
	)
	for i := range subscribers {
		sub, replay, err := bus.Subscribe(ctx, ann, -1)
		if err != nil || len(replay) != 0 {
			t.Fatalf("subscribe %d: %v (replay %d)", i, err, len(replay))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sub.Close()
			last := int64(0)
			for n := 0; n < buffer*rounds; n++ {
				f, ok := <-sub.c
				if !ok {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("subscriber %d ended after %d events (dropped=%v)", i, n, sub.dropped))
					mu.Unlock()
					return
				}
				if f.ID <= last {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("subscriber %d: id %d after %d", i, f.ID, last))
					mu.Unlock()
				}
				last = f.ID
				received.Add(1)
			}
		}()
	}
	waitFor(t, "all subscriptions", func() bool { return bus.Subscribers(ann) == subscribers+1 })
	for r := range rounds {
		for i := range buffer {
			if err := bus.Publish(ctx, ann, message(fmt.Sprintf("r%d-%d", r, i))); err != nil {
				t.Fatal(err)
			}
		}
		want := int64(subscribers * buffer * (r + 1))
		waitFor(t, fmt.Sprintf("round %d delivered to everyone", r), func() bool { return received.Load() == want })
	}
	wg.Wait()
	if len(bad) > 0 {
		t.Fatalf("%d problems, first: %s", len(bad), bad[0])
	}
	// The stuck subscriber got exactly its buffer, then was dropped.
	var got []int64
	for f := range stuck.c {
		got = append(got, f.ID)
	}
	if len(got) != buffer || !stuck.dropped {
		t.Fatalf("stuck subscriber: %d events queued, dropped=%v; want %d and dropped", len(got), stuck.dropped, buffer)
	}
	if err := bus.Pump(ctx, stuck, 0, func(*Frame) error { return nil }); !errors.Is(err, ErrDropped) {
		t.Fatalf("Pump of a dropped subscriber = %v, want ErrDropped", err)
	}
	if n := bus.Subscribers(ann); n != 0 {
		t.Fatalf("%d subscribers left after all closed", n)
	}
}

// RULINGS "Shared chat and events": the window keeps at least the last Keep
// events or KeepFor per account; older events beyond both are pruned.
func TestPruneKeepsTheWindow(t *testing.T) {
	d := dbtest.Open(t)
	clk := &clock{now: time.Now().UTC().Truncate(time.Millisecond)}
	bus := newBus(t, d, Config{Now: clk.Now, Keep: 5, KeepFor: time.Minute})
	ctx := context.Background()
	ann, bob, cat := newUser(t, d, "ann"), newUser(t, d, "bob"), newUser(t, d, "cat")
	publish := func(user string, n int) {
		for i := range n {
			if err := bus.Publish(ctx, user, message(fmt.Sprint(i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	publish(ann, 8) // old, more than Keep
	publish(bob, 3) // old, fewer than Keep
	clk.Advance(2 * time.Minute)
	publish(ann, 1)
	publish(cat, 7) // young, more than Keep
	ids := func(user string) []int64 {
		v, err := d.StreamEvent.Query().Where(streamevent.UserID(user)).Order(streamevent.ByID()).IDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	annBefore := ids(ann)
	if err := bus.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ids(ann); !slices.Equal(got, annBefore[len(annBefore)-5:]) {
		t.Fatalf("ann keeps %v, want her last 5 of %v", got, annBefore)
	}
	if got := ids(bob); len(got) != 3 {
		t.Fatalf("bob keeps %d events, want all 3 (fewer than Keep)", len(got))
	}
	if got := ids(cat); len(got) != 7 {
		t.Fatalf("cat keeps %d events, want all 7 (younger than KeepFor)", len(got))
	}
	// A client resuming from a pruned id gets what is kept, in order.
	sub, replay, err := bus.Subscribe(ctx, ann, annBefore[0])
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	var got []int64
	for _, f := range replay {
		got = append(got, f.ID)
	}
	if !slices.Equal(got, annBefore[len(annBefore)-5:]) {
		t.Fatalf("replay after a pruned id = %v", got)
	}
}

// Issue 11, item 2: the clock is required; there is no wall-clock fallback.
func TestNewNeedsAClock(t *testing.T) {
	if b, err := New(Config{DB: dbtest.Open(t)}); err == nil || !strings.Contains(err.Error(), "Config.Now is required") {
		if b != nil {
			b.Close()
		}
		t.Fatalf("New without Now = %v; want the clock error", err)
	}
}

// Defaults are RULINGS' window: 1,000 events or 5 minutes.
func TestDefaults(t *testing.T) {
	bus := newBus(t, dbtest.Open(t), Config{})
	if bus.cfg.Keep != 1000 || bus.cfg.KeepFor != 5*time.Minute || bus.cfg.Heartbeat != 30*time.Second {
		t.Fatalf("defaults = %d, %s, %s", bus.cfg.Keep, bus.cfg.KeepFor, bus.cfg.Heartbeat)
	}
}

// Document 1, "Events": each SSE event is id: (stored events only), event:
// with the type, a retry: hint and one data: line, the RPC form of the event
// whose type equals the event name.
func TestFrameShape(t *testing.T) {
	ev := message("multi\nline")
	f, err := newFrame(7, ev)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(f.SSE), "\n")
	if len(lines) != 6 || lines[0] != "id: 7" || lines[1] != "event: new_message" || lines[2] != "retry: 2000" ||
		!strings.HasPrefix(lines[3], "data: ") || lines[4] != "" || lines[5] != "" {
		t.Fatalf("frame = %q", f.SSE)
	}
	var data map[string]any
	if err := json.Unmarshal([]byte(strings.TrimPrefix(lines[3], "data: ")), &data); err != nil {
		t.Fatal(err)
	}
	msg, _ := data["message"].(map[string]any)
	if data["type"] != "new_message" || msg["content"] != "multi\nline" || len(data) != 2 {
		t.Fatalf("data = %v", data)
	}
	if f.Msg.GetId() != "7" || f.Msg.GetEvent() != ev {
		t.Fatalf("message = %v", f.Msg)
	}
	hb, err := newFrame(0, &switchboardv1.ChatEvent{Type: TypeHeartbeat})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(hb.SSE), "id:") || hb.Msg.Id != nil {
		t.Fatalf("a heartbeat has no id: %q", hb.SSE)
	}
	for _, v := range []string{"", "abc", "-1", "1.5"} {
		n, err := ParseLastEventID(v)
		if (v == "") != (err == nil) || (v == "" && n != -1) {
			t.Errorf("ParseLastEventID(%q) = %d, %v", v, n, err)
		}
	}
}

// A unit of work's events for two accounts, emitted in either account's
// order by many writers at once: no writer waits on another's locks for
// good (PostgreSQL takes them in one order), each account hears every event
// once with rising ids, and each unit's events in the order it emitted them.
func TestUnitsOfTwoAccountsKeepEmitOrder(t *testing.T) {
	const writers, units = 8, 10
	d := dbtest.Open(t)
	bus := newBus(t, d, Config{Buffer: writers * units * 3})
	ctx := context.Background()
	ann, bob := newUser(t, d, "ann"), newUser(t, d, "bob")
	subs := map[string]*Subscription{}
	for _, u := range []string{ann, bob} {
		sub, _, err := bus.Subscribe(ctx, u, -1)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		subs[u] = sub
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		first, second := ann, bob
		if w%2 == 1 {
			first, second = bob, ann
		}
		wg.Go(func() {
			for u := range units {
				err := d.InTx(ctx, func(tx *db.Tx) error {
					for i, acct := range []string{first, second, first, second, first} {
						tx.Emit(db.Event{UserID: acct, Body: message(fmt.Sprintf("w%d u%d e%d", w, u, i))})
					}
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for acct, want := range map[string]int{ann: writers * units * 5 / 2, bob: writers * units * 5 / 2} {
		// Each writer's events reach an account as e0 e2 e4 (first) or e1 e3 (second) per unit, units in order.
		next := map[string]int{} // writer → index of the next event expected, over its units
		last := int64(0)
		for n := range want {
			var f *Frame
			select {
			case f = <-subs[acct].c:
			case <-time.After(30 * time.Second):
				t.Fatalf("account %s: %d of %d events", acct, n, want)
			}
			if f.ID <= last {
				t.Fatalf("id %d after %d", f.ID, last)
			}
			last = f.ID
			var w, u, e int
			if _, err := fmt.Sscanf(f.Msg.GetEvent().GetMessage().GetContent(), "w%d u%d e%d", &w, &u, &e); err != nil {
				t.Fatal(err)
			}
			key := fmt.Sprint(w)
			if got := u*5 + e; got < next[key] {
				t.Fatalf("writer %d: unit %d event %d after a later one", w, u, e)
			}
			next[key] = u*5 + e + 1
		}
	}
}

// A unit's last statement (db.Tx.Last) runs whether or not it rides with the
// unit's events, on both databases: alone with events (on PostgreSQL, inside
// the events' statement, its placeholders after theirs), two of them in
// order (the second sees the first's write), and one without events. The
// events are stored beside it, once each.
func TestLastStatementsRunWithTheEvents(t *testing.T) {
	d := dbtest.Open(t)
	newBus(t, d, Config{}) // the database's outbox
	ann := newUser(t, d, "ann")
	ctx := context.Background()
	rename := `UPDATE users SET name = $1 WHERE id = $2`
	suffix := `UPDATE users SET name = name || $1 WHERE id = $2`
	name := func() string {
		t.Helper()
		u, err := d.User.Get(ctx, ann)
		if err != nil {
			t.Fatal(err)
		}
		return u.Name
	}
	stored := func() int {
		t.Helper()
		n, err := d.StreamEvent.Query().Where(streamevent.UserID(ann)).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		name   string
		last   []db.Statement
		events int
		want   string
	}{
		{"one, with events", []db.Statement{{SQL: rename, Args: []any{"one", ann}}}, 2, "one"},
		{"two in order", []db.Statement{{SQL: rename, Args: []any{"two", ann}}, {SQL: suffix, Args: []any{"+", ann}}}, 1, "two+"},
		{"one, no events", []db.Statement{{SQL: rename, Args: []any{"three", ann}}}, 0, "three"},
	} {
		before := stored()
		err := d.InTx(ctx, func(tx *db.Tx) error {
			for i := range c.events {
				tx.Emit(db.Event{UserID: ann, Body: message(fmt.Sprintf("%s %d", c.name, i))})
			}
			for _, s := range c.last {
				tx.Last(s)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := name(); got != c.want {
			t.Errorf("%s: name %q, want %q", c.name, got, c.want)
		}
		if got := stored() - before; got != c.events {
			t.Errorf("%s: %d events stored, want %d", c.name, got, c.events)
		}
	}
}
