package httpapi

import (
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, federationExecutionFixtures) }

// federationExecutionFixtures cover hub-to-spoke execution: the spoke's
// answer to Execute and the hub's answer to a delivered result.
func federationExecutionFixtures() []fixture {
	return []fixture{
		single("FederationExecuteResponse", "accepted", &switchboardv1.FederationExecuteResponse{
			Accepted: true, SpokeExecutionId: proto.String("ckx5f0a1b0000qzrmexecaa01")}),
		single("FederationExecuteResponse", "refused", &switchboardv1.FederationExecuteResponse{
			Reason: proto.String("no listing \"ckx5f0a1b0000qzrmagentaa9\" on this instance")}),
		single("DeliverFederationResultResponse", "received", &switchboardv1.DeliverFederationResultResponse{
			Received: true, Status: "completed"}),
	}
}
