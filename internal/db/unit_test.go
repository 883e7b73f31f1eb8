package db_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/streamevent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/events"
)

func say(tx *db.Tx, userID, content string) {
	tx.Emit(db.Event{UserID: userID, Body: &switchboardv1.ChatEvent{Type: events.TypeNewMessage,
		Message: &switchboardv1.ChatMessage{Id: content, Content: content}}})
}

// Issue 11, item 1 (acceptance): in a group-commit batch with a failing and
// a succeeding job, only the succeeding job's events are stored and reach the
// stream, and only its after-commit functions run; the failed job, rolled
// back to its savepoint, fires nothing although the shared commit succeeds.
// On PostgreSQL (no batches) the failed transaction fires nothing and the
// committed one fires its own. The real event bus is the outbox.
func TestGroupCommitFiresOnlyCommittedJobs(t *testing.T) {
	d := dbtest.Open(t)
	d.SetClock(dbtest.WallClock)
	ctx := context.Background()
	bus, err := events.New(events.Config{DB: d, Now: func() time.Time { return time.Now().UTC() }, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bus.Close)
	var ann string
	if err := d.InTx(ctx, func(tx *db.Tx) error {
		u, err := tx.User.Create().SetUsername("ann").SetEmail("ann@example.com").SetName("ann").SetPasswordHash("x").Save(ctx)
		ann = u.ID
		return err
	}); err != nil {
		t.Fatal(err)
	}
	sub, _, err := bus.Subscribe(ctx, ann, -1)
	if err != nil {
		t.Fatal(err)
	}
	frames := make(chan string, 16)
	go func() {
		_ = bus.Pump(ctx, sub, 0, func(f *events.Frame) error {
			if f.ID != 0 {
				frames <- f.Msg.GetEvent().GetMessage().GetContent()
			}
			return nil
		})
	}()
	t.Cleanup(sub.Close)

	var hooks []string
	errs := d.GroupCommit(ctx,
		func(tx *db.Tx) error {
			say(tx, ann, "failed")
			tx.AfterCommit(func() { hooks = append(hooks, "failed") })
			if err := addUser(ctx, tx, "ghost"); err != nil {
				return err
			}
			return errRefused
		},
		func(tx *db.Tx) error {
			say(tx, ann, "committed")
			tx.AfterCommit(func() { hooks = append(hooks, "committed") })
			return addUser(ctx, tx, "real")
		},
	)
	if !errors.Is(errs[0], errRefused) || errs[1] != nil {
		t.Fatalf("results %v", errs)
	}
	if !slices.Equal(hooks, []string{"committed"}) {
		t.Fatalf("after-commit functions run: %v, want the committed job's only", hooks)
	}
	// A marker committed after the batch: per account, events arrive in
	// commit order, so whatever the batch delivered arrives before it.
	if err := d.InTx(ctx, func(tx *db.Tx) error { say(tx, ann, "marker"); return nil }); err != nil {
		t.Fatal(err)
	}
	var got []string
	for c := range frames {
		got = append(got, c)
		if c == "marker" {
			break
		}
	}
	if !slices.Equal(got, []string{"committed", "marker"}) {
		t.Fatalf("the stream received %v, want [committed marker]", got)
	}
	stored, err := d.StreamEvent.Query().Where(streamevent.UserID(ann)).Count(ctx)
	if err != nil || stored != 2 {
		t.Fatalf("%d events stored (%v), want 2: the failed job's is rolled back with it", stored, err)
	}
}

// An event that cannot be stored fails its unit of work: the change is
// rolled back with it and nothing runs after.
func TestEventThatCannotBeStoredFailsTheUnit(t *testing.T) {
	d := dbtest.Open(t)
	d.SetClock(dbtest.WallClock)
	ctx := context.Background()
	bus, err := events.New(events.Config{DB: d, Now: func() time.Time { return time.Now().UTC() }, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bus.Close)
	ran := false
	err = d.InTx(ctx, func(tx *db.Tx) error {
		tx.Emit(db.Event{UserID: "", Body: &switchboardv1.ChatEvent{Type: events.TypeWake}})
		tx.AfterCommit(func() { ran = true })
		return addUser(ctx, tx, "lost")
	})
	if err == nil || ran {
		t.Fatalf("err=%v ran=%v", err, ran)
	}
	if n, _ := d.User.Query().Count(ctx); n != 0 {
		t.Fatalf("%d users: the change stood without its event", n)
	}
}
