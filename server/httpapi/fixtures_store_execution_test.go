package httpapi

import (
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, storeExecutionFixtures) }

// quotedExecution is a dynamic-price answer waiting for approve or decline,
// with its payment_prompt widget (document 2, "Execution contract",
// "Widget data").
func quotedExecution() *switchboardv1.ExecuteStoreAgentResponse {
	return &switchboardv1.ExecuteStoreAgentResponse{
		ExecutionId: "ckx3a0a1b0000qzrmsexec01", AgentId: "ckx3a0a1b0000qzrmstagent1", Status: "running",
		IsOwnAgent: false, TaskOrigin: "marketplace", IsolationMode: "output_only", PaymentHoldStatus: "none",
		PricingPhase: proto.String("quoted"),
		Quote: &switchboardv1.StoreQuote{Amount: 12.5, Currency: "EUR", Breakdown: "5 sources × 2.50",
			ApproveUrl: "https://switchboard.example.com/api/marketplace/ckx3a0a1b0000qzrmstagent1/execute/ckx3a0a1b0000qzrmsexec01"},
		Widget: &switchboardv1.AgentWidgetData{
			Type: "payment_prompt", Title: "Approve 12.50 EUR for Research Scout?", Subtitle: proto.String("5 sources × 2.50"),
			Items: []*switchboardv1.AgentWidgetItem{{Id: "quote", Label: "12.50 EUR", Description: proto.String("5 sources × 2.50"),
				Actions: []string{"approve", "decline"}}},
			Layout: proto.String("vertical"),
		},
	}
}

func storeExecutionFixtures() []fixture {
	return []fixture{
		single("ExecuteStoreAgentResponse", "full", &switchboardv1.ExecuteStoreAgentResponse{
			ExecutionId: "ckx3a0a1b0000qzrmsexec01", AgentId: "ckx3a0a1b0000qzrmstagent1", Status: "completed",
			Output: proto.String("Three sources:\n1. \"Primary\""), ResponseTimeMs: proto.Int32(1834),
			IsOwnAgent: false, TaskOrigin: "marketplace", IsolationMode: "output_only", PaymentHoldStatus: "held",
			Revenue:      &switchboardv1.StoreRevenue{Gross: 2.5, DeveloperPayout: 2.13, PlatformFee: 0.37, FeePercent: 15, Currency: "EUR"},
			PricingPhase: proto.String("approved"),
		}),
		single("ExecuteStoreAgentResponse", "queued", &switchboardv1.ExecuteStoreAgentResponse{
			ExecutionId: "ckx3a0a1b0000qzrmsexec02", AgentId: "ckx3a0a1b0000qzrmstagent1", Status: "queued",
			TaskOrigin: "owner", IsolationMode: "full_access", PaymentHoldStatus: "none", IsOwnAgent: true,
			QueuePosition: proto.Int32(3), QueuedAt: tsExecQueued,
		}),
		single("ExecuteStoreAgentResponse", "failed", &switchboardv1.ExecuteStoreAgentResponse{
			ExecutionId: "ckx3a0a1b0000qzrmsexec03", AgentId: "ckx3a0a1b0000qzrmstagent1", Status: "timeout",
			ResponseTimeMs: proto.Int32(30000), TaskOrigin: "marketplace", IsolationMode: "output_only",
			PaymentHoldStatus: "released", Error: proto.String("the agent did not answer in time (30s)"),
		}),
		single("ExecuteStoreAgentResponse", "quoted", quotedExecution()),
		single("DecideStoreQuoteResponse", "full", &switchboardv1.DecideStoreQuoteResponse{Execution: quotedExecution()}),
		single("DecideStoreQuoteResponse", "sparse", &switchboardv1.DecideStoreQuoteResponse{Execution: &switchboardv1.ExecuteStoreAgentResponse{
			ExecutionId: "ckx3a0a1b0000qzrmsexec04", AgentId: "ckx3a0a1b0000qzrmstagent1", Status: "failed",
			TaskOrigin: "marketplace", IsolationMode: "output_only", PaymentHoldStatus: "none",
			PricingPhase: proto.String("declined"), Error: proto.String("the requester declined the quoted price"),
		}}),
		single("DeliverStoreCallbackResponse", "full", &switchboardv1.DeliverStoreCallbackResponse{
			ExecutionId: "ckx3a0a1b0000qzrmsexec01", Status: "completed", Received: true, ReceivedAt: tsExecDone,
		}),
		single("GetStoreCallbackResponse", "full", &switchboardv1.GetStoreCallbackResponse{
			ExecutionId: "ckx3a0a1b0000qzrmsexec01", Status: "completed", Received: true, ReceivedAt: tsExecDone,
		}),
		single("GetStoreCallbackResponse", "sparse", &switchboardv1.GetStoreCallbackResponse{
			ExecutionId: "ckx3a0a1b0000qzrmsexec02", Status: "running",
		}),
		single("ListStoreExecutionsResponse", "full", &switchboardv1.ListStoreExecutionsResponse{
			Executions: []*switchboardv1.ListedStoreExecution{
				{Execution: fullExecution(), AgentName: "Research Scout"},
				{Execution: sparseExecution(), AgentName: "Chart Maker"},
			},
			Pagination: &switchboardv1.Pagination{Total: 7, Limit: 2, Offset: 2, HasMore: true},
		}),
		single("ListStoreExecutionsResponse", "sparse", &switchboardv1.ListStoreExecutionsResponse{
			Executions: []*switchboardv1.ListedStoreExecution{}, Pagination: &switchboardv1.Pagination{Limit: 50},
		}),
	}
}
