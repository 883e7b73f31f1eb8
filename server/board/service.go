// Package board is the board analysis (RULINGS "The proactive layer"):
// BoardCortexService (the operator's full scan, the digest, dismissing and
// applying an insight) and CronService (the outside scheduler's scan of
// every user with the cron secret), and the server's own scan every 6 hours
// (Timer). The analysis is server/board/rules'; the card changes it makes
// are server/kanban's (Escalate, Archive, MergeInto).
package board

import (
	"context"
	"fmt"
	"slices"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/boardinsight"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/board/rules"
	"github.com/switchboard-hq/switchboard/server/kanban"
)

// Service serves BoardCortexService and CronService.
type Service struct {
	DB  *db.DB
	Now func() time.Time
	// CronSecret is --cron-secret; empty closes the cron route (404).
	CronSecret string
}

func (s *Service) now() time.Time { return s.Now().UTC() }

// DigestTop is how many active insights the digest carries.
const DigestTop = 10

// SystemActor is the actor of the scans no one asked for in person (the
// cron route and the 6-hour timer).
const SystemActor = "Switchboard"

// loadCards reads an account's board as the rules see it: every card not
// archived, with its checklist.
func loadCards(ctx context.Context, c *ent.Client, userID string) ([]*ent.Card, []rules.Card, error) {
	rows, err := c.Card.Query().Where(card.UserID(userID), card.IsArchived(false)).
		WithChecklistItems(func(q *ent.ChecklistItemQuery) {
			q.Select(checklistitem.FieldCardID, checklistitem.FieldText, checklistitem.FieldCompleted)
		}).Order(ent.Asc(card.FieldCreatedAt), ent.Asc(card.FieldID)).All(ctx)
	if err != nil {
		return nil, nil, err
	}
	out := make([]rules.Card, len(rows))
	for i, r := range rows {
		items := make([]rules.Item, len(r.Edges.ChecklistItems))
		for j, it := range r.Edges.ChecklistItems {
			items[j] = rules.Item{Text: it.Text, Done: it.Completed}
		}
		out[i] = rules.Card{ID: r.ID, Title: r.Title, Completed: r.Status == card.StatusCompleted,
			Urgent: r.Priority == card.PriorityUrgent, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
			Due: r.DueDate, Items: items}
	}
	return rows, out, nil
}

// Outcome is one account's full scan.
type Outcome struct {
	Cards     int
	Created   []*ent.BoardInsight
	Escalated []string
}

// Details counts the created insights by type.
func (o Outcome) Details() map[string]int32 {
	m := map[string]int32{}
	for _, in := range o.Created {
		m[string(in.Type)]++
	}
	return m
}

// Scan is one account's full scan in one unit of work: the new insights
// (a type and pair already recorded, dismissed or applied included, is not
// raised again), the escalated cards set urgent, one cortex_scan entry.
// Two scans of one account at once take turns.
func (s *Service) Scan(ctx context.Context, userID, actor string) (Outcome, error) {
	return db.InTxValue(ctx, s.DB, func(tx *db.Tx) (Outcome, error) {
		var o Outcome
		if err := tx.Serialize(ctx, "board-scan:"+userID); err != nil {
			return o, err
		}
		now := s.now()
		rows, cards, err := loadCards(ctx, tx.Client(), userID)
		if err != nil {
			return o, err
		}
		o.Cards = len(cards)
		r := rules.Scan(cards, now)
		known, err := tx.BoardInsight.Query().Where(boardinsight.UserID(userID)).
			Select(boardinsight.FieldType, boardinsight.FieldSourceID, boardinsight.FieldTargetID).All(ctx)
		if err != nil {
			return o, err
		}
		seen := map[[3]string]bool{}
		for _, k := range known {
			seen[[3]string{string(k.Type), k.SourceID, k.TargetID}] = true
		}
		for _, f := range r.Findings {
			key := [3]string{string(f.Type), f.SourceID, f.TargetID}
			if seen[key] {
				continue
			}
			seen[key] = true
			in, err := tx.BoardInsight.Create().SetUserID(userID).SetType(boardinsight.Type(f.Type)).
				SetConfidence(f.Confidence).SetReason(f.Reason).SetSourceID(f.SourceID).SetTargetID(f.TargetID).
				SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
			if err != nil {
				return o, fmt.Errorf("board: insight: %w", err)
			}
			o.Created = append(o.Created, in)
		}
		byID := map[string]*ent.Card{}
		for _, c := range rows {
			byID[c.ID] = c
		}
		for _, id := range r.Escalate {
			changed, err := kanban.Escalate(ctx, tx, byID[id], actor, now)
			if err != nil {
				return o, err
			}
			if changed {
				o.Escalated = append(o.Escalated, id)
			}
		}
		return o, activity.Write(ctx, tx, activity.Entry{
			UserID: userID, Action: "cortex_scan", Actor: actor, At: now,
			Summary: fmt.Sprintf("Board scan: %d cards, %d new insights, %d escalated", o.Cards, len(o.Created), len(o.Escalated)),
			Metadata: map[string]any{"scanned": o.Cards, "insightsCreated": len(o.Created),
				"escalated": o.Escalated, "details": o.Details()},
		})
	})
}

// activeInsights are an account's active insights whose cards are still on
// the board (not deleted, not archived), most confident first.
func activeInsights(ctx context.Context, c *ent.Client, userID string) ([]*ent.BoardInsight, error) {
	rows, err := c.BoardInsight.Query().Where(boardinsight.UserID(userID), boardinsight.StatusEQ(boardinsight.StatusActive)).
		Order(ent.Desc(boardinsight.FieldConfidence), ent.Desc(boardinsight.FieldCreatedAt), ent.Asc(boardinsight.FieldID)).All(ctx)
	if err != nil || len(rows) == 0 {
		return rows, err
	}
	live, err := c.Card.Query().Where(card.UserID(userID), card.IsArchived(false)).IDs(ctx)
	if err != nil {
		return nil, err
	}
	on := map[string]bool{}
	for _, id := range live {
		on[id] = true
	}
	return slices.DeleteFunc(rows, func(in *ent.BoardInsight) bool {
		return !on[in.SourceID] || (in.TargetID != "" && !on[in.TargetID])
	}), nil
}

func toInsight(in *ent.BoardInsight) *switchboardv1.BoardInsight {
	out := &switchboardv1.BoardInsight{Id: in.ID, Type: string(in.Type), Status: string(in.Status),
		Confidence: in.Confidence, Reason: in.Reason, SourceId: in.SourceID,
		CreatedAt: timestamppb.New(in.CreatedAt), UpdatedAt: timestamppb.New(in.UpdatedAt)}
	if in.TargetID != "" {
		out.TargetId = &in.TargetID
	}
	return out
}

func toRef(c *ent.Card) *switchboardv1.BoardCardRef {
	out := &switchboardv1.BoardCardRef{Id: c.ID, Title: c.Title, Status: string(c.Status), Priority: string(c.Priority),
		UpdatedAt: timestamppb.New(c.UpdatedAt)}
	if c.DueDate != nil {
		out.DueDate = timestamppb.New(*c.DueDate)
	}
	return out
}

// The server's own scan of every user (RULINGS: without an outside cron the
// server scans every 6 hours itself, once across replicas).
const (
	TimerName = "board-scan"
	Every     = 6 * time.Hour
)
