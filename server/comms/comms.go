// Package comms writes the assistant's comms messages into the shared chat
// (RULINGS "Queue": role assistant, metadata JSON with type and queueItemId).
package comms

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// Message types the queue writes; both count as agent activity.
const (
	TypeExecutionStarted = "agent_execution_started"
	TypeTaskCompleted    = "task_completed"
)

// AgentActivity is what the comms view's "agent_activity" filter stands for.
var AgentActivity = []string{TypeExecutionStarted, TypeTaskCompleted}

// Post writes one comms message in tx; metadata must carry "type".
func Post(ctx context.Context, tx *ent.Tx, userID, content, assistant string, metadata map[string]any) (*ent.ChatMessage, error) {
	typ, _ := metadata["type"].(string)
	if typ == "" {
		return nil, fmt.Errorf("comms: metadata needs a type")
	}
	b, err := json.Marshal(metadata)
	if err != nil {
		return nil, fmt.Errorf("comms: metadata: %w", err)
	}
	m, err := tx.ChatMessage.Create().SetUserID(userID).SetRole("assistant").SetContent(content).
		SetMetadata(string(b)).SetMetadataType(typ).SetAgentName(assistant).Save(ctx)
	if err != nil {
		return nil, fmt.Errorf("comms: post %s: %w", typ, err)
	}
	return m, nil
}

// ToProto is the contract's ChatMessage for a stored message.
func ToProto(m *ent.ChatMessage) *switchboardv1.ChatMessage {
	out := &switchboardv1.ChatMessage{
		Id: m.ID, Role: m.Role, Content: m.Content, UserId: m.UserID,
		SandboxId: m.SandboxID, AgentName: m.AgentName, CreatedAt: timestamppb.New(m.CreatedAt),
	}
	if m.Metadata != "" {
		out.Metadata = &m.Metadata
	}
	if m.ClearedAt != nil {
		out.ClearedAt = timestamppb.New(*m.ClearedAt)
	}
	return out
}
