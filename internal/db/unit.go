package db

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"

	"entgo.io/ent/dialect"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
)

// Tx is one unit of work, the one way code runs after a commit: the
// transaction (ent's, embedded, so tx.User and the rest work as on *ent.Tx),
// the events it emits and the functions to run once it has committed. InTx
// makes one per call; on SQLite each job of a group commit has its own, so a
// job rolled back to its savepoint emits and runs nothing.
type Tx struct {
	*ent.Tx
	db     *DB // the database it runs on, for Serialize
	events []Event
	after  []func()
	atEnd  []func(context.Context) error
	last   []Statement
}

// Serialize is DB.Serialize in this unit of work, for code handed only the
// transaction (the queue's board bridge runs in other packages' units).
func (t *Tx) Serialize(ctx context.Context, key string) error {
	return t.db.Serialize(ctx, t, key)
}

// Postgres tells whether the unit runs on PostgreSQL, where concurrent
// writers run at once (on SQLite they queue).
func (t *Tx) Postgres() bool { return t.db.Dialect == dialect.Postgres }

// Event is a change announced on an account's event streams (server/events).
type Event struct {
	// UserID is the account whose streams receive it.
	UserID string
	// Body is the event (a *switchboardv1.ChatEvent).
	Body proto.Message
}

// Emit stores ev in this transaction, after everything fn wrote, and delivers
// it once the transaction has committed: an event is stored exactly when the
// change it announces is, and delivered in commit order per account.
func (tx *Tx) Emit(ev Event) { tx.events = append(tx.events, ev) }

// AfterCommit runs fn, in the caller's goroutine, once this unit of work has
// committed, in the order registered; never when it fails or is rolled back.
// fn must not fail the request: the change is already committed.
func (tx *Tx) AfterCommit(fn func()) { tx.after = append(tx.after, fn) }

// AtEnd runs fn in this unit of work once the function given to InTx has
// returned, in the order registered and before the events are stored: a
// lock taken there is held only through the last statements and the commit,
// for work that many writers of one account serialise on (a card's place at
// the end of its column). An error fails the unit.
func (tx *Tx) AtEnd(fn func(ctx context.Context) error) { tx.atEnd = append(tx.atEnd, fn) }

// Statement is one data-modifying SQL statement ($1… placeholders) and its
// arguments.
type Statement struct {
	SQL  string
	Args []any
}

// Last runs s after the AtEnd functions, as the unit's last write before
// its events. When it is the unit's only such statement and the unit emits
// events, the outbox may run it inside the statement that stores them (on
// PostgreSQL, as a part of it: one round trip less, inside whatever lock an
// AtEnd function took); otherwise each runs on its own, in the order given.
// s sees the database as the statement that runs it begins, so a statement
// that reads what a lock guards belongs here only once the lock is taken by
// an earlier statement (an AtEnd function).
func (tx *Tx) Last(s Statement) { tx.last = append(tx.last, s) }

// Outbox is where emitted events go (server/events.Bus): Write stores them in
// the transaction of their change (on PostgreSQL it also NOTIFYs there, which
// delivers at commit) and answers what delivers them in this process once the
// transaction has committed (nil for nothing). When last is not nil, Write
// runs it first, in the same statement as the events if it can (Tx.Last).
type Outbox interface {
	Write(ctx context.Context, tx *ent.Tx, evs []Event, last *Statement) (deliver func(), err error)
}

type outboxRef struct{ Outbox }

// SetOutbox names the store of emitted events. Until one is set, events are
// dropped: nothing can be listening for them either.
func (d *DB) SetOutbox(o Outbox) { d.outbox.Store(&outboxRef{o}) }

// crashPoint, when set, runs after each commit that stored events and before
// anything of it is delivered (tests: a child process dies there).
var crashPoint atomic.Pointer[func()]

// SetCrashPoint sets the crash point; only tests call it, in a child process,
// to stand for a kill -9 between commit and delivery.
func SetCrashPoint(fn func()) { crashPoint.Store(&fn) }

// outcome is what a unit of work leaves once fn has succeeded: what delivers
// its events and its after-commit functions.
type outcome struct {
	deliver func()
	stored  bool
	after   []func()
}

// finish writes the unit's events into its transaction; an error fails the
// unit like an error of fn.
func (d *DB) finish(ctx context.Context, u *Tx) (outcome, error) {
	out := outcome{after: u.after}
	ref := d.outbox.Load()
	merged := len(u.last) == 1 && len(u.events) > 0 && ref != nil
	if !merged {
		for _, s := range u.last {
			if _, err := u.Tx.ExecContext(ctx, s.SQL, s.Args...); err != nil {
				return outcome{}, fmt.Errorf("db: last statement: %w", err)
			}
		}
	}
	if len(u.events) == 0 || ref == nil {
		return out, nil
	}
	var last *Statement
	if merged {
		last = &u.last[0]
	}
	deliver, err := ref.Write(context.WithoutCancel(ctx), u.Tx, u.events, last)
	if err != nil {
		return outcome{}, fmt.Errorf("db: store events: %w", err)
	}
	out.deliver, out.stored = deliver, true
	return out, nil
}

// run runs fn on u and then stores its events, turning a panic into an error.
func (d *DB) run(ctx context.Context, u *Tx, fn func(*Tx) error) (out outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("db: panic in transaction: %v", r)
		}
	}()
	u.db = d
	if err := fn(u); err != nil {
		return outcome{}, err
	}
	for i := 0; i < len(u.atEnd); i++ { // one may register another
		if err := u.atEnd[i](ctx); err != nil {
			return outcome{}, err
		}
	}
	return d.finish(ctx, u)
}

// delivered runs, in commit order and from the goroutine that committed, what
// delivers the committed units' events.
func delivered(outs []outcome) {
	for _, o := range outs {
		if o.stored {
			if p := crashPoint.Load(); p != nil {
				(*p)()
			}
			break
		}
	}
	for _, o := range outs {
		if o.deliver != nil {
			o.deliver()
		}
	}
}

// runAfter runs a committed unit's after-commit functions.
func (o outcome) runAfter() {
	for _, fn := range o.after {
		fn()
	}
}

// execer is a transaction as Serialize needs it: *ent.Tx or *Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}
