package queue

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func timestamp(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t) }

// toProto is the agent representation of an item: empty values are absent.
func toProto(it *ent.QueueItem) *switchboardv1.QueueItem {
	out := &switchboardv1.QueueItem{
		Id: it.ID, Type: string(it.Type), Title: it.Title, Description: nonEmpty(it.Description),
		Priority: string(it.Priority), Status: string(it.Status), Source: nonEmpty(it.Source),
		TaskOrigin: string(it.TaskOrigin), UserId: &it.UserID, ProjectId: nonEmpty(it.ProjectID),
		TeamId: nonEmpty(it.TeamID), CardId: nonEmpty(it.CardID), ParentTaskId: nonEmpty(it.ParentTaskID),
		DependsOn: nonEmpty(it.DependsOn), SubtaskOrder: it.SubtaskOrder,
		RequesterEmail: nonEmpty(it.RequesterEmail), RequesterName: nonEmpty(it.RequesterName),
		ExecutionId: nonEmpty(it.ExecutionID), CallbackUrl: nonEmpty(it.CallbackURL),
		SourceInstanceName: nonEmpty(it.SourceInstanceName), ProjectRequestId: nonEmpty(it.ProjectRequestID),
		CreatedAt: timestamp(it.CreatedAt), UpdatedAt: timestamp(it.UpdatedAt),
	}
	if it.Metadata != "" {
		out.Metadata = &it.Metadata
	}
	return out
}

// nonEmpty keeps "empty in the data model" absent on the wire.
func nonEmpty(s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	return s
}
