package review

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/document"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// Finished is the engine's hook, called in the transaction that finishes an
// execution. A marketplace execution of another account's agent is
// delivered to its requester: a completed result as a shared document plus a
// queue item (done_today) carrying the review widget, which opens the review
// window at once (reviewWidgetShownAt is the delivery); a failure or timeout
// as a blocked queue item. Own-agent and non-marketplace runs are left alone.
func (s *Service) Finished(ctx context.Context, tx *db.Tx, ex *ent.Execution) error {
	if global(ex) {
		return s.openGlobal(ctx, tx, ex)
	}
	if ex.IsOwnAgent || ex.TaskOrigin != execution.TaskOriginMarketplace {
		return nil
	}
	completed := ex.Status == execution.StatusCompleted
	if !completed && ex.Status != execution.StatusFailed && ex.Status != execution.StatusTimeout {
		return nil
	}
	agent, err := listing(ctx, tx, ex)
	if err != nil {
		return fmt.Errorf("review: delivery: %w", err)
	}
	now := s.now()
	title := fmt.Sprintf("%s: %s", agent.Name, headline(ex.Input))
	meta := map[string]any{"executionId": ex.ID, "agentId": agent.ID, "agentName": agent.Name, "taskOrigin": "marketplace"}
	result := fmt.Sprintf("The agent did not deliver (%s).", ex.Status)
	if completed {
		output := ""
		if ex.Output != nil {
			output = *ex.Output
		}
		result = output
		doc, err := tx.Document.Create().SetUserID(ex.UserID).SetTitle(title).SetContent(output).
			SetMimeType("text/plain").SetSize(len(output)).SetSource("marketplace").SetSharedBy(agent.Name).SetExecutionID(ex.ID).
			SetCreatedBy(document.CreatedByStore).SetCreatedByRef(ex.ID).SetTextBy(document.TextByStore).SetTextByRef(ex.ID).
			SetCreatedAt(now).SetUpdatedAt(now).Save(ctx)
		if err != nil {
			return fmt.Errorf("review: shared document: %w", err)
		}
		meta["documentId"] = doc.ID
		meta["reviewDueAt"] = Due(now).Format(time.RFC3339Nano)
		meta["widgets"] = []any{reviewWidget(ex.ID, agent.Name)}
		n, err := tx.Execution.Update().Where(execution.ID(ex.ID), execution.ReviewStatusIsNil()).
			SetReviewStatus(execution.ReviewStatusPendingReview).SetReviewWidgetShownAt(now).SetUpdatedAt(now).Save(ctx)
		if err != nil {
			return fmt.Errorf("review: open review: %w", err)
		}
		if n == 0 {
			return nil // delivered already (a hook called twice)
		}
	}
	if err := tx.Publish(ctx, ResultDelivered{UserID: ex.UserID, ExecutionID: ex.ID, AgentName: agent.Name,
		Title: title, Description: ex.Input, Result: result, Completed: completed, Metadata: meta, At: now}); err != nil {
		return fmt.Errorf("review: queue delivery: %w", err)
	}
	if s.Timer != nil {
		tx.AfterCommit(s.Timer.Wake)
	}
	return nil
}

// global reports whether ex is a hub's run of a global listing for a
// spoke's user (task origin federation, the spoke's user recorded).
func global(ex *ent.Execution) bool {
	return !ex.IsOwnAgent && ex.TaskOrigin == execution.TaskOriginFederation && ex.RequesterUserID != nil
}

// openGlobal opens the hub's review window of a completed global execution
// (docs/decisions.md "Federation: the global store (issue 14)"): the result
// goes to the requester's queue on their spoke, not to a queue here, and the
// window confirms it (capturing its hold) when it closes.
func (s *Service) openGlobal(ctx context.Context, tx *db.Tx, ex *ent.Execution) error {
	if ex.Status != execution.StatusCompleted {
		return nil
	}
	now := s.now()
	n, err := tx.Execution.Update().Where(execution.ID(ex.ID), execution.ReviewStatusIsNil()).
		SetReviewStatus(execution.ReviewStatusPendingReview).SetReviewWidgetShownAt(now).SetUpdatedAt(now).Save(ctx)
	if err != nil {
		return fmt.Errorf("review: open review: %w", err)
	}
	if n > 0 && s.Timer != nil {
		tx.AfterCommit(s.Timer.Wake)
	}
	return nil
}

