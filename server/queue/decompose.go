package queue

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/comms"
)

// MaxSubtasks bounds one decomposition (docs/decisions.md "The assistant
// (issue 16)").
const MaxSubtasks = 20

// TypeTaskDecomposed is the comms message a decomposition posts.
const TypeTaskDecomposed = "task_decomposed"

// Subtask is one child of a decomposition: its item as CreateQueueItem
// takes it, and the earlier subtask it depends on ("$N", 0-indexed), if any.
type Subtask struct {
	Item      *switchboardv1.CreateQueueItemRequest
	DependsOn string
}

// Ref reads a positional reference "$N" of subtask i: N must name an earlier
// subtask (0-indexed, earlier subtasks only: docs/decisions.md "The
// assistant (issue 16)"); "" is none (-1).
func Ref(ref string, i int) (int, error) {
	if ref == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(ref, "$"))
	if !strings.HasPrefix(ref, "$") || err != nil || n < 0 || strconv.Itoa(n) != ref[1:] {
		return 0, apperr.Invalid("subtasks[%d].dependsOn: %q is not a reference of the form $N (N an earlier subtask, from 0)", i, ref)
	}
	if n >= i {
		return 0, apperr.Invalid("subtasks[%d].dependsOn: %s is not an earlier subtask (a subtask depends only on those before it)", i, ref)
	}
	return n, nil
}

// Decompose splits the caller's item parentID into subtasks in one unit of
// work, all or none: each child is created as CreateQueueItem creates one
// (its board card, activity, events; pending or ready by auto-approve),
// with parentTaskId the parent, subtaskOrder its position and dependsOn the
// real id of the subtask its "$N" names, so a child done releases its ready
// dependants (move.go). The parent's card gets task_decomposed and the comms
// a message.
func (s *Service) Decompose(ctx context.Context, parentID string, subs []Subtask) (*ent.QueueItem, []*ent.QueueItem, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(parentID) == "" {
		return nil, nil, apperr.Invalid("parentId is required")
	}
	if len(subs) == 0 || len(subs) > MaxSubtasks {
		return nil, nil, apperr.Invalid("subtasks: give 1 to %d subtasks", MaxSubtasks)
	}
	drafts := make([]draftOf, len(subs))
	deps := make([]int, len(subs))
	for i, sub := range subs {
		req := sub.Item
		title, err := cleanTitle(req.GetTitle())
		if err != nil {
			return nil, nil, apperr.Invalid("subtasks[%d]: %s", i, apperr.From(err).Message)
		}
		typ, prio := "task", "medium"
		if req.Type != nil {
			typ = req.GetType()
		}
		if req.Priority != nil {
			prio = req.GetPriority()
		}
		if err := apperr.OneOf(fmt.Sprintf("subtasks[%d].type", i), typ, Types); err != nil {
			return nil, nil, err
		}
		if err := apperr.OneOf(fmt.Sprintf("subtasks[%d].priority", i), prio, Priorities); err != nil {
			return nil, nil, err
		}
		if err := validMeta(req.Metadata); err != nil {
			return nil, nil, err
		}
		if deps[i], err = Ref(sub.DependsOn, i); err != nil {
			return nil, nil, err
		}
		order := int32(i)
		drafts[i] = draftOf{req: req, title: title, typ: typ, prio: prio, source: req.Source, subtaskOrder: &order}
	}
	var parent *ent.QueueItem
	children := make([]*ent.QueueItem, 0, len(subs))
	err = s.inTx(ctx, func(ctx context.Context, tx *db.Tx) error {
		children = children[:0] // a unit of work may run again after a failed batch
		if parent, err = s.load(ctx, tx.Client(), p.UserID, parentID); err != nil {
			return err
		}
		for i, d := range drafts {
			d.req.ParentTaskId, d.req.DependsOn = &parent.ID, nil
			if deps[i] >= 0 {
				d.req.DependsOn = &children[deps[i]].ID
			}
			it, err := s.insert(ctx, tx, p, d, nil)
			if err != nil {
				return err
			}
			children = append(children, it)
		}
		_, assistant, err := settingsFor(p.UserID).get(ctx, tx)
		if err != nil {
			return err
		}
		ids := make([]string, len(children))
		for i, c := range children {
			ids[i] = c.ID
		}
		now := s.Now().UTC()
		m, err := comms.Post(ctx, tx, now, p.UserID, fmt.Sprintf("Split %q into %d subtasks", parent.Title, len(children)), assistant,
			map[string]any{"type": TypeTaskDecomposed, "queueItemId": parent.ID, "title": parent.Title, "subtaskIds": ids})
		if err != nil {
			return err
		}
		posted(tx, m)
		return apperr.Wrap(activity.Write(ctx, tx, activity.Entry{
			UserID: p.UserID, Action: "task_decomposed", Actor: p.Actor(), CardID: deref(parent.CardID), At: now,
			Summary:  fmt.Sprintf("Split %q into %d subtasks", parent.Title, len(children)),
			Metadata: map[string]any{"queueItemId": parent.ID, "subtaskIds": ids},
		}))
	})
	if err != nil {
		return nil, nil, err
	}
	return parent, children, nil
}

// ToProto is an item as the API answers it.
func ToProto(it *ent.QueueItem) *switchboardv1.QueueItem { return toProto(it) }
