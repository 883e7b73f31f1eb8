package httpapi

import (
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, assistantPromptFixtures) }

// assistantPromptFixtures cover the admin's view of the assistant's prompt
// (issue 16): a prompt with outside text and a dropped turn, and an empty
// one (nothing dropped).
func assistantPromptFixtures() []fixture {
	full := &switchboardv1.GetAssistantPromptResponse{
		Messages: []*switchboardv1.AssistantPromptMessage{
			{Role: "system", Content: "You are the operator's assistant inside Switchboard…\n\n<<<DATA 5f0c kind=queue_item id=ckx5f0a1b0000qzrmqueue0001 source=relay:acme>>>\n> Urgent\n<<<END DATA 5f0c>>>"},
			{Role: "assistant", Content: "Two items wait for you."},
			{Role: "user", Content: "approve my tasks"},
		},
		Sections: []*switchboardv1.AssistantPromptSection{
			{Kind: "group", Name: "core", Tokens: 280, Provenance: "system"},
			{Kind: "item", Name: "queue_item ckx5f0a1b0000qzrmqueue0001", Tokens: 41, Outside: true, Provenance: "peer",
				ProvenanceRef: proto.String("ckx5f0a1b0000qzrmconn00001")},
			{Kind: "turn", Name: "turn -1", Tokens: 6, Provenance: "assistant"},
			{Kind: "message", Name: "message", Tokens: 4, Provenance: "operator"},
		},
		Dropped: []*switchboardv1.AssistantPromptSection{{Kind: "turn", Name: "turn -2", Tokens: 900, Provenance: "operator"}},
		Tokens:  331, Budget: 8000, Outside: true,
	}
	return []fixture{
		single("GetAssistantPromptResponse", "outside", full),
		single("GetAssistantPromptResponse", "empty", &switchboardv1.GetAssistantPromptResponse{Budget: 8000}),
	}
}
