package queue

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/queue/rules"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// PathToDone is the moves that complete an item from status from
// (server/queue/rules).
func PathToDone(from string) []string { return rules.PathToDone(from) }

// Load answers the caller's item id, read with c (a transaction's client or
// the database's); another account's is 404.
func (s *Service) Load(ctx context.Context, c *ent.Client, userID, id string) (*ent.QueueItem, error) {
	return s.load(ctx, c, userID, id)
}

// Annotation is a change another area makes to an item: new metadata, the
// activity entry that says why, and whether the item is now complete.
type Annotation struct {
	// Metadata is the item's whole new metadata (a JSON object).
	Metadata string
	// Action and Summary are the activity entry's; Details its metadata.
	Action, Summary string
	Details         map[string]any
	// Complete moves the item to done_today along PathToDone.
	Complete bool
}

// Annotate applies a to the caller's item it in tx: the metadata, the
// activity entry, the queue_updated event and webhooks, then, when a
// completes it, the moves of PathToDone, each through the queue's own move
// (events, webhooks, the board, released dependants).
func (s *Service) Annotate(ctx context.Context, tx *db.Tx, p *auth.Principal, it *ent.QueueItem, a Annotation) (*ent.QueueItem, error) {
	set := settingsFor(p.UserID)
	n, err := tx.QueueItem.Update().Where(queueitem.ID(it.ID), queueitem.UserID(p.UserID), queueitem.StatusEQ(it.Status)).
		SetMetadata(a.Metadata).Save(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, s.lostRace(ctx, tx, p.UserID, it.ID)
	}
	if it, err = tx.QueueItem.Get(ctx, it.ID); err != nil {
		return nil, err
	}
	if err := activity.Write(ctx, tx, activity.Entry{
		UserID: p.UserID, Action: a.Action, Actor: p.Actor(), CardID: deref(it.CardID), At: s.Now(),
		Summary: a.Summary, Metadata: a.Details,
	}); err != nil {
		return nil, err
	}
	if err := s.changed(ctx, tx, set, it, webhooks.QueueUpdated{QueueItemID: it.ID, Action: "queue_updated", Status: string(it.Status)}); err != nil {
		return nil, err
	}
	if !a.Complete {
		return it, nil
	}
	for _, to := range PathToDone(string(it.Status)) {
		if it, _, err = s.move(ctx, tx, p, set, it, to); err != nil {
			return nil, err
		}
	}
	return it, nil
}

// Proto renders an item as the queue's API answers it.
func Proto(it *ent.QueueItem) *switchboardv1.QueueItem { return toProto(it) }
