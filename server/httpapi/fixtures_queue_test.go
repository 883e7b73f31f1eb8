package httpapi

import (
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, queueFixtures) }

func fullQueueItem() *switchboardv1.QueueItem {
	return &switchboardv1.QueueItem{
		Id: "ckq0item0000full", Type: "task", Title: "Draft the investor update",
		Description: proto.String("Pull numbers from the board"), Priority: "urgent", Status: "in_progress",
		Source: proto.String("scout"), Metadata: proto.String(`{"displaySummary":"Pull numbers"}`), TaskOrigin: "owner",
		UserId: proto.String("ckx1f0a9z0000qzrmn831i7rn"), ProjectId: proto.String("proj-1"), TeamId: proto.String("team-1"),
		CardId: proto.String("ckcard000000001"), ParentTaskId: proto.String("ckq0parent"), DependsOn: proto.String("ckq0before"),
		SubtaskOrder: proto.Int32(2), RequesterEmail: proto.String("grace@example.com"), RequesterName: proto.String("Grace"),
		ExecutionId: proto.String("ckexec0001"), CallbackUrl: proto.String("https://peer.example/cb"),
		SourceInstanceName: proto.String("peer"), ProjectRequestId: proto.String("pr-9"),
		CreatedAt: tsCreated, UpdatedAt: tsUsed,
	}
}

func sparseQueueItem() *switchboardv1.QueueItem {
	return &switchboardv1.QueueItem{
		Id: "ckq0item0000sparse", Type: "task", Title: "Call back", Priority: "medium",
		Status: "pending_confirmation", TaskOrigin: "owner", CreatedAt: tsCreated, UpdatedAt: tsCreated,
	}
}

func queueFixtures() []fixture {
	page := &switchboardv1.Pagination{Total: 7, Limit: 2, Offset: 0, HasMore: true}
	return []fixture{
		single("ListQueueItemsResponse", "full", &switchboardv1.ListQueueItemsResponse{Success: true,
			Data: &switchboardv1.QueueItemPage{Items: []*switchboardv1.QueueItem{fullQueueItem(), sparseQueueItem()}, Pagination: page}}),
		single("ListQueueItemsResponse", "sparse", &switchboardv1.ListQueueItemsResponse{Success: true,
			Data: &switchboardv1.QueueItemPage{Items: []*switchboardv1.QueueItem{}, Pagination: &switchboardv1.Pagination{Limit: 50}}}),
		single("GetQueueItemResponse", "full", &switchboardv1.GetQueueItemResponse{Item: fullQueueItem()}),
		single("GetQueueItemResponse", "sparse", &switchboardv1.GetQueueItemResponse{Item: sparseQueueItem()}),
		single("CreateQueueItemResponse", "sparse", &switchboardv1.CreateQueueItemResponse{Item: sparseQueueItem()}),
		single("UpdateQueueItemResponse", "full", &switchboardv1.UpdateQueueItemResponse{Item: fullQueueItem()}),
		single("DeleteQueueItemResponse", "sparse", &switchboardv1.DeleteQueueItemResponse{Item: sparseQueueItem()}),
		single("ConfirmQueueItemResponse", "approve", &switchboardv1.ConfirmQueueItemResponse{Item: sparseQueueItem(),
			Message: `"Call back" approved and added to queue`}),
		// Reject answers only the message, on both transports.
		single("ConfirmQueueItemResponse", "reject", &switchboardv1.ConfirmQueueItemResponse{Message: `"Call back" rejected and removed`}),
		single("ReportQueueResultResponse", "full", &switchboardv1.ReportQueueResultResponse{Item: fullQueueItem(), AutoDispatched: true}),
		single("UpdateQueueItemStatusResponse", "sparse", &switchboardv1.UpdateQueueItemStatusResponse{Item: sparseQueueItem()}),
		single("GetQueueResultResponse", "full", &switchboardv1.GetQueueResultResponse{Result: "Found 3 sources",
			Status: "done_today", ReportedBy: proto.String("Scout"), CompletedAt: tsUsed}),
		single("GetQueueResultResponse", "sparse", &switchboardv1.GetQueueResultResponse{Result: "ok", Status: "done_today", CompletedAt: tsUsed}),
		single("ListActivityResponse", "full", &switchboardv1.ListActivityResponse{Success: true,
			Data: []*switchboardv1.ActivityEntry{{Id: "ckact1", Action: "queue_added", Actor: "Scout",
				Summary: `Queued "Call back" (pending_confirmation)`, CreatedAt: tsCreated,
				Category: proto.String("queue"), CardId: proto.String("ckcard000000001")}},
			NextCursor: proto.String("ckact1")}),
		single("ListActivityResponse", "sparse", &switchboardv1.ListActivityResponse{Success: true, Data: []*switchboardv1.ActivityEntry{}}),
	}
}
