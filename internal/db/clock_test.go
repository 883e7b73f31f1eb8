package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	entsql "entgo.io/ent/dialect/sql"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/user"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
)

func newUser(c *ent.UserClient, name string) *ent.UserCreate {
	return c.Create().SetUsername(name).SetEmail(name + "@example.com").SetName(name).SetPasswordHash("x")
}

// The database's clock stamps what a writer leaves unset: both times of a new
// row (one reading), bulk creates and creates in a transaction included, and
// updated_at on every update, single or bulk; a time the writer set is kept.
func TestClockStampsRows(t *testing.T) {
	d := dbtest.Open(t)
	ctx := context.Background()
	now := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
	d.SetClock(func() time.Time { return now })
	t0 := now
	want := func(u *ent.User, created, updated time.Time) {
		t.Helper()
		got, err := d.User.Get(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !got.CreatedAt.Equal(created) || !got.UpdatedAt.Equal(updated) {
			t.Errorf("%s: created %s, updated %s; want %s, %s", u.Username, got.CreatedAt, got.UpdatedAt, created, updated)
		}
	}

	ann := newUser(d.User, "ann").SaveX(ctx)
	bulk := d.User.CreateBulk(newUser(d.User, "bob"), newUser(d.User, "cat")).SaveX(ctx)
	var dan *ent.User
	if err := d.InTx(ctx, func(tx *db.Tx) (err error) {
		dan, err = newUser(tx.User, "dan").Save(ctx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	past := time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC)
	eve := newUser(d.User, "eve").SetCreatedAt(past).SaveX(ctx)
	for _, u := range []*ent.User{ann, bulk[0], bulk[1], dan} {
		want(u, t0, t0)
	}
	want(eve, past, t0)

	now = now.Add(time.Hour)
	d.User.UpdateOne(ann).SetName("Ann").ExecX(ctx)
	d.User.Update().Where(user.UsernameIn("bob", "cat")).SetName("B or C").ExecX(ctx)
	d.User.UpdateOne(eve).SetName("Eve").SetUpdatedAt(past).ExecX(ctx)
	for _, u := range []*ent.User{ann, bulk[0], bulk[1]} {
		want(u, t0, now)
	}
	want(dan, t0, t0)
	want(eve, past, past)
}

// Without a clock a write that needs one fails; it is never stamped with the
// wall clock. Through the database's client the hook says so; through a bare
// ent client (no hook) ent refuses the create, since the schema has no time
// defaults to fall back on.
func TestNoClockNoStamp(t *testing.T) {
	d := dbtest.Open(t)
	ctx := context.Background()
	if _, err := newUser(d.User, "ann").Save(ctx); err == nil || !strings.Contains(err.Error(), "no clock") {
		t.Fatalf("create without a clock: %v, want the no-clock error", err)
	}
	at := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
	bob, err := newUser(d.User, "bob").SetCreatedAt(at).SetUpdatedAt(at).Save(ctx)
	if err != nil {
		t.Fatalf("create with its own times: %v", err)
	}
	if err := d.User.UpdateOne(bob).SetName("Bob").Exec(ctx); err == nil || !strings.Contains(err.Error(), "no clock") {
		t.Fatalf("update without a clock: %v, want the no-clock error", err)
	}

	bare := ent.NewClient(ent.Driver(entsql.OpenDB(d.Dialect, d.SQL)))
	_, err = newUser(bare.User, "cat").Save(ctx)
	if !ent.IsValidationError(err) || !strings.Contains(err.Error(), `missing required field "User.created_at"`) {
		t.Fatalf("create through a client without the hook: %v, want missing created_at", err)
	}
}
