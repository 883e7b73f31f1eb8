package httpapi

import (
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, chatFixtures) }

func fullChatMessage() *switchboardv1.ChatMessage {
	return &switchboardv1.ChatMessage{
		Id: "ckmsg0000000full", Role: "assistant", Content: "Completed: Draft the investor update",
		UserId: "ckx1f0a9z0000qzrmn831i7rn", Metadata: proto.String(`{"type":"task_completed","queueItemId":"ckq0item0000full"}`),
		ClearedAt: tsUsed, SandboxId: proto.String("sandbox-1"), CreatedAt: tsCreated, AgentName: proto.String("Scout"),
	}
}

func sparseChatMessage() *switchboardv1.ChatMessage {
	return &switchboardv1.ChatMessage{
		Id: "ckmsg000000sparse", Role: "user", Content: "hello", UserId: "ckx1f0a9z0000qzrmn831i7rn", CreatedAt: tsCreated,
	}
}

func chatFixtures() []fixture {
	return []fixture{
		single("ChatMessage", "full", fullChatMessage()),
		single("ChatMessage", "sparse", sparseChatMessage()),
		single("ListMessagesResponse", "full", &switchboardv1.ListMessagesResponse{
			Messages:   []*switchboardv1.ChatMessage{sparseChatMessage(), fullChatMessage()},
			Pagination: &switchboardv1.ChatPagination{Limit: 2, Cursor: proto.String("MTczNTc4NzA0NTAwMDAwMDAwMC5ja21zZzAwMDAwMDBzcGFyc2U"), HasMore: true},
		}),
		// The last page: no cursor.
		single("ListMessagesResponse", "sparse", &switchboardv1.ListMessagesResponse{
			Messages: []*switchboardv1.ChatMessage{}, Pagination: &switchboardv1.ChatPagination{Limit: 50},
		}),
		// Flat, as document 1 shows it (no envelope).
		single("SendMessageResponse", "full", &switchboardv1.SendMessageResponse{
			Id: "ckmsg0000000full", Role: "assistant", Content: "Found 3 sources", AgentName: proto.String("Scout"), CreatedAt: tsUsed,
		}),
		single("SendMessageResponse", "sparse", &switchboardv1.SendMessageResponse{
			Id: "ckmsg0000000full", Role: "assistant", Content: "Found 3 sources", CreatedAt: tsUsed,
		}),
		single("StreamEventsResponse", "connected", &switchboardv1.StreamEventsResponse{Event: &switchboardv1.ChatEvent{
			Type: "connected", ClientId: proto.String("ckclient00000001"), AgentName: proto.String("Scout"),
		}}),
		single("StreamEventsResponse", "heartbeat", &switchboardv1.StreamEventsResponse{Event: &switchboardv1.ChatEvent{
			Type: "heartbeat", Timestamp: tsGenerate,
		}}),
		single("StreamEventsResponse", "new_message", &switchboardv1.StreamEventsResponse{Id: proto.String("42"), Event: &switchboardv1.ChatEvent{
			Type: "new_message", Message: fullChatMessage(),
		}}),
		single("StreamEventsResponse", "wake", &switchboardv1.StreamEventsResponse{Id: proto.String("43"), Event: &switchboardv1.ChatEvent{
			Type: "wake", Reason: proto.String("urgent_task"),
			Metadata: &switchboardv1.WakeMetadata{QueueItemId: "ckq0item0000full", Title: "Call back", Priority: "urgent"},
		}}),
		single("StreamEventsResponse", "queue_updated", &switchboardv1.StreamEventsResponse{Id: proto.String("44"), Event: &switchboardv1.ChatEvent{
			Type: "queue_updated", Change: proto.String("created"),
			Item: &switchboardv1.QueueItemBrief{Id: "ckq0item0000full", Title: "Call back", Status: "pending_confirmation", Priority: "urgent", Source: proto.String("Scout")},
		}}),
		single("StreamEventsResponse", "queue_updated_no_source", &switchboardv1.StreamEventsResponse{Id: proto.String("45"), Event: &switchboardv1.ChatEvent{
			Type: "queue_updated", Change: proto.String("deleted"),
			Item: &switchboardv1.QueueItemBrief{Id: "ckq0item0000full", Title: "Call back", Status: "ready", Priority: "low"},
		}}),
		// The dashboard's kinds (issue 31): a record with every field, and one
		// with only the always-present ones.
		single("StreamEventsResponse", "relay_acked", &switchboardv1.StreamEventsResponse{Id: proto.String("46"), Event: &switchboardv1.ChatEvent{
			Type: "relay_acked", Record: &switchboardv1.RecordChange{Id: "ckx5f0a1b0000qzrmrelay0001", Change: "updated",
				Brief: proto.String("Send the deck"), ConnectionId: proto.String("ckx5f0a1b0000qzrmconn00001"), State: proto.String("accepted")},
		}}),
		single("StreamEventsResponse", "card_changed_sparse", &switchboardv1.StreamEventsResponse{Id: proto.String("47"), Event: &switchboardv1.ChatEvent{
			Type: "card_changed", Record: &switchboardv1.RecordChange{Change: "updated"},
		}}),
		// ListMentions answers the bare array on REST (response_body "results").
		{message: "ListMentionsResponse", variant: "person_and_team", msg: mentionsFixture(), restBody: mentionsFixture().GetResults(), restField: "results"},
		{message: "ListMentionsResponse", variant: "none", msg: &switchboardv1.ListMentionsResponse{}, restBody: []*switchboardv1.Mention(nil), restField: "results"},
	}
}

func mentionsFixture() *switchboardv1.ListMentionsResponse {
	return &switchboardv1.ListMentionsResponse{Results: []*switchboardv1.Mention{
		{Id: "ckx1f0b3k0001qzrm4q2w8e5t", Name: "Bob", Avatar: proto.String("https://example.com/avatars/bob.png"),
			Subtitle: proto.String("@bob"), Type: "person"},
		{Id: "team-1", Name: "Design", Type: "team", MemberCount: proto.Int32(4)},
	}}
}
