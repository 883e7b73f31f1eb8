package db

import (
	"context"
	"fmt"
	"reflect"
)

// Subscription is one row of the subscription table: a subscriber of one type
// of domain event, run either inside the unit of work that publishes it or once
// that unit has committed.
type Subscription struct {
	event  reflect.Type
	inTx   func(ctx context.Context, tx *Tx, ev any) error
	commit func(ctx context.Context, ev any)
}

// On subscribes fn to the domain events of type E, inside the unit of work
// that publishes them: fn writes with the publisher's transaction, and its
// error fails the whole change. Effects outside the machine go through the
// outbox from here (a row written in tx, delivered after the commit).
func On[E any](fn func(ctx context.Context, tx *Tx, ev E) error) Subscription {
	return Subscription{event: reflect.TypeFor[E](), inTx: func(ctx context.Context, tx *Tx, ev any) error {
		return fn(ctx, tx, ev.(E))
	}}
}

// OnCommit subscribes fn to the domain events of type E once the unit of work
// that published them has committed, in this process (ending streams,
// refreshing an MCP session's tools): the change stands whatever fn does.
func OnCommit[E any](fn func(ctx context.Context, ev E)) Subscription {
	return Subscription{event: reflect.TypeFor[E](), commit: func(ctx context.Context, ev any) {
		fn(ctx, ev.(E))
	}}
}

// subscriptions is the table by event type, in the order given.
type subscriptions map[reflect.Type][]Subscription

// Subscribe installs the subscription table (server/subscriptions.go), once,
// before the database serves requests; a second call replaces the first.
// Until then events are published to nobody, which is what a package's own
// tests, built without the server, see.
func (d *DB) Subscribe(subs ...Subscription) {
	table := subscriptions{}
	for _, s := range subs {
		table[s.event] = append(table[s.event], s)
	}
	d.subs.Store(&table)
}

// Publish announces a domain event of this unit of work: each subscriber of
// its type runs now, in this transaction, in the table's order, and the first
// error fails the unit; after-commit subscribers are queued to run once the
// unit has committed. ev is a value of the publishing package's event type
// (queue.ItemMoved, kanban.CardChanged, …).
func (tx *Tx) Publish(ctx context.Context, ev any) error {
	if tx.db == nil {
		return fmt.Errorf("db: publish %T outside a unit of work", ev)
	}
	table := tx.db.subs.Load()
	if table == nil {
		return nil
	}
	for _, s := range (*table)[reflect.TypeOf(ev)] {
		if s.inTx != nil {
			if err := s.inTx(ctx, tx, ev); err != nil {
				return err
			}
			continue
		}
		after := context.WithoutCancel(ctx)
		tx.AfterCommit(func() { s.commit(after, ev) })
	}
	return nil
}

// Publish announces a domain event of a change made without a unit of work
// (a single statement already committed): only after-commit subscribers can
// hear it, and they run now; an in-transaction subscriber of its type is a
// wiring error, reported.
func (d *DB) Publish(ctx context.Context, ev any) error {
	table := d.subs.Load()
	if table == nil {
		return nil
	}
	for _, s := range (*table)[reflect.TypeOf(ev)] {
		if s.inTx != nil {
			return fmt.Errorf("db: %T has a subscriber inside the transaction; publish it in a unit of work", ev)
		}
	}
	for _, s := range (*table)[reflect.TypeOf(ev)] {
		s.commit(ctx, ev)
	}
	return nil
}
