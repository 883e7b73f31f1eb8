package db_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/switchboard-hq/switchboard/ent/user"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

type named struct{ Name string }

type unheard struct{}

// A domain event reaches its subscribers in the table's order inside the
// publishing transaction (what they write commits with the change, and their
// error rolls the whole change back), and its after-commit subscribers only
// once the change has committed; an event type nobody subscribes to is
// published to nobody.
func TestPublishRunsSubscribersInTheUnitOfWork(t *testing.T) {
	d := dbtest.Open(t)
	d.SetClock(dbtest.WallClock)
	ctx := context.Background()
	var seen []string
	refuse := errors.New("refused by a subscriber")
	d.Subscribe(
		db.On(func(ctx context.Context, tx *db.Tx, ev named) error {
			seen = append(seen, "first:"+ev.Name)
			// Written with the publisher's transaction.
			_, err := tx.User.Create().SetUsername(ev.Name + "-echo").SetEmail(ev.Name + "-echo@example.com").
				SetName(ev.Name).SetPasswordHash("x").Save(ctx)
			return err
		}),
		db.OnCommit(func(_ context.Context, ev named) { seen = append(seen, "committed:"+ev.Name) }),
		db.On(func(_ context.Context, _ *db.Tx, ev named) error {
			seen = append(seen, "second:"+ev.Name)
			if ev.Name == "bob" {
				return refuse
			}
			return nil
		}),
	)
	publish := func(name string) error {
		return d.InTx(ctx, func(tx *db.Tx) error {
			if _, err := tx.User.Create().SetUsername(name).SetEmail(name + "@example.com").SetName(name).
				SetPasswordHash("x").Save(ctx); err != nil {
				return err
			}
			if err := tx.Publish(ctx, unheard{}); err != nil {
				return err
			}
			return tx.Publish(ctx, named{Name: name})
		})
	}
	if err := publish("ann"); err != nil {
		t.Fatal(err)
	}
	if want := []string{"first:ann", "second:ann", "committed:ann"}; !slices.Equal(seen, want) {
		t.Fatalf("ann's change: subscribers ran %q, want %q", seen, want)
	}
	seen = nil
	if err := publish("bob"); !errors.Is(err, refuse) {
		t.Fatalf("bob's change: %v, want the subscriber's refusal", err)
	}
	if want := []string{"first:bob", "second:bob"}; !slices.Equal(seen, want) {
		t.Fatalf("bob's change: subscribers ran %q, want %q (nothing after a rollback)", seen, want)
	}
	names, err := d.User.Query().Order(user.ByUsername()).Select(user.FieldUsername).Strings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ann", "ann-echo"}; !slices.Equal(names, want) {
		t.Fatalf("users %q, want %q: a refused change leaves nothing, its subscribers' writes included", names, want)
	}
}

// A change made without a unit of work publishes only to after-commit
// subscribers; one that has a subscriber inside the transaction is a wiring
// error, not silently skipped.
func TestPublishWithoutAUnitOfWork(t *testing.T) {
	d := dbtest.Open(t)
	ctx := context.Background()
	var heard []string
	d.Subscribe(
		db.OnCommit(func(_ context.Context, ev named) { heard = append(heard, ev.Name) }),
		db.On(func(context.Context, *db.Tx, unheard) error { return nil }),
	)
	if err := d.Publish(ctx, named{Name: "ann"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(heard, []string{"ann"}) {
		t.Fatalf("heard %q, want [ann]", heard)
	}
	if err := d.Publish(ctx, unheard{}); err == nil {
		t.Fatal("an event with an in-transaction subscriber published outside a unit of work: no error")
	}
}
