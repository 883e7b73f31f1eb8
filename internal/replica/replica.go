// Package replica is the registry of running server processes that share one
// database (RULINGS "Replicas and operations"): each process writes a row at
// start, renews it every third of the timer lease and deletes it when it
// closes. A replica whose row was not renewed within the lease is dead: what
// it held in the database (stream slots, idempotency claims) stops counting,
// so a crashed process frees them within one lease.
package replica

import (
	"context"
	"fmt"
	"time"

	entsql "entgo.io/ent/dialect/sql"
	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/replica"
	"github.com/switchboard-hq/switchboard/ent/streamslot"
	"github.com/switchboard-hq/switchboard/internal/alarm"
	"github.com/switchboard-hq/switchboard/internal/ids"
)

// DefaultLease is --timer-lease's default.
const DefaultLease = 10 * time.Second

// Registry is this process's row among the replicas.
type Registry struct {
	id    string
	lease time.Duration
	clock clockwork.Clock
	db    *ent.Client
	loop  *alarm.Loop
}

// Start registers a new replica on clock and renews its row until Close;
// lease is --timer-lease (DefaultLease when zero). failed hears a renewal
// that did not reach the database (the next one tries again).
func Start(ctx context.Context, clock clockwork.Clock, db *ent.Client, lease time.Duration,
	failed func(ctx context.Context, err error)) (*Registry, error) {
	if lease <= 0 {
		lease = DefaultLease
	}
	r := &Registry{id: ids.New(), lease: lease, clock: clock, db: db}
	now := r.now()
	if err := db.Replica.Create().SetID(r.id).SetStartedAt(now).SetSeenAt(now).Exec(ctx); err != nil {
		return nil, fmt.Errorf("replica: register: %w", err)
	}
	// A third of the lease: two renewals may fail before the others take
	// this replica for dead.
	every := lease / 3
	r.loop = alarm.Start(clock, every, func(ctx context.Context) (time.Time, error) {
		return r.now().Add(every), r.renew(ctx)
	}, failed)
	return r, nil
}

func (r *Registry) now() time.Time { return r.clock.Now().UTC() }

// ID is this replica's id, which the rows it holds name.
func (r *Registry) ID() string { return r.id }

// Lease is --timer-lease: how long a replica stays alive without renewing.
func (r *Registry) Lease() time.Duration { return r.lease }

// renew moves seen_at on, and writes the row again if another replica
// pruned it while this one was away (a pause longer than the lease). Rows
// of replicas dead for two leases, and the stream slots they held, are
// pruned here too.
func (r *Registry) renew(ctx context.Context) error {
	now := r.now()
	// Never backwards: a renewal that reached the database late (a loop's
	// pass behind an explicit Renew, on a loaded machine) must not make this
	// replica look dead to the others.
	err := r.db.Replica.Create().SetID(r.id).SetStartedAt(now).SetSeenAt(now).
		OnConflict(entsql.ConflictColumns(replica.FieldID), entsql.ResolveWith(func(u *entsql.UpdateSet) {
			seen := u.Table().C(replica.FieldSeenAt)
			u.Set(replica.FieldSeenAt, entsql.Expr("CASE WHEN excluded.seen_at > "+seen+" THEN excluded.seen_at ELSE "+seen+" END"))
		})).Exec(ctx)
	if err != nil {
		return fmt.Errorf("replica: renew: %w", err)
	}
	// What the dead held is already not counted (Alive); this keeps the
	// table small. Twice the lease, so that a late renewal is not raced.
	_, err = r.db.Replica.Delete().Where(replica.SeenAtLT(now.Add(-2 * r.lease))).Exec(ctx)
	if err != nil {
		return fmt.Errorf("replica: prune: %w", err)
	}
	known, err := r.db.Replica.Query().IDs(ctx)
	if err != nil {
		return fmt.Errorf("replica: prune: %w", err)
	}
	_, err = r.db.StreamSlot.Delete().Where(streamslot.ReplicaNotIn(known...)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("replica: prune stream slots: %w", err)
	}
	return nil
}

// Cutoff is the oldest seen_at of a live replica at the server's now.
func (r *Registry) Cutoff() time.Time { return r.now().Add(-r.lease) }

// Alive answers which of ids are live replicas: this one always (it is
// running, whatever its last renewal), the others when their row was renewed
// within the lease.
func (r *Registry) Alive(ctx context.Context) ([]string, error) {
	live, err := r.db.Replica.Query().Where(replica.SeenAtGTE(r.Cutoff())).IDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("replica: alive: %w", err)
	}
	for _, id := range live {
		if id == r.id {
			return live, nil
		}
	}
	return append(live, r.id), nil
}

// IsAlive answers whether the replica id is alive (this one always is).
func (r *Registry) IsAlive(ctx context.Context, id string) (bool, error) {
	if id == r.id {
		return true, nil
	}
	n, err := r.db.Replica.Query().Where(replica.ID(id), replica.SeenAtGTE(r.Cutoff())).Count(ctx)
	if err != nil {
		return false, fmt.Errorf("replica: alive: %w", err)
	}
	return n > 0, nil
}

// Renew renews the row now, for tests that move the clock and need this
// replica's renewal before going on.
func (r *Registry) Renew(ctx context.Context) error { return r.renew(ctx) }

// Close stops the renewals and deletes the row: what this replica held
// stops counting at once. Call it once the process serves no more.
func (r *Registry) Close() {
	r.loop.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// A failure is not worth reporting: the row lapses within the lease.
	_, _ = r.db.Replica.Delete().Where(replica.ID(r.id)).Exec(ctx)
}
