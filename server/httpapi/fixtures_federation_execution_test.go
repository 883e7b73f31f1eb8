package httpapi

import (
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, federationExecutionFixtures) }

// federationExecutionFixtures cover hub-to-spoke execution (the spoke's
// answer to Execute and the hub's answer to a delivered result) and the
// global store (the hub's answer to a spoke's execute, the spoke's to a
// delivery, and the hub's to a spoke user's review).
func federationExecutionFixtures() []fixture {
	confirmed := fullExecution()
	confirmed.TaskOrigin, confirmed.IsOwnAgent = "federation", false
	confirmed.ReviewStatus, confirmed.ReviewedAt, confirmed.PaymentHoldStatus = proto.String("confirmed"), tsExecDone, "captured"
	denied := fullExecution()
	denied.TaskOrigin, denied.IsOwnAgent = "federation", false
	denied.ReviewStatus, denied.ReviewedAt, denied.PaymentHoldStatus = proto.String("denied"), tsExecDone, "released"
	denied.DenialReason, denied.DenialCategory = proto.String("Missed the brief"), proto.String("off_topic")
	requeued := sparseExecution()
	requeued.Status, requeued.TaskOrigin, requeued.IsOwnAgent = "queued", "federation", false
	requeued.QueuePosition, requeued.QueuedAt = proto.Int32(1), tsExecQueued
	return []fixture{
		single("ReviewGlobalExecutionResponse", "confirm", &switchboardv1.ReviewGlobalExecutionResponse{
			Action: "confirm", Execution: confirmed, Quality: &switchboardv1.ExecutionQuality{Relevance: proto.Int32(5)}}),
		single("ReviewGlobalExecutionResponse", "deny", &switchboardv1.ReviewGlobalExecutionResponse{
			Action: "deny", Execution: denied, Requeued: requeued}),
		single("FederationSpokeServiceExecuteResponse", "accepted", &switchboardv1.FederationSpokeServiceExecuteResponse{
			Accepted: true, SpokeExecutionId: proto.String("ckx5f0a1b0000qzrmexecaa01")}),
		single("FederationSpokeServiceExecuteResponse", "refused", &switchboardv1.FederationSpokeServiceExecuteResponse{
			Reason: proto.String("no listing \"ckx5f0a1b0000qzrmagentaa9\" on this instance")}),
		single("DeliverFederationResultResponse", "received", &switchboardv1.DeliverFederationResultResponse{
			Received: true, Status: "completed"}),
		single("ExecuteGlobalListingResponse", "queued", &switchboardv1.ExecuteGlobalListingResponse{
			ExecutionId: "ckx5f0a1b0000qzrmexechub1", ListingId: "ckx5f0a1b0000qzrmagentaa9", ListingName: "Summariser",
			Status: "queued", QueuePosition: proto.Int32(2), PaymentHoldStatus: "none"}),
		single("ExecuteGlobalListingResponse", "running", &switchboardv1.ExecuteGlobalListingResponse{
			ExecutionId: "ckx5f0a1b0000qzrmexechub2", ListingId: "ckx5f0a1b0000qzrmagentaa9", ListingName: "Summariser",
			Status: "running", PaymentHoldStatus: "held"}),
		single("DeliverGlobalResultResponse", "received", &switchboardv1.DeliverGlobalResultResponse{
			Received: true, QueueItemId: "ckx5f0a1b0000qzrmqueueit1"}),
	}
}
