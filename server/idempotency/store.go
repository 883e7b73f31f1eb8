package idempotency

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/idempotencyrecord"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

const (
	// ttl is how long a key keeps its answer.
	ttl = 24 * time.Hour
	// lease is how long a claim whose change never committed holds the key
	// while the replica that took it is alive: past it the request is taken
	// for dead (a crash) and a retry runs instead. Longer than any request
	// runs (the server's write timeout is a minute); the claim's token keeps
	// a late first request from committing. A dead replica's claims are not
	// waited for (holderDead).
	lease = 5 * time.Minute
)

// request is one keyed request: whose key, which key, what request.
type request struct {
	scope, key, procedure, fingerprint string
}

// claimed is a claim this process holds.
type claimed struct {
	id, token string
}

// claim takes the key for req, or answers the stored record to replay, or
// refuses (409 running, 422 another request).
func (g *Guard) claim(ctx context.Context, req request) (*claimed, *ent.IdempotencyRecord, error) {
	for range 2 {
		rec, err := g.db.IdempotencyRecord.Query().
			Where(idempotencyrecord.ScopeEQ(req.scope), idempotencyrecord.KeyEQ(req.key)).Only(ctx)
		switch {
		case ent.IsNotFound(err):
			c, err := g.insert(ctx, req)
			if ent.IsConstraintError(err) {
				continue // a concurrent claim won: judge it
			}
			return c, nil, err
		case err != nil:
			return nil, nil, fmt.Errorf("idempotency: read claim: %w", err)
		}
		return g.judge(ctx, req, rec)
	}
	return nil, nil, apperr.Conflict("a request with this %s is already running; retry later", Header)
}

// judge decides what an existing record means for req.
func (g *Guard) judge(ctx context.Context, req request, rec *ent.IdempotencyRecord) (*claimed, *ent.IdempotencyRecord, error) {
	now := g.now()
	if !now.Before(rec.ExpiresAt) {
		return g.takeOver(ctx, req, rec)
	}
	if rec.Fingerprint != req.fingerprint {
		return nil, nil, &apperr.Error{Kind: apperr.KindUnprocessable,
			Message: fmt.Sprintf("this %s was used with a different request; use a new key", Header)}
	}
	if rec.State == idempotencyrecord.StateDone {
		return nil, rec, nil
	}
	dead, err := g.holderDead(ctx, rec, now)
	if err != nil {
		return nil, nil, err
	}
	if !rec.Applied && dead {
		return g.takeOver(ctx, req, rec)
	}
	if rec.Applied && dead {
		return nil, nil, apperr.Conflict("the request with this %s took effect but its answer was not recorded", Header)
	}
	return nil, nil, apperr.Conflict("a request with this %s is still running; retry later", Header)
}

// holderDead answers whether the request holding a running claim can no
// longer finish it: its lease is over, or the replica that took it is dead
// (RULINGS "Details for replicas": released within the timer lease). A
// claim older than the replica column names none and waits for its lease.
func (g *Guard) holderDead(ctx context.Context, rec *ent.IdempotencyRecord, now time.Time) (bool, error) {
	if now.Sub(rec.ClaimedAt) >= lease {
		return true, nil
	}
	if rec.Replica == "" || g.replica == nil {
		return false, nil
	}
	alive, err := g.replica.IsAlive(ctx, rec.Replica)
	if err != nil {
		return false, fmt.Errorf("idempotency: %w", err)
	}
	return !alive, nil
}

// replicaID is the id claims of this process name ("" without a registry).
func (g *Guard) replicaID() string {
	if g.replica == nil {
		return ""
	}
	return g.replica.ID()
}

