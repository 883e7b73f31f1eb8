package httpapi

import (
	"google.golang.org/protobuf/types/known/structpb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, assistantFixtures) }

// assistantFixtures cover the assistant's action tags (issue 16): a tag
// that ran, one that failed, one waiting for the operator's confirmation.
func assistantFixtures() []fixture {
	ran, _ := structpb.NewStruct(map[string]any{"card": map[string]any{"id": "ckx5f0a1b0000qzrmcard00001", "title": "Launch plan"}})
	body, _ := structpb.NewStruct(map[string]any{"id": "ckx5f0a1b0000qzrmqueue0001"})
	refused := "nothing here handles \"astrology\" tasks, so nothing was queued"
	return []fixture{
		single("ExecuteTagResponse", "ran", &switchboardv1.ExecuteTagResponse{Tag: &switchboardv1.ExecutedTag{Tag: "create_card", Ok: true, Result: ran}}),
		single("ExecutedTag", "failed", &switchboardv1.ExecutedTag{Tag: "dispatch_queue", Error: &refused}),
		single("ExecutedTag", "confirm", &switchboardv1.ExecutedTag{Tag: "remove_queue_item", NeedsConfirmation: true, Body: body}),
	}
}
