package network

import (
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/handle"
)

func SharedProto(j *ent.Job) *switchboardv1.SharedJob {
	return &switchboardv1.SharedJob{
		Id: j.ID, Title: j.Title, Description: j.Description, TaskType: string(j.TaskType), Urgency: string(j.Urgency),
		Compensation: Deref(j.Compensation), RequiredSkills: OrEmpty(j.RequiredSkills), EstimatedHours: j.EstimatedHours,
		Status: string(j.Status), PostedAt: timestamppb.New(j.CreatedAt),
	}
}

func JobProto(j *ent.Job) *switchboardv1.Job {
	out := &switchboardv1.Job{
		Id: j.ID, Origin: string(j.Origin), Title: j.Title, Description: j.Description, TaskType: string(j.TaskType),
		Urgency: string(j.Urgency), Compensation: j.Compensation, RequiredSkills: OrEmpty(j.RequiredSkills),
		EstimatedHours: j.EstimatedHours, Status: string(j.Status), ConnectionIds: OrEmpty(j.SharedWith),
		ConnectionId: j.ConnectionID, FromUserName: j.FromUserName, CreatedAt: timestamppb.New(j.CreatedAt),
	}
	if j.FromUserEmail != nil && j.FromInstanceURL != nil {
		from := handle.Peer(*j.FromUserEmail, *j.FromInstanceURL)
		out.From = &from
	}
	if j.ClosedAt != nil {
		out.ClosedAt = timestamppb.New(*j.ClosedAt)
	}
	return out
}