func (g *Guard) insert(ctx context.Context, req request) (*claimed, error) {
	now := g.now()
	c := &claimed{token: ids.New()}
	err := g.db.InTx(ctx, func(tx *db.Tx) error {
		rec, err := tx.IdempotencyRecord.Create().
			SetScope(req.scope).SetKey(req.key).SetProcedure(req.procedure).SetFingerprint(req.fingerprint).
			SetToken(c.token).SetClaimedAt(now).SetExpiresAt(now.Add(ttl)).SetReplica(g.replicaID()).Save(ctx)
		if err != nil {
			return err
		}
		c.id = rec.ID
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("idempotency: claim: %w", err)
	}
	g.sweep(ctx, req.scope, now)
	return c, nil
}

// takeOver claims an expired record, or a dead request's, for req; a record
// another retry took over first is 409.
func (g *Guard) takeOver(ctx context.Context, req request, rec *ent.IdempotencyRecord) (*claimed, *ent.IdempotencyRecord, error) {
	now := g.now()
	c := &claimed{id: rec.ID, token: ids.New()}
	var n int
	err := g.db.InTx(ctx, func(tx *db.Tx) error {
		var err error
		n, err = tx.IdempotencyRecord.Update().
			Where(idempotencyrecord.IDEQ(rec.ID), idempotencyrecord.TokenEQ(rec.Token)).
			SetProcedure(req.procedure).SetFingerprint(req.fingerprint).SetToken(c.token).
			SetState(idempotencyrecord.StateRunning).SetApplied(false).SetStatus(0).
			SetContentType("").SetContentEncoding("").ClearBody().
			SetClaimedAt(now).SetExpiresAt(now.Add(ttl)).SetReplica(g.replicaID()).Save(ctx)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("idempotency: take over claim: %w", err)
	}
	if n == 0 {
		return nil, nil, apperr.Conflict("a request with this %s is already running; retry later", Header)
	}
	return c, nil, nil
}

// sweep deletes the scope's expired records. It is housekeeping (an expired
// record is ignored anyway), so a failure is only logged.
func (g *Guard) sweep(ctx context.Context, scope string, now time.Time) {
	_, err := g.db.IdempotencyRecord.Delete().
		Where(idempotencyrecord.ScopeEQ(scope), idempotencyrecord.ExpiresAtLTE(now)).Exec(ctx)
	if err != nil && !errors.Is(err, context.Canceled) {
		g.log.WarnContext(ctx, "idempotency: sweep expired keys", "err", err)
	}
}

// mark is the transaction hook: the request's change and "applied" commit
// together. A claim taken over meanwhile refuses the change.
func (c *claimed) mark(ctx context.Context, tx *ent.Tx) error {
	n, err := tx.IdempotencyRecord.Update().
		Where(idempotencyrecord.IDEQ(c.id), idempotencyrecord.TokenEQ(c.token)).
		SetApplied(true).Save(ctx)
	if err != nil {
		return fmt.Errorf("idempotency: mark applied: %w", err)
	}
	if n == 0 {
		return apperr.Conflict("this request's %s was taken over by a retry", Header)
	}
	return nil
}

// answer is what a handler answered.
type answer struct {
	status                int
	contentType, encoding string
	body                  []byte
}

// finish stores the answer under the claim, or releases the claim when the
// request failed on the server's side without committing anything, so a
// retry runs again.
func (g *Guard) finish(ctx context.Context, c *claimed, a answer) {
	ctx = context.WithoutCancel(ctx)
	err := g.db.InTx(ctx, func(tx *db.Tx) error {
		if a.status >= 500 {
			n, err := tx.IdempotencyRecord.Delete().Where(idempotencyrecord.IDEQ(c.id),
				idempotencyrecord.TokenEQ(c.token), idempotencyrecord.AppliedEQ(false)).Exec(ctx)
			if err != nil || n > 0 {
				return err
			}
		}
		return tx.IdempotencyRecord.Update().
			Where(idempotencyrecord.IDEQ(c.id), idempotencyrecord.TokenEQ(c.token)).
			SetState(idempotencyrecord.StateDone).SetStatus(a.status).
			SetContentType(a.contentType).SetContentEncoding(a.encoding).SetBody(a.body).Exec(ctx)
	})
	if err != nil {
		g.log.ErrorContext(ctx, "idempotency: store answer", "err", err)
	}
}

// release gives the key back after a panic, unless the change committed.
func (g *Guard) release(ctx context.Context, c *claimed) {
	g.finish(ctx, c, answer{status: 500})
}
