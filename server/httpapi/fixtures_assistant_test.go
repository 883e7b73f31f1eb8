package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, assistantFixtures) }

// assistantFixtures cover the assistant's action tags (issue 16): a tag
// that ran, one that failed, one waiting for the operator's confirmation.
func assistantFixtures() []fixture {
	ran, _ := structpb.NewStruct(map[string]any{"card": map[string]any{"id": "ckx5f0a1b0000qzrmcard00001", "title": "Launch plan"}})
	body, _ := structpb.NewStruct(map[string]any{"id": "ckx5f0a1b0000qzrmqueue0001"})
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	refused := "nothing here handles \"astrology\" tasks, so nothing was queued"
	return []fixture{
		single("ExecuteTagResponse", "ran", &switchboardv1.ExecuteTagResponse{Tag: &switchboardv1.ExecutedTag{Tag: "create_card", Ok: true, Result: ran}}),
		single("ExecutedTag", "failed", &switchboardv1.ExecutedTag{Tag: "dispatch_queue", Error: &refused}),
		single("ExecutedTag", "confirm", &switchboardv1.ExecutedTag{Tag: "remove_queue_item", NeedsConfirmation: true, Body: body}),
		// The reply's stream: one fixture per event.
		single("SendChatResponse", "token", &switchboardv1.SendChatResponse{Event: &switchboardv1.SendChatResponse_Token{
			Token: &switchboardv1.ChatToken{Text: "On it: "}}}),
		single("SendChatResponse", "tags_executed", &switchboardv1.SendChatResponse{Event: &switchboardv1.SendChatResponse_TagsExecuted{
			TagsExecuted: &switchboardv1.ChatTagsExecuted{Tags: []*switchboardv1.ExecutedTag{
				{Tag: "create_card", Ok: true, Result: ran}, {Tag: "dispatch_queue", Error: &refused}}}}}),
		single("SendChatResponse", "done", &switchboardv1.SendChatResponse{Event: &switchboardv1.SendChatResponse_Done{
			Done: &switchboardv1.ChatDone{MessageId: "ckx5f0a1b0000qzrmamsg00002"}}}),
		single("ListAssistantMessagesResponse", "page", &switchboardv1.ListAssistantMessagesResponse{
			Messages: []*switchboardv1.AssistantMessage{
				{Id: "ckx5f0a1b0000qzrmamsg00001", Role: "user", Content: "Plan the launch", CreatedAt: timestamppb.New(at)},
				{Id: "ckx5f0a1b0000qzrmamsg00002", Role: "assistant", Content: "On it: [[create_card {\"title\":\"Launch plan\"}]]",
					Tags: []*switchboardv1.ExecutedTag{{Tag: "create_card", Ok: true, Result: ran}}, CreatedAt: timestamppb.New(at.Add(2 * time.Second))},
			},
			Pagination: &switchboardv1.ChatPagination{Limit: 30, HasMore: true, Cursor: proto.String("MTc2NDIzMDQwMDAwMDAwMDAwMC5ja3g1ZjBhMWIwMDAwcXpybWFtc2cwMDAwMQ")},
		}),
		single("VoiceTranscript", "heard", &switchboardv1.VoiceTranscript{Text: "Remind me to call Ada at three"}),
		single("GeneratedImages", "two", &switchboardv1.GeneratedImages{Documents: []*switchboardv1.Document{imageDocument(),
			{Id: "ckx2d0c5e0004qzrmdocument5", Title: "Image: a lighthouse at dusk (2 of 2)", MimeType: "image/png",
				Size: proto.Int32(40960), Source: "local", CreatedAt: tsCreated, UpdatedAt: tsCreated}}}),
		single("ListAssistantMessagesResponse", "empty", &switchboardv1.ListAssistantMessagesResponse{
			Pagination: &switchboardv1.ChatPagination{Limit: 30}}),
	}
}
