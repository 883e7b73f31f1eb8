package httpapi

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, learningFixtures) }

func fullSignal() *switchboardv1.BehaviorSignal {
	ctx, _ := structpb.NewStruct(map[string]any{"queueItemId": "ckx2q0c1a0000qzrmqueueitem", "view": "queue"})
	return &switchboardv1.BehaviorSignal{Id: "ckx2b0c1a0000qzrmsignal001", Action: "approve", Context: ctx, Hour: 9,
		DayOfWeek: 2, Duration: proto.Int64(1500), CreatedAt: tsCreated}
}

func sparseSignal() *switchboardv1.BehaviorSignal {
	return &switchboardv1.BehaviorSignal{Id: "ckx2b0c2b0001qzrmsignal002", Action: "open_view",
		Context: &structpb.Struct{Fields: map[string]*structpb.Value{}}, CreatedAt: tsCreated}
}

func fullLearning() *switchboardv1.Learning {
	return &switchboardv1.Learning{Id: "ckx2l0c1a0000qzrmlearning1", Category: "workflow",
		Content: "Approves task items without editing them: consider auto-approving them", Confidence: 0.67,
		Source: "analysis", Evidence: 10, Dismissed: true, SeenAt: tsUsed, CreatedAt: tsCreated, UpdatedAt: tsUsed}
}

func sparseLearning() *switchboardv1.Learning {
	return &switchboardv1.Learning{Id: "ckx2l0c2b0001qzrmlearning2", Category: "behavior", Content: "Works mornings",
		Confidence: 1, Source: "manual", CreatedAt: tsCreated, UpdatedAt: tsCreated}
}

func fullWorkflow() *switchboardv1.Workflow {
	return &switchboardv1.Workflow{Id: "wf_0123456789abcdef", Actions: []string{"open_view", "approve", "move"},
		Users: 3, Count: 7, Reviewed: true, ReviewedAt: tsUsed}
}

func sparseWorkflow() *switchboardv1.Workflow {
	return &switchboardv1.Workflow{Id: "wf_fedcba9876543210", Actions: []string{"a", "b", "c"}, Users: 3, Count: 3}
}

// learningFixtures covers BehaviorSignalService, LearningService and
// WorkflowService.
func learningFixtures() []fixture {
	byHour, byDay := make([]int32, 24), []int32{0, 1, 12, 0, 0, 2, 0}
	byHour[9], byHour[14], byHour[20] = 12, 1, 2
	return []fixture{
		single("RecordBehaviorSignalResponse", "full", &switchboardv1.RecordBehaviorSignalResponse{Signal: fullSignal()}),
		single("RecordBehaviorSignalResponse", "sparse", &switchboardv1.RecordBehaviorSignalResponse{Signal: sparseSignal()}),
		single("ListBehaviorSignalsResponse", "full", &switchboardv1.ListBehaviorSignalsResponse{
			Signals:    []*switchboardv1.BehaviorSignal{fullSignal(), sparseSignal()},
			Pagination: &switchboardv1.Pagination{Total: 3, Limit: 2, HasMore: true},
		}),
		single("ListBehaviorSignalsResponse", "sparse", &switchboardv1.ListBehaviorSignalsResponse{
			Signals: []*switchboardv1.BehaviorSignal{}, Pagination: &switchboardv1.Pagination{Limit: 50},
		}),
		single("ListBehaviorSignalsResponse", "aggregate", &switchboardv1.ListBehaviorSignalsResponse{
			TotalSignals: proto.Int32(15), ByAction: map[string]int32{"approve": 12, "open_view": 3},
			ByHour: byHour, ByDay: byDay, PeakHour: proto.Int32(9), PeakDay: proto.Int32(2),
		}),
		single("ListBehaviorSignalsResponse", "empty_aggregate", &switchboardv1.ListBehaviorSignalsResponse{
			TotalSignals: proto.Int32(0), ByAction: map[string]int32{}, ByHour: make([]int32, 24), ByDay: make([]int32, 7),
			PeakHour: proto.Int32(0), PeakDay: proto.Int32(0),
		}),
		single("ListLearningsResponse", "full", &switchboardv1.ListLearningsResponse{Learnings: []*switchboardv1.Learning{fullLearning(), sparseLearning()}}),
		single("ListLearningsResponse", "sparse", &switchboardv1.ListLearningsResponse{Learnings: []*switchboardv1.Learning{}}),
		single("CreateLearningResponse", "full", &switchboardv1.CreateLearningResponse{Learning: fullLearning()}),
		single("CreateLearningResponse", "sparse", &switchboardv1.CreateLearningResponse{Learning: sparseLearning()}),
		single("UpdateLearningResponse", "full", &switchboardv1.UpdateLearningResponse{Learning: fullLearning()}),
		single("UpdateLearningResponse", "sparse", &switchboardv1.UpdateLearningResponse{Learning: sparseLearning()}),
		single("DeleteLearningResponse", "full", &switchboardv1.DeleteLearningResponse{Learning: fullLearning()}),
		single("DeleteLearningResponse", "sparse", &switchboardv1.DeleteLearningResponse{Learning: sparseLearning()}),
		single("AnalyzeLearningsResponse", "full", &switchboardv1.AnalyzeLearningsResponse{
			Created: []*switchboardv1.Learning{sparseLearning()}, Refreshed: []*switchboardv1.Learning{fullLearning()}, SignalsAnalyzed: 18,
		}),
		single("AnalyzeLearningsResponse", "sparse", &switchboardv1.AnalyzeLearningsResponse{
			Created: []*switchboardv1.Learning{}, Refreshed: []*switchboardv1.Learning{},
		}),
		single("ListWorkflowsResponse", "full", &switchboardv1.ListWorkflowsResponse{Workflows: []*switchboardv1.Workflow{fullWorkflow(), sparseWorkflow()}}),
		single("ListWorkflowsResponse", "sparse", &switchboardv1.ListWorkflowsResponse{Workflows: []*switchboardv1.Workflow{}}),
		single("ReviewWorkflowResponse", "full", &switchboardv1.ReviewWorkflowResponse{Workflow: fullWorkflow()}),
		single("ReviewWorkflowResponse", "sparse", &switchboardv1.ReviewWorkflowResponse{Workflow: sparseWorkflow()}),
	}
}
