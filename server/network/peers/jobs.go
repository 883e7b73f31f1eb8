package peers

import (
	"context"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/job"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/network"
)

// ReceiveJob takes a peer's job into the local user's board; the same job
// again (by the poster's id, per connection) updates it.
func (s *Service) ReceiveJob(ctx context.Context, req *switchboardv1.ReceiveJobRequest) (*switchboardv1.ReceiveJobResponse, error) {
	j := req.GetJob()
	var body error
	if j == nil || strings.TrimSpace(j.GetId()) == "" || strings.TrimSpace(j.GetTitle()) == "" {
		body = apperr.Invalid("job with its id and title is required")
	}
	row, err := s.core.FromActivePeer(ctx, "jobs", body)
	if err != nil {
		return nil, err
	}
	id, err := db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (string, error) {
		prior, err := tx.Job.Query().Where(job.ConnectionID(row.ID), job.PeerJobID(j.GetId())).Only(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return "", err
		}
		if prior != nil {
			up := prior.Update().SetTitle(j.GetTitle()).SetDescription(j.GetDescription()).
				SetRequiredSkills(network.NonEmpty(j.GetRequiredSkills())).SetNillableCompensation(network.Optional(j.GetCompensation())).
				SetNillableEstimatedHours(j.EstimatedHours)
			setJobEnums(j, up.Mutation())
			if j.GetStatus() == string(job.StatusClosed) && prior.ClosedAt == nil {
				up.SetClosedAt(s.core.NowUTC())
			}
			return prior.ID, up.Exec(ctx)
		}
		c := tx.Job.Create().SetUserID(row.UserID).SetOrigin(job.OriginReceived).SetTitle(j.GetTitle()).
			SetDescription(j.GetDescription()).SetRequiredSkills(network.NonEmpty(j.GetRequiredSkills())).
			SetNillableCompensation(network.Optional(j.GetCompensation())).SetNillableEstimatedHours(j.EstimatedHours).
			SetConnectionID(row.ID).SetPeerJobID(j.GetId()).SetFromUserEmail(row.PeerUserEmail).
			SetFromUserName(row.PeerUserName).SetFromInstanceURL(row.PeerInstanceURL)
		setJobEnums(j, c.Mutation())
		if j.GetStatus() == string(job.StatusClosed) {
			c.SetClosedAt(s.core.NowUTC())
		}
		made, err := c.Save(ctx)
		if err != nil {
			return "", err
		}
		return made.ID, nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ReceiveJobResponse{JobId: id}, nil
}

// setJobEnums sets the enumerated fields a shared job gives, and how it is
// given (an auction's end and maximum, which an applicant here is held to).
func setJobEnums(j *switchboardv1.SharedJob, m *ent.JobMutation) {
	if j.GetMode() != "" {
		m.SetMode(job.Mode(j.GetMode()))
	}
	if j.ClosesAt != nil {
		m.SetClosesAt(j.GetClosesAt().AsTime().UTC())
	}
	if j.MaxPriceCents != nil {
		m.SetMaxPriceCents(money.Cents(j.GetMaxPriceCents()))
	}
	if j.GetTaskType() != "" {
		m.SetTaskType(job.TaskType(j.GetTaskType()))
	}
	if j.GetUrgency() != "" {
		m.SetUrgency(job.Urgency(j.GetUrgency()))
	}
	if j.GetStatus() != "" {
		m.SetStatus(job.Status(j.GetStatus()))
	}
}

// ListSharedJobs answers the local user's open posted jobs shared with the
// calling connection, newest first.
func (s *Service) ListSharedJobs(ctx context.Context, _ *switchboardv1.ListSharedJobsRequest) (*switchboardv1.ListSharedJobsResponse, error) {
	row, err := s.core.FromActivePeer(ctx, "jobs", nil)
	if err != nil {
		return nil, err
	}
	return s.sharedJobs(ctx, row)
}

// sharedJobs are the local user's open posted jobs shared with the
// connection, newest first (ListSharedJobs, and job_browse for a trusted
// peer).
func (s *Service) sharedJobs(ctx context.Context, row *ent.NetworkConnection) (*switchboardv1.ListSharedJobsResponse, error) {
	rows, err := s.core.DB.Job.Query().Where(job.UserID(row.UserID), job.OriginEQ(job.OriginPosted), job.StatusEQ(job.StatusOpen)).
		Order(ent.Desc(job.FieldCreatedAt), ent.Desc(job.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListSharedJobsResponse{Jobs: []*switchboardv1.SharedJob{}}
	for _, j := range rows {
		if slices.Contains(j.SharedWith, row.ID) {
			out.Jobs = append(out.Jobs, network.SharedProto(j))
		}
	}
	return out, nil
}
