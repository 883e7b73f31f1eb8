package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-hq/switchboard/ent"
)

// maxBatch bounds how many transactions share one commit.
const maxBatch = 32

// ErrClosed is returned for work submitted after Close.
var ErrClosed = errors.New("db: closed")

// batcher gives SQLite group commit. SQLite runs one writer at a time anyway,
// so the write transactions that arrive together share one BEGIN and one
// COMMIT; each runs inside its own savepoint, so a failure (or panic) undoes
// only that transaction's writes. Results are as if they ran one after another.
type batcher struct {
	db     *DB
	client *ent.Client
	jobs   chan *job
	stop   chan struct{}
	done   chan struct{}
	// deliveries carries the committed batches' outcomes, in commit order,
	// to the goroutine that delivers their events (deliver): the writer
	// commits and moves on, so no write waits for another's fan-out to
	// every subscriber (issue 34).
	deliveries chan []outcome
	delivered  chan struct{}
}

type job struct {
	ctx    context.Context
	fn     func(*Tx) error
	result chan error
	// out is set, before result, when the job committed.
	out outcome
}

func newBatcher(d *DB) *batcher {
	b := &batcher{db: d, client: d.Client, jobs: make(chan *job), stop: make(chan struct{}), done: make(chan struct{}),
		deliveries: make(chan []outcome, deliveryBacklog), delivered: make(chan struct{})}
	go b.run()
	go b.deliver()
	return b
}

// deliveryBacklog is how many committed batches may wait for delivery before
// the writer waits for the deliverer.
const deliveryBacklog = 1024

// deliver delivers the committed batches' events, one batch after another,
// until the writer has stopped and every batch handed over is delivered.
func (b *batcher) deliver() {
	defer close(b.delivered)
	for outs := range b.deliveries {
		delivered(outs)
	}
}

// hand gives a committed batch's outcomes to the deliverer.
func (b *batcher) hand(outs []outcome) {
	for _, o := range outs {
		if o.stored || o.deliver != nil {
			b.deliveries <- outs
			return
		}
	}
}

// do runs fn in a batch and waits for its outcome. Once a job has started it
// is always waited for, so a caller never reports failure for work that
// commits. The events of the committed jobs are delivered in commit order by
// the deliverer, which the writer does not wait for (a caller may hear back
// before its events reach this process's subscribers, as on PostgreSQL,
// where they come back through LISTEN); each caller then runs its own
// after-commit functions.
func (b *batcher) do(ctx context.Context, fn func(*Tx) error) error {
	j := &job{ctx: ctx, fn: fn, result: make(chan error, 1)}
	select {
	case b.jobs <- j:
	case <-b.stop:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := <-j.result; err != nil {
		return err
	}
	j.out.runAfter()
	return nil
}

func (b *batcher) close() {
	close(b.stop)
	<-b.done
	close(b.deliveries)
	<-b.delivered
}

func (b *batcher) run() {
	defer close(b.done)
	for {
		var first *job
		select {
		case first = <-b.jobs:
		case <-b.stop:
			return
		}
		batch := []*job{first}
	collect:
		for len(batch) < maxBatch {
			select {
			case j := <-b.jobs:
				batch = append(batch, j)
			default:
				break collect
			}
		}
		b.runBatch(batch)
	}
}

func (b *batcher) runBatch(batch []*job) {
	fail := func(err error) {
		for _, j := range batch {
			j.result <- err
		}
	}
	ctx := context.Background() // the batch outlives any one request
	tx, err := b.client.Tx(ctx)
	if err != nil {
		fail(fmt.Errorf("db: begin: %w", err))
		return
	}
	if len(batch) == 1 {
		// Alone, the job is the transaction: no savepoint needed.
		b.runAlone(ctx, tx, batch[0])
		return
	}
	results := make([]error, len(batch))
	for i, j := range batch {
		var broken error
		results[i], broken = b.runJob(ctx, tx, j)
		if broken != nil {
			// The transaction itself is in doubt: nobody's writes may stand.
			_ = tx.Rollback()
			fail(broken)
			return
		}
	}
	if err := tx.Commit(); err != nil {
		fail(fmt.Errorf("db: commit: %w", err))
		return
	}
	// Only the jobs that kept their savepoint deliver anything.
	var outs []outcome
	for i, j := range batch {
		if results[i] == nil {
			outs = append(outs, j.out)
		}
	}
	b.hand(outs)
	for i, j := range batch {
		j.result <- results[i]
	}
}

func (b *batcher) runAlone(ctx context.Context, tx *ent.Tx, j *job) {
	err := j.ctx.Err()
	if err == nil {
		j.out, err = b.db.run(j.ctx, &Tx{Tx: tx}, j.fn)
	}
	if err != nil {
		_ = tx.Rollback()
		j.result <- err
		return
	}
	if err := tx.Commit(); err != nil {
		j.result <- fmt.Errorf("db: commit: %w", err)
		return
	}
	b.hand([]outcome{j.out})
	j.result <- nil
}

// runJob runs one job in a savepoint. It answers the job's own error, and a
// second error when the savepoint could not be undone (the batch must fail).
func (b *batcher) runJob(ctx context.Context, tx *ent.Tx, j *job) (jobErr, broken error) {
	if err := j.ctx.Err(); err != nil {
		return err, nil // gone before it started: nothing to undo
	}
	if _, err := tx.ExecContext(ctx, "SAVEPOINT sb_job"); err != nil {
		return nil, fmt.Errorf("db: savepoint: %w", err)
	}
	// Each job is its own unit of work over the shared transaction.
	j.out, jobErr = b.db.run(j.ctx, &Tx{Tx: tx}, j.fn)
	if jobErr != nil {
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT sb_job"); err != nil {
			return jobErr, fmt.Errorf("db: roll back to savepoint: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT sb_job"); err != nil {
		return jobErr, fmt.Errorf("db: release savepoint: %w", err)
	}
	return jobErr, nil
}
