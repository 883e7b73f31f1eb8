// Package comms writes the assistant's comms messages into the shared chat
// (docs/decisions.md "Queue": role assistant, metadata JSON with type and queueItemId).
package comms

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
)

// Message types the queue writes; both count as agent activity.
const (
	TypeExecutionStarted = "agent_execution_started"
	TypeTaskCompleted    = "task_completed"
)

// AgentActivity is what the comms view's "agent_activity" filter stands for.
var AgentActivity = []string{TypeExecutionStarted, TypeTaskCompleted}

// Post writes one comms message in tx, stamped at (the caller's injected
// clock); metadata must carry "type". Its activity `comms_created` is
// written with it (RULINGS, reconciliation 20: each comms message a
// webhook, relay or queue transition creates); a caller whose message
// answers an earlier one writes `comms_replied` itself.
func Post(ctx context.Context, tx *db.Tx, at time.Time, userID, content, assistant string, metadata map[string]any) (*ent.ChatMessage, error) {
	typ, _ := metadata["type"].(string)
	if typ == "" {
		return nil, fmt.Errorf("comms: metadata needs a type")
	}
	b, err := json.Marshal(metadata)
	if err != nil {
		return nil, fmt.Errorf("comms: metadata: %w", err)
	}
	// Microseconds, what PostgreSQL keeps: the pushed message equals the listed one.
	m, err := tx.ChatMessage.Create().SetUserID(userID).SetRole("assistant").SetContent(content).
		SetMetadata(string(b)).SetMetadataType(typ).SetAgentName(assistant).
		SetCreatedAt(at.UTC().Truncate(time.Microsecond)).Save(ctx)
	if err != nil {
		return nil, fmt.Errorf("comms: post %s: %w", typ, err)
	}
	err = activity.Write(ctx, tx, activity.Entry{UserID: userID, Action: "comms_created", Actor: assistant, At: at,
		Summary: summary(content), Metadata: map[string]any{"messageId": m.ID, "type": typ}})
	return m, err
}

// summaryRunes bounds the activity summary: the message's first line.
const summaryRunes = 120

func summary(content string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(content), "\n")
	if r := []rune(line); len(r) > summaryRunes {
		line = string(r[:summaryRunes-1]) + "…"
	}
	return line
}
