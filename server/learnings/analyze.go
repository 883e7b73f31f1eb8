package learnings

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/learning"
	"github.com/switchboard-hq/switchboard/ent/notification"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/learnings/rules"
)

// AnalyzeLearnings runs the analysis for the caller.
func (s *Service) AnalyzeLearnings(ctx context.Context, _ *switchboardv1.AnalyzeLearningsRequest) (*switchboardv1.AnalyzeLearningsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.Analyze(ctx, p.UserID, p.Actor())
	if err != nil {
		return nil, err
	}
	return &switchboardv1.AnalyzeLearningsResponse{Created: lists.Map(r.Created, learningProto),
		Refreshed: lists.Map(r.Refreshed, learningProto), SignalsAnalyzed: int32(r.Signals)}, nil
}

// Result is what one analysis did.
type Result struct {
	Created, Refreshed []*ent.Learning
	Signals            int
}

// Analyze derives the account's learnings from the last 30 days and stores
// them in one unit of work: a finding already stored (by its key, or a
// learning of the same content) is refreshed unless dismissed; a new one is
// created with its notification and learning_generated.
func (s *Service) Analyze(ctx context.Context, userID, actor string) (Result, error) {
	h, err := s.history(ctx, userID)
	if err != nil {
		return Result{}, err
	}
	findings := rules.Analyze(h)
	now := s.now()
	res := Result{Signals: len(h.Signals)}
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		res.Created, res.Refreshed = nil, nil
		for _, f := range findings {
			row, err := tx.Learning.Query().Where(learning.UserID(userID),
				learning.Or(learning.Key(f.Key), learning.Content(f.Content))).First(ctx)
			switch {
			case err == nil && row.Dismissed:
				continue
			case err == nil:
				row, err = row.Update().SetKey(f.Key).SetConfidence(f.Confidence).SetEvidence(f.Evidence).SetUpdatedAt(now).Save(ctx)
				if err != nil {
					return err
				}
				res.Refreshed = append(res.Refreshed, row)
				continue
			case !ent.IsNotFound(err):
				return err
			}
			row, err = tx.Learning.Create().SetUserID(userID).SetCategory(learning.Category(f.Category)).SetKey(f.Key).
				SetContent(f.Content).SetConfidence(f.Confidence).SetEvidence(f.Evidence).SetSource(SourceAnalysis).
				SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
			if err != nil {
				return err
			}
			if err := announce(ctx, tx, row, actor, now); err != nil {
				return err
			}
			res.Created = append(res.Created, row)
		}
		return nil
	})
	return res, err
}

// announce writes a new learning's local notification and its activity.
func announce(ctx context.Context, tx *db.Tx, l *ent.Learning, actor string, now time.Time) error {
	meta, _ := json.Marshal(map[string]any{"learningId": l.ID, "category": string(l.Category), "confidence": l.Confidence})
	err := tx.Notification.Create().SetUserID(l.UserID).SetType(notification.Type(vocab.NotificationTypeLearningGenerated)).
		SetTitle("New learning").SetBody(l.Content).SetMetadata(string(meta)).SetFromUserName("Switchboard").
		SetFromUserEmail("").SetFromInstanceURL("").SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx)
	if err != nil {
		return err
	}
	return activity.Write(ctx, tx, activity.Entry{UserID: l.UserID, Action: "learning_generated", Actor: actor, At: now,
		Summary:  fmt.Sprintf("Learned (%s): %s", l.Category, l.Content),
		Metadata: map[string]any{"learningId": l.ID, "category": string(l.Category), "confidence": l.Confidence, "evidence": l.Evidence}})
}

// history reads the last 30 days: the signals, and from the queue's
// activity the approvals (pending_confirmation → ready) with whether the
// item was edited, and the completions (→ done_today).
func (s *Service) history(ctx context.Context, userID string) (rules.History, error) {
	signals, err := s.since(ctx, userID, int(rules.Window/(24*time.Hour)))
	if err != nil {
		return rules.History{}, err
	}
	h := rules.History{Signals: signals}
	from := s.now().Add(-rules.Window)
	entries, err := s.DB.ActivityEntry.Query().Where(activityentry.UserID(userID), activityentry.CreatedAtGTE(from),
		activityentry.ActionIn("queue_status_changed", "queue_updated")).
		Order(ent.Asc(activityentry.FieldCreatedAt), ent.Asc(activityentry.FieldID)).All(ctx)
	if err != nil {
		return rules.History{}, err
	}
	type move struct{ item, from, to string }
	var moves []move
	edited := map[string]bool{}
	var ids []string
	for _, e := range entries {
		var m struct {
			QueueItemID string `json:"queueItemId"`
			From        string `json:"from"`
			To          string `json:"to"`
		}
		if json.Unmarshal([]byte(e.Metadata), &m) != nil || m.QueueItemID == "" {
			continue
		}
		if e.Action == "queue_updated" {
			edited[m.QueueItemID] = true
			continue
		}
		moves = append(moves, move{m.QueueItemID, m.From, m.To})
		ids = append(ids, m.QueueItemID)
	}
	items, err := s.DB.QueueItem.Query().Where(queueitem.UserID(userID), queueitem.IDIn(ids...)).
		Select(queueitem.FieldType, queueitem.FieldSource, queueitem.FieldMetadata).All(ctx)
	if err != nil {
		return rules.History{}, err
	}
	byID := map[string]*ent.QueueItem{}
	for _, it := range items {
		byID[it.ID] = it
	}
	for _, m := range moves {
		it := byID[m.item]
		if it == nil { // deleted since: nothing left to say what it was
			continue
		}
		switch {
		case m.from == string(vocab.QueueStatusPendingConfirmation) && m.to == string(vocab.QueueStatusReady):
			h.Approvals = append(h.Approvals, rules.Approval{Type: string(it.Type), Source: deref(it.Source), Edited: edited[m.item]})
		case m.to == string(vocab.QueueStatusDoneToday):
			h.Done = append(h.Done, taskType(it))
		}
	}
	return h, nil
}

// taskType is the item's metadata taskType (the economy's), else its type.
func taskType(it *ent.QueueItem) string {
	var m struct {
		TaskType string `json:"taskType"`
	}
	if json.Unmarshal([]byte(it.Metadata), &m) == nil && strings.TrimSpace(m.TaskType) != "" {
		return strings.TrimSpace(m.TaskType)
	}
	return string(it.Type)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
