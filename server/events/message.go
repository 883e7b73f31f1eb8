package events

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// Message is a stored chat message as the API shows it (chat.proto,
// ChatMessage): role and metadata as stored, empty values absent.
func Message(m *ent.ChatMessage) *switchboardv1.ChatMessage {
	out := &switchboardv1.ChatMessage{
		Id: m.ID, Role: m.Role, Content: m.Content, UserId: m.UserID,
		SandboxId: m.SandboxID, AgentName: m.AgentName, CreatedAt: timestamppb.New(m.CreatedAt),
	}
	if m.Metadata != "" {
		out.Metadata = proto.String(m.Metadata)
	}
	if m.ClearedAt != nil {
		out.ClearedAt = timestamppb.New(*m.ClearedAt)
	}
	return out
}

// NewMessage is the new_message event of a stored message; publish it after
// the message's transaction commits.
func NewMessage(m *ent.ChatMessage) *switchboardv1.ChatEvent {
	return &switchboardv1.ChatEvent{Type: TypeNewMessage, Message: Message(m)}
}

// Wake is the wake event of an urgent queue item that became ready (docs/decisions.md
// "Shared chat and events": reason urgent_task, metadata {queueItemId, title,
// priority}).
func Wake(queueItemID, title, priority string) *switchboardv1.ChatEvent {
	return &switchboardv1.ChatEvent{
		Type: TypeWake, Reason: proto.String("urgent_task"),
		Metadata: &switchboardv1.WakeMetadata{QueueItemId: queueItemID, Title: title, Priority: priority},
	}
}

// QueueUpdated is the queue_updated event of a queue item that was created,
// updated or deleted (change), showing it with status, its status after the
// change.
func QueueUpdated(change string, it *ent.QueueItem, status string) *switchboardv1.ChatEvent {
	return &switchboardv1.ChatEvent{
		Type: TypeQueueUpdated, Change: proto.String(change),
		Item: &switchboardv1.QueueItemBrief{Id: it.ID, Title: it.Title, Status: status, Priority: string(it.Priority), Source: it.Source},
	}
}

// Record is one of the dashboard's events (DashboardOnly): typ names what
// changed, rc the record, for the view that shows it to read it again.
func Record(typ string, rc *switchboardv1.RecordChange) *switchboardv1.ChatEvent {
	return &switchboardv1.ChatEvent{Type: typ, Record: rc}
}
