package queue

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// What other areas (A2A tasks) do to items inside their own unit of work,
// with the queue's own rules, events and activity.

// Within runs fn in one unit of work (db.Tx).
func (s *Service) Within(ctx context.Context, fn func(ctx context.Context, tx *db.Tx) error) error {
	return s.inTx(ctx, fn)
}

// LoadIn answers the caller's item id in tx; another account's is not found.
func (s *Service) LoadIn(ctx context.Context, tx *db.Tx, p *auth.Principal, id string) (*ent.QueueItem, error) {
	return s.load(ctx, tx.Client(), p.UserID, id)
}

// MoveIn moves the caller's item along the transition table in tx.
func (s *Service) MoveIn(ctx context.Context, tx *db.Tx, p *auth.Principal, it *ent.QueueItem, to string) (*ent.QueueItem, error) {
	moved, _, err := s.move(ctx, tx, p, settingsFor(p.UserID), it, to)
	return moved, err
}

// RemoveIn deletes the caller's item in tx as DeleteQueueItem does; summary
// is the activity entry, with %q for the title.
func (s *Service) RemoveIn(ctx context.Context, tx *db.Tx, p *auth.Principal, it *ent.QueueItem, summary string) error {
	return s.remove(ctx, tx, p, settingsFor(p.UserID), it, summary, false)
}
