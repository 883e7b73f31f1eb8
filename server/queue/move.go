package queue

import (
	"context"
	"fmt"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// move applies one transition with all its side effects in tx: the status (as
// a conditional update, so of two concurrent moves from the same state only
// one applies), the board, comms messages, activity, and the release of
// dependants. It answers the moved item and whether dependants were dispatched.
func (s *Service) move(ctx context.Context, tx *db.Tx, p *auth.Principal, set *accountSettings, it *ent.QueueItem, to string) (*ent.QueueItem, bool, error) {
	from := string(it.Status)
	if bad := CheckMove(from, to); bad != nil {
		if bad.Unknown {
			return nil, false, apperr.Invalid("%s", bad.Reason)
		}
		return nil, false, apperr.IllegalMove("%s", bad.Reason)
	}
	n, err := tx.QueueItem.Update().
		Where(queueitem.ID(it.ID), queueitem.UserID(p.UserID), queueitem.StatusEQ(it.Status)).
		SetStatus(queueitem.Status(to)).Save(ctx)
	if err != nil {
		return nil, false, err
	}
	if n == 0 {
		return nil, false, s.lostRace(ctx, tx, p.UserID, it.ID)
	}
	moved, err := tx.QueueItem.Get(ctx, it.ID)
	if err != nil {
		return nil, false, err
	}
	if err := s.sideEffects(ctx, tx, p, set, moved, from); err != nil {
		return nil, false, err
	}
	if err := tx.Publish(ctx, ItemMoved{Item: moved, From: from}); err != nil {
		return nil, false, err
	}
	if err := s.changed(ctx, tx, set, moved, webhooks.QueueUpdated{QueueItemID: moved.ID, Action: "queue_status_changed", Status: to}); err != nil {
		return nil, false, err
	}
	if to == Ready {
		becameReady(tx, moved)
	}
	auto := false
	if to == DoneToday {
		if auto, err = s.releaseDependants(ctx, tx, p, set, moved); err != nil {
			return nil, false, err
		}
	}
	return moved, auto, nil
}

// lostRace is the refusal of a change that another one overtook between
// reading the item and writing it: 404 when that one deleted the item, else
// the move refusal naming the status it left (docs/decisions.md).
func (s *Service) lostRace(ctx context.Context, tx *db.Tx, userID, id string) error {
	now, err := s.load(ctx, tx.Client(), userID, id)
	if err != nil {
		return err
	}
	return apperr.IllegalMove("item changed while this change was made: it is now %s", now.Status)
}

// sideEffects writes what a completed move causes: board rows, the comms
// message of guard 4, and the activity entry.
func (s *Service) sideEffects(ctx context.Context, tx *db.Tx, p *auth.Principal, set *accountSettings, it *ent.QueueItem, from string) error {
	to := string(it.Status)
	ev := EventOf(to)
	now := s.Now().UTC()
	if err := (bridge{tx, p.UserID, p.Actor(), now}).move(ctx, it, ev); err != nil {
		return err
	}
	if ev == EventDispatched || ev == EventCompleted {
		_, assistant, err := set.get(ctx, tx)
		if err != nil {
			return err
		}
		typ, content := comms.TypeExecutionStarted, fmt.Sprintf("Started: %s", it.Title)
		if ev == EventCompleted {
			typ, content = comms.TypeTaskCompleted, fmt.Sprintf("Completed: %s", it.Title)
		}
		m, err := comms.Post(ctx, tx, now, p.UserID, content, assistant, map[string]any{
			"type": typ, "queueItemId": it.ID, "title": it.Title,
		})
		if err != nil {
			return err
		}
		posted(tx, m)
	}
	if err := activity.Write(ctx, tx, activity.Entry{
		UserID: p.UserID, Action: "queue_status_changed", Actor: p.Actor(), CardID: deref(it.CardID), At: now,
		Summary:  fmt.Sprintf("Moved %q from %s to %s", it.Title, from, to),
		Metadata: map[string]any{"queueItemId": it.ID, "from": from, "to": to},
	}); err != nil {
		return err
	}
	if ev != EventDispatched {
		return nil
	}
	return apperr.Wrap(activity.Write(ctx, tx, activity.Entry{
		UserID: p.UserID, Action: "queue_dispatched", Actor: p.Actor(), CardID: deref(it.CardID), At: now,
		Summary: fmt.Sprintf("Dispatched %q", it.Title), Metadata: map[string]any{"queueItemId": it.ID},
	}))
}

// releaseDependants dispatches the ready items that waited for it (docs/decisions.md
// "Queue": autoDispatched).
func (s *Service) releaseDependants(ctx context.Context, tx *db.Tx, p *auth.Principal, set *accountSettings, done *ent.QueueItem) (bool, error) {
	deps, err := tx.QueueItem.Query().Where(queueitem.UserID(p.UserID), queueitem.DependsOn(done.ID),
		queueitem.StatusEQ(queueitem.StatusReady)).Order(ent.Asc(queueitem.FieldCreatedAt), ent.Asc(queueitem.FieldID)).All(ctx)
	if err != nil {
		return false, err
	}
	for _, d := range deps {
		if _, _, err := s.move(ctx, tx, p, set, d, InProgress); err != nil {
			return false, err
		}
		if err := activity.Write(ctx, tx, activity.Entry{
			UserID: p.UserID, Action: "task_dispatched", Actor: p.Actor(), CardID: deref(d.CardID), At: s.Now(),
			Summary:  fmt.Sprintf("Dispatched %q now that %q is done", d.Title, done.Title),
			Metadata: map[string]any{"queueItemId": d.ID, "releasedBy": done.ID},
		}); err != nil {
			return false, err
		}
	}
	return len(deps) > 0, nil
}
