package httpapi

import (
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, handoffFixtures) }

// handoffFixtures covers HandoffService (a2a.proto): the playbook and the
// main handoff.
func handoffFixtures() []fixture {
	return []fixture{
		single("GetPlaybookResponse", "full", &switchboardv1.GetPlaybookResponse{Success: true, Playbook: &switchboardv1.Playbook{
			Preferences: &switchboardv1.PlaybookPreferences{Mode: "cockpit", QueueAutoApprove: true,
				AssistantName: proto.String("Jarvis"), GoalsEnabled: true, Learnings: []string{"Prefers mornings"}},
			CapabilityPacks: []*switchboardv1.PlaybookPack{{Id: "ckx1pack0000qzrm", Name: "Inbox zero", Category: proto.String("email"), Active: true}},
			StoreAgents:     []*switchboardv1.PlaybookAgent{{Id: "ckx1agent000qzrm", Name: "Translator", Slug: "translator", Category: proto.String("writing")}},
			HandoffBrief:    "You are handing work to Ada (assistant: Jarvis), in cockpit mode.",
		}}),
		single("GetPlaybookResponse", "sparse", &switchboardv1.GetPlaybookResponse{Success: true, Playbook: &switchboardv1.Playbook{
			Preferences:  &switchboardv1.PlaybookPreferences{Mode: "cockpit"},
			HandoffBrief: "You are handing work to Bob, in cockpit mode.",
		}}),
		single("GetMainHandoffResponse", "full", &switchboardv1.GetMainHandoffResponse{Success: true, Mode: "cockpit",
			Queue: &switchboardv1.HandoffQueue{Counts: map[string]int32{"pending_confirmation": 1, "ready": 2, "in_progress": 0},
				Total: 3, TopItems: []*switchboardv1.QueueItemBrief{{Id: "ckx1item0000qzrm", Title: "Call the bank", Status: "ready", Priority: "urgent", Source: proto.String("a2a:travel-agent")}}},
			Calendar: []*switchboardv1.HandoffEvent{{Id: "ev1", Title: "Stand-up", Start: tsCreated}},
			Priorities: &switchboardv1.HandoffPriorities{
				UrgentItems: []*switchboardv1.QueueItemBrief{{Id: "ckx1item0000qzrm", Title: "Call the bank", Status: "ready", Priority: "urgent"}},
				CardsDue:    []*switchboardv1.HandoffCard{{Id: "ckx1card0000qzrm", Title: "Tax return", Status: "active", Priority: "high", DueDate: tsUsed}},
			}}),
		single("GetMainHandoffResponse", "sparse", &switchboardv1.GetMainHandoffResponse{Success: true, Mode: "cockpit",
			Queue: &switchboardv1.HandoffQueue{}, Priorities: &switchboardv1.HandoffPriorities{}}),
	}
}
