package network

import (
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/internal/money"
)

// JobPosted is published in the unit of work that posts a job, so that an
// auction's end reaches the economy's timer (server/economy).
type JobPosted struct {
	Job *ent.Job
}

// JobClosed is published in the unit of work that closes a posted job by
// its owner's hand (CloseJob), so that what waits on the job (its pending
// applications, server/economy) learns it closed unawarded.
type JobClosed struct {
	Job *ent.Job
}

func SharedProto(j *ent.Job) *switchboardv1.SharedJob {
	out := &switchboardv1.SharedJob{
		Id: j.ID, Title: j.Title, Description: j.Description, TaskType: string(j.TaskType), Urgency: string(j.Urgency),
		Compensation: Deref(j.Compensation), RequiredSkills: OrEmpty(j.RequiredSkills), EstimatedHours: j.EstimatedHours,
		Status: string(j.Status), PostedAt: timestamppb.New(j.CreatedAt), Mode: string(j.Mode),
		MaxPriceCents: cents(j.MaxPriceCents),
	}
	if j.ClosesAt != nil {
		out.ClosesAt = timestamppb.New(*j.ClosesAt)
	}
	return out
}

func JobProto(j *ent.Job) *switchboardv1.Job {
	out := &switchboardv1.Job{
		Id: j.ID, Origin: string(j.Origin), Title: j.Title, Description: j.Description, TaskType: string(j.TaskType),
		Urgency: string(j.Urgency), Compensation: j.Compensation, RequiredSkills: OrEmpty(j.RequiredSkills),
		EstimatedHours: j.EstimatedHours, Status: string(j.Status), ConnectionIds: OrEmpty(j.SharedWith),
		ConnectionId: j.ConnectionID, FromUserName: j.FromUserName, CreatedAt: timestamppb.New(j.CreatedAt),
		Mode: string(j.Mode), MaxPriceCents: cents(j.MaxPriceCents), AwardedApplicationId: j.AwardedApplicationID,
		ContractId: j.ContractID,
	}
	if j.ClosesAt != nil {
		out.ClosesAt = timestamppb.New(*j.ClosesAt)
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

// cents is an optional amount as the contract's int32 (reconciliation 18:
// cents are JSON integers); amounts are bounded to 10^8 where they enter.
func cents(c *money.Cents) *int32 {
	if c == nil {
		return nil
	}
	v := int32(*c) //nolint:gosec // bounded at the boundary
	return &v
}
