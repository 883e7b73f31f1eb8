package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, reviewFixtures) }

// reviewFixtures pin StoreReviewService's answers (document 2, "Execution
// status and review", "Agent store": lifecycle and agent-quality).
func reviewFixtures() []fixture {
	reviewed := func(status string) *switchboardv1.StoreExecution {
		e := fullExecution()
		e.ReviewStatus = proto.String(status)
		e.ReviewedAt = tsExecDone
		return e
	}
	denied := reviewed("denied")
	denied.DenialReason, denied.DenialCategory = proto.String("Missed the brief"), proto.String("off_topic")
	denied.PaymentHoldStatus = "released"
	requeued := sparseExecution()
	requeued.Status, requeued.TaskOrigin, requeued.IsOwnAgent = "queued", "marketplace", false
	requeued.QueuePosition, requeued.QueuedAt = proto.Int32(3), tsExecQueued
	return []fixture{
		single("StoreLifecycleResponse", "confirm", &switchboardv1.StoreLifecycleResponse{
			Action: "confirm", Execution: reviewed("confirmed"),
			Quality: &switchboardv1.ExecutionQuality{Relevance: proto.Int32(5), Coherence: proto.Int32(4), Completeness: proto.Int32(3)},
		}),
		single("StoreLifecycleResponse", "confirm_sparse", &switchboardv1.StoreLifecycleResponse{
			Action: "confirm", Execution: reviewed("confirmed"), Quality: &switchboardv1.ExecutionQuality{},
		}),
		single("StoreLifecycleResponse", "deny", &switchboardv1.StoreLifecycleResponse{
			Action: "deny", Execution: denied, Requeued: requeued,
		}),
		single("StoreLifecycleResponse", "sweep", &switchboardv1.StoreLifecycleResponse{Action: "sweep", Confirmed: proto.Int32(2)}),
		single("GetStoreReputationResponse", "full", &switchboardv1.GetStoreReputationResponse{Reputation: &switchboardv1.UserReputation{
			TaskEconomyRole: "both", ReputationScore: 67.5, AvgRating: proto.Float64(4.5), AvgProviderRating: proto.Float64(4.5),
			AvgClientRating: proto.Float64(4), ReviewsReceived: 4, ReviewsGiven: 1,
			UpdatedAt: timestamppb.New(time.Date(2025, 5, 8, 9, 0, 0, 0, time.UTC))}}),
		single("GetStoreReputationResponse", "sparse", &switchboardv1.GetStoreReputationResponse{Reputation: &switchboardv1.UserReputation{
			TaskEconomyRole: "client", ReviewsGiven: 1, UpdatedAt: timestamppb.New(time.Date(2025, 5, 8, 9, 0, 0, 0, time.UTC))}}),
		single("GetStoreReputationResponse", "none", &switchboardv1.GetStoreReputationResponse{}),
		single("RecordAgentQualityResponse", "full", &switchboardv1.RecordAgentQualityResponse{
			Signal: &switchboardv1.AgentQualitySignal{Id: "ckx9q0a1b0000qzrmsignal01", AgentId: "ckx3a0a1b0000qzrmstagent1",
				Signal: "user_edited", Weight: -0.3, Metadata: proto.String(`{"edits":2}`),
				CreatedAt: timestamppb.New(time.Date(2025, 5, 8, 9, 0, 0, 0, time.UTC))},
			Quality: &switchboardv1.AgentQuality{AgentId: "ckx3a0a1b0000qzrmstagent1", Score: 63.3, SignalCount: 3},
		}),
		single("RecordAgentQualityResponse", "sparse", &switchboardv1.RecordAgentQualityResponse{
			Signal: &switchboardv1.AgentQualitySignal{Id: "ckx9q0a1b0000qzrmsignal02", AgentId: "ckx3a0a1b0000qzrmstagent1",
				Signal: "payment_completed", Weight: 1, CreatedAt: timestamppb.New(time.Date(2025, 5, 8, 9, 0, 0, 0, time.UTC))},
			Quality: &switchboardv1.AgentQuality{AgentId: "ckx3a0a1b0000qzrmstagent1", Score: 100, SignalCount: 1},
		}),
	}
}
