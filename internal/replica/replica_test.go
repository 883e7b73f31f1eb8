package replica_test

import (
	"context"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent/replica"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	reg "github.com/switchboard-hq/switchboard/internal/replica"
)

const lease = 9 * time.Second

// start registers a replica on d with a clock of its own reading at.
func start(t *testing.T, d *db.DB, at time.Time) (*reg.Registry, *clockwork.FakeClock) {
	t.Helper()
	clock := clockwork.NewFakeClockAt(at)
	r, err := reg.Start(t.Context(), clock, d.Client, lease, func(_ context.Context, err error) { t.Errorf("renew: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r, clock
}

func alive(t *testing.T, from *reg.Registry, id string) bool {
	t.Helper()
	ok, err := from.IsAlive(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// A replica is alive to the others while its row was renewed within the
// lease (at the others' now), and to itself always; renewing makes it alive
// again; closing deletes its row, so it is dead at once.
func TestLiveness(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t)
	at := time.Now().UTC().Truncate(time.Millisecond)
	one, oneClock := start(t, d, at)
	two, twoClock := start(t, d, at)
	if !alive(t, one, two.ID()) || !alive(t, two, one.ID()) {
		t.Fatal("two fresh replicas are not alive to each other")
	}
	if two.Lease() != lease {
		t.Fatalf("lease %s", two.Lease())
	}
	oneClock.Advance(lease)
	if !alive(t, one, two.ID()) {
		t.Fatal("dead at exactly the lease")
	}
	oneClock.Advance(time.Millisecond)
	if alive(t, one, two.ID()) {
		t.Fatal("alive past the lease without renewing")
	}
	if !alive(t, one, one.ID()) {
		t.Fatal("a replica is dead to itself")
	}
	if ids, err := one.Alive(t.Context()); err != nil || len(ids) != 1 || ids[0] != one.ID() {
		t.Fatalf("alive: %v %v", ids, err)
	}
	twoClock.Advance(lease + time.Millisecond)
	if err := two.Renew(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !alive(t, one, two.ID()) {
		t.Fatal("dead after renewing")
	}
	two.Close()
	if alive(t, one, two.ID()) {
		t.Fatal("alive after closing")
	}
}

// A renewal that reaches the database after a later one (a loop's pass late
// on a loaded machine) leaves seen_at where the later one put it.
func TestRenewalNeverGoesBack(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t)
	at := time.Now().UTC().Truncate(time.Millisecond)
	r, clock := start(t, d, at)
	clock.Advance(lease)
	if err := r.Renew(t.Context()); err != nil {
		t.Fatal(err)
	}
	clock.Advance(-lease / 2) // the late renewal's time
	if err := r.Renew(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := d.Replica.GetX(t.Context(), r.ID()).SeenAt; !got.Equal(at.Add(lease)) {
		t.Fatalf("seen at %s, want %s", got, at.Add(lease))
	}
}

// The loop renews the row every third of the lease on the replica's clock.
func TestRenewsEveryThirdOfTheLease(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t)
	at := time.Now().UTC().Truncate(time.Millisecond)
	r, clock := start(t, d, at)
	for i := range 3 {
		// The loop sleeps once its pass is done.
		if err := clock.BlockUntilContext(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
		row := d.Replica.GetX(t.Context(), r.ID())
		if want := at.Add(time.Duration(i) * lease / 3); !row.SeenAt.Equal(want) {
			t.Fatalf("pass %d: seen at %s, want %s", i, row.SeenAt, want)
		}
		clock.Advance(lease / 3)
	}
}

// A replica dead for two leases is pruned by another's renewal, with the
// stream slots it held.
func TestDeadReplicasArePruned(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t)
	at := time.Now().UTC().Truncate(time.Millisecond)
	one, oneClock := start(t, d, at)
	two, twoClock := start(t, d, at)
	// Two's first renewal is done, and it renews no more: its clock stays.
	// One's is done too: a first renewal still under way, reading the
	// start's time, could write its row back to it after the renewal below
	// and be pruned with two.
	for _, c := range []*clockwork.FakeClock{oneClock, twoClock} {
		if err := c.BlockUntilContext(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
	}
	d.StreamSlot.Create().SetKind("stream").SetHolder("key:k").SetReplica(two.ID()).SetOpenedAt(at).ExecX(t.Context())
	mine := d.StreamSlot.Create().SetKind("stream").SetHolder("key:k").SetReplica(one.ID()).SetOpenedAt(at).SaveX(t.Context())
	oneClock.Advance(2 * lease)
	if err := one.Renew(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := d.Replica.Query().Where(replica.ID(two.ID())).CountX(t.Context()); n != 1 {
		t.Fatal("pruned at two leases")
	}
	oneClock.Advance(time.Millisecond)
	if err := one.Renew(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := d.Replica.Query().Where(replica.ID(two.ID())).CountX(t.Context()); n != 0 {
		t.Fatal("not pruned past two leases")
	}
	slots := d.StreamSlot.Query().AllX(t.Context())
	if len(slots) != 1 || slots[0].ID != mine.ID {
		t.Fatalf("slots after the prune: %v", slots)
	}
}
