package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, storeAdminFixtures) }

// instanceAgent is an instance agent as its admins see it: its kit, no
// endpoint.
func instanceAgent() *switchboardv1.StoreAgent {
	a := sparseStoreAgent()
	a.Name, a.Slug, a.InstanceOwned = "Morning briefing", "briefing", true
	a.EndpointUrl, a.ContextInstructions = nil, proto.String("Read the calendar first.")
	a.Kit = &switchboardv1.StoreAgentKit{SystemPrompt: proto.String("You write the morning briefing."),
		Tools: []string{"calendar_read", "queue_list"}, SamplePrompts: []string{"Brief me for today"},
		ContextInstructions: proto.String("Read the calendar first.")}
	return a
}

// storeAdminFixtures cover the admin's view of the store (issue 31): the
// agent activity of a week with runs and of an empty period, and an
// instance agent's save, made and changed.
func storeAdminFixtures() []fixture {
	at := func(d, h int) *timestamppb.Timestamp {
		return timestamppb.New(time.Date(2026, 12, d, h, 0, 0, 0, time.UTC))
	}
	days := make([]*switchboardv1.AgentActivityDay, 7)
	for i := range days {
		days[i] = &switchboardv1.AgentActivityDay{Date: time.Date(2026, 11, 27+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)}
	}
	days[6].Completed, days[6].Failed, days[3].Timeout, days[5].Pending = 2, 1, 1, 1
	week := &switchboardv1.GetAgentActivityResponse{
		Days: 7,
		Agents: []*switchboardv1.AgentActivity{
			{AgentId: "ckx3a0a1b0000qzrmstagent1", Name: "Research Scout", Executions: 4, Completed: 2, Failed: 1, Timeout: 1,
				AvgDurationMs: 1250, RevenueCents: 500},
			{AgentId: "ckx3a0a1b0000qzrmstagent2", Name: "Quiet one", Executions: 1},
		},
		Origins: &switchboardv1.ExecutionOrigins{Local: 2, Federated: 1, Mcp: 1, Assistant: 1},
		Daily:   days,
		Executions: []*switchboardv1.AgentActivityExecution{
			{Id: "ckx3a0a1b0000qzrmexec0001", AgentId: "ckx3a0a1b0000qzrmstagent1", AgentName: "Research Scout", Status: "completed",
				Origin: "mcp", UserId: "ckx1f0a9z0000qzrmn831i7rn", CreatedAt: at(3, 9), FinishedAt: at(3, 10),
				DurationMs: proto.Int32(1500), RevenueCents: proto.Int32(250)},
			{Id: "ckx3a0a1b0000qzrmexec0002", AgentId: "ckx3a0a1b0000qzrmstagent2", AgentName: "Quiet one", Status: "running",
				Origin: "local", UserId: "ckx1f0a9z0000qzrmn831i7rn", CreatedAt: at(2, 8)},
		},
		Pagination: &switchboardv1.Pagination{Total: 5, Limit: 2, HasMore: true},
	}
	empty := &switchboardv1.GetAgentActivityResponse{Days: 30, Agents: []*switchboardv1.AgentActivity{},
		Origins: &switchboardv1.ExecutionOrigins{}, Daily: []*switchboardv1.AgentActivityDay{{Date: "2026-12-03"}},
		Executions: []*switchboardv1.AgentActivityExecution{}, Pagination: &switchboardv1.Pagination{Limit: 50}}
	return []fixture{
		single("GetAgentActivityResponse", "week", week),
		single("GetAgentActivityResponse", "empty", empty),
		single("SaveMyAgentResponse", "created", &switchboardv1.SaveMyAgentResponse{Agent: instanceAgent(), Created: true}),
		single("SaveMyAgentResponse", "changed", &switchboardv1.SaveMyAgentResponse{Agent: instanceAgent(), Change: fullChange()}),
	}
}