// Created is the engine's hook in the transaction that makes an execution:
// a marketplace execution of another account's agent opens its requester's
// queue item (in_progress, task origin marketplace), which Finished completes.
// An execution run for an existing item (ForItem) links that item instead.
func (s *Service) Created(ctx context.Context, tx *db.Tx, ex *ent.Execution) error {
	if ex.IsOwnAgent || ex.TaskOrigin != execution.TaskOriginMarketplace {
		return nil
	}
	agent, err := listing(ctx, tx, ex)
	if err != nil {
		return fmt.Errorf("review: tracking: %w", err)
	}
	meta := map[string]any{"executionId": ex.ID, "agentId": agent.ID, "agentName": agent.Name, "taskOrigin": "marketplace"}
	itemID, _ := ItemFor(ctx)
	if err := tx.Publish(ctx, ExecutionTracked{UserID: ex.UserID, ExecutionID: ex.ID, AgentName: agent.Name, ItemID: itemID,
		Title: fmt.Sprintf("%s: %s", agent.Name, headline(ex.Input)), Description: ex.Input, Metadata: meta, At: s.now()}); err != nil {
		return fmt.Errorf("review: tracking: %w", err)
	}
	return nil
}

// reviewWidget is the review widget (store.proto, AgentWidgetData): confirm or
// deny the delivered result.
func reviewWidget(executionID, agentName string) map[string]any {
	return map[string]any{
		"type": "choice_card", "title": "Review the result of " + agentName,
		"subtitle": "Confirm or deny within 48 hours; it is confirmed automatically after that.",
		"layout":   "horizontal",
		"items": []any{
			map[string]any{"id": "confirm", "label": "Confirm", "actions": []any{"confirm"},
				"description": "POST /api/marketplace/lifecycle {action: confirm, executionId: " + executionID + "}"},
			map[string]any{"id": "deny", "label": "Deny", "actions": []any{"deny"},
				"description": "POST /api/marketplace/lifecycle {action: deny, executionId: " + executionID + ", reason}"},
		},
	}
}

// headline is the first line of a task, cut to 80 characters.
func headline(input string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(input), "\n")
	if r := []rune(line); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return line
}

// markReviewed records the review's outcome in the metadata of the
// requester's queue item that carries the review widget (reviewStatus:
// confirmed or denied), so that whoever shows the widget later shows the
// decision instead of the buttons.
func markReviewed(ctx context.Context, tx *db.Tx, ex *ent.Execution, now time.Time) error {
	items, err := tx.QueueItem.Query().
		Where(queueitem.UserID(ex.UserID), queueitem.ExecutionID(ex.ID)).All(ctx)
	if err != nil {
		return apperr.Internal(fmt.Errorf("review: find the reviewed item: %w", err))
	}
	for _, it := range items {
		meta := map[string]any{}
		if it.Metadata != "" {
			if err := json.Unmarshal([]byte(it.Metadata), &meta); err != nil {
				continue // not ours to repair; the widget then stays as it was
			}
		}
		if _, ok := meta["widgets"]; !ok {
			continue
		}
		meta["reviewStatus"] = string(*ex.ReviewStatus)
		raw, err := json.Marshal(meta)
		if err != nil {
			return apperr.Internal(err)
		}
		if err := tx.QueueItem.UpdateOne(it).SetMetadata(string(raw)).SetUpdatedAt(now).Exec(ctx); err != nil {
			return apperr.Internal(fmt.Errorf("review: mark the reviewed item: %w", err))
		}
	}
	return nil
}

// listing is the listing ex ran. The engine's hooks run while it exists (a
// listing is removed only without work in flight), so an unlinked execution
// here is an error, not a crash.
func listing(ctx context.Context, tx *db.Tx, ex *ent.Execution) (*ent.StoreAgent, error) {
	if ex.AgentID == nil {
		return nil, fmt.Errorf("execution %s is unlinked from its removed listing", ex.ID)
	}
	return tx.StoreAgent.Get(ctx, *ex.AgentID)
}
