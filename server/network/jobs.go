package network

import (
	"context"
	"slices"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/job"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/handle"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
)

// The job board (RULINGS "The operator network": Jobs; document 2,
// job_post): the operator posts jobs and publishes them to connections;
// peers push theirs in (POST /api/federation/jobs) and read the ones shared
// with them (GET /api/federation/jobs).

// PostJob posts a job and publishes it to the chosen active connections
// (all when none are named; a named one that is not the caller's active
// connection is 404 and nothing is posted).
func (s *Operator) PostJob(ctx context.Context, req *switchboardv1.PostJobRequest) (*switchboardv1.PostJobResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.GetTitle()) == "" || strings.TrimSpace(req.GetDescription()) == "" {
		return nil, apperr.Invalid("title and description are required")
	}
	targets, err := s.jobTargets(ctx, p.UserID, req.GetConnectionIds())
	if err != nil {
		return nil, err
	}
	var w switchState
	if len(targets) > 0 {
		if w, err = s.core.on(ctx); err != nil {
			return nil, err
		}
	}
	c := s.core.DB.Job.Create().SetUserID(p.UserID).SetOrigin(job.OriginPosted).SetTitle(req.GetTitle()).
		SetDescription(req.GetDescription()).SetRequiredSkills(nonEmpty(req.GetRequiredSkills())).
		SetNillableCompensation(optional(req.GetCompensation())).SetNillableEstimatedHours(req.EstimatedHours).
		SetSharedWith(lists.Map(targets, func(c *ent.NetworkConnection) string { return c.ID }))
	if req.GetTaskType() != "" {
		c.SetTaskType(job.TaskType(req.GetTaskType()))
	}
	if req.GetUrgency() != "" {
		c.SetUrgency(job.Urgency(req.GetUrgency()))
	}
	row, err := c.Save(ctx)
	if err != nil {
		return nil, err
	}
	deliveries := s.publish(ctx, w, row, targets)
	return &switchboardv1.PostJobResponse{Job: jobProto(row), Deliveries: deliveries}, nil
}

// jobTargets are the named active connections of the caller, or all of
// them when none are named.
func (s *Operator) jobTargets(ctx context.Context, userID string, ids []string) ([]*ent.NetworkConnection, error) {
	q := s.core.DB.NetworkConnection.Query().Where(networkconnection.UserID(userID), networkconnection.StatusEQ(networkconnection.StatusActive))
	if len(ids) == 0 {
		rows, err := q.Order(ent.Asc(networkconnection.FieldCreatedAt), ent.Asc(networkconnection.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
		return rows, nil
	}
	ids = nonEmpty(ids)
	rows, err := q.Where(networkconnection.IDIn(ids...)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if !slices.ContainsFunc(rows, func(c *ent.NetworkConnection) bool { return c.ID == id }) {
			return nil, apperr.NotFound("no active connection %q", id)
		}
	}
	slices.SortFunc(rows, func(a, b *ent.NetworkConnection) int {
		return slices.Index(ids, a.ID) - slices.Index(ids, b.ID)
	})
	return rows, nil
}

// publish hands the job to each target's peer, one after the other; a
// failure is reported, not fatal (the peer can still read the job).
func (s *Operator) publish(ctx context.Context, w switchState, row *ent.Job, targets []*ent.NetworkConnection) []*switchboardv1.JobDelivery {
	out := make([]*switchboardv1.JobDelivery, 0, len(targets))
	shared := sharedProto(row)
	for _, c := range targets {
		d := &switchboardv1.JobDelivery{ConnectionId: c.ID}
		err := admit(w, c.PeerInstanceURL)
		if err == nil && c.PeerTokenSealed == nil {
			err = apperr.IllegalMove("connection %s has no token of its peer", c.ID)
		}
		if err == nil {
			d.Delivery, err = s.core.toPeer(ctx, row.UserID, c, EventJob, switchboardv1connect.NetworkExchangePeerServiceReceiveJobProcedure,
				&switchboardv1.ReceiveJobRequest{Job: shared}, &switchboardv1.ReceiveJobResponse{})
		}
		if err != nil {
			msg := apperr.From(err).Message
			d.Error = &msg
			s.core.Logger.WarnContext(ctx, "network: a job did not reach a peer", "job", row.ID, "connection", c.ID, "error", err)
		}
		d.Delivered = d.Delivery == deliveryDelivered
		out = append(out, d)
	}
	return out
}

// ListJobs pages the caller's board, newest first.
func (s *Operator) ListJobs(ctx context.Context, req *switchboardv1.ListJobsRequest) (*switchboardv1.ListJobsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	q := s.core.DB.Job.Query().Where(job.UserID(p.UserID))
	if req.GetOrigin() != "" {
		q.Where(job.OriginEQ(job.Origin(req.GetOrigin())))
	}
	if req.GetStatus() != "" {
		q.Where(job.StatusEQ(job.Status(req.GetStatus())))
	}
	if req.GetTaskType() != "" {
		q.Where(job.TaskTypeEQ(job.TaskType(req.GetTaskType())))
	}
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := q.Order(ent.Desc(job.FieldCreatedAt), ent.Desc(job.FieldID)).Limit(pg.Limit).Offset(pg.Offset).All(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListJobsResponse{Jobs: lists.Map(rows, jobProto), Pagination: pg.Of(total, len(rows))}, nil
}

// CloseJob closes one of the caller's posted jobs and tells the connections
// it was shared with; a received job is the poster's to close (400).
func (s *Operator) CloseJob(ctx context.Context, req *switchboardv1.CloseJobRequest) (*switchboardv1.CloseJobResponse, error) {
	row, err := callerRow(ctx, "job", req.GetId(), func(userID string) (*ent.Job, error) {
		return s.core.DB.Job.Query().Where(job.ID(req.GetId()), job.UserID(userID)).Only(ctx)
	})
	if err != nil {
		return nil, err
	}
	if row.Origin != job.OriginPosted {
		return nil, apperr.IllegalMove("job %s was received from a connection: only its poster closes it", row.ID)
	}
	if row.Status == job.StatusClosed {
		return &switchboardv1.CloseJobResponse{Job: jobProto(row)}, nil
	}
	row, err = row.Update().SetStatus(job.StatusClosed).SetClosedAt(s.core.now()).Save(ctx)
	if err != nil {
		return nil, err
	}
	if w, err := s.core.on(ctx); err == nil && len(row.SharedWith) > 0 {
		targets, err := s.core.DB.NetworkConnection.Query().Where(networkconnection.UserID(row.UserID),
			networkconnection.StatusEQ(networkconnection.StatusActive), networkconnection.IDIn(row.SharedWith...)).All(ctx)
		if err == nil {
			s.publish(ctx, w, row, targets)
		}
	}
	return &switchboardv1.CloseJobResponse{Job: jobProto(row)}, nil
}

// ReceiveJob takes a peer's job into the local user's board; the same job
// again (by the poster's id, per connection) updates it.
func (s *Peers) ReceiveJob(ctx context.Context, req *switchboardv1.ReceiveJobRequest) (*switchboardv1.ReceiveJobResponse, error) {
	j := req.GetJob()
	var body error
	if j == nil || strings.TrimSpace(j.GetId()) == "" || strings.TrimSpace(j.GetTitle()) == "" {
		body = apperr.Invalid("job with its id and title is required")
	}
	row, err := s.core.fromActivePeer(ctx, "jobs", body)
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
				SetRequiredSkills(nonEmpty(j.GetRequiredSkills())).SetNillableCompensation(optional(j.GetCompensation())).
				SetNillableEstimatedHours(j.EstimatedHours)
			setJobEnums(j, up.Mutation())
			if j.GetStatus() == string(job.StatusClosed) && prior.ClosedAt == nil {
				up.SetClosedAt(s.core.now())
			}
			return prior.ID, up.Exec(ctx)
		}
		c := tx.Job.Create().SetUserID(row.UserID).SetOrigin(job.OriginReceived).SetTitle(j.GetTitle()).
			SetDescription(j.GetDescription()).SetRequiredSkills(nonEmpty(j.GetRequiredSkills())).
			SetNillableCompensation(optional(j.GetCompensation())).SetNillableEstimatedHours(j.EstimatedHours).
			SetConnectionID(row.ID).SetPeerJobID(j.GetId()).SetFromUserEmail(row.PeerUserEmail).
			SetFromUserName(row.PeerUserName).SetFromInstanceURL(row.PeerInstanceURL)
		setJobEnums(j, c.Mutation())
		if j.GetStatus() == string(job.StatusClosed) {
			c.SetClosedAt(s.core.now())
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

// setJobEnums sets the enumerated fields a shared job gives.
func setJobEnums(j *switchboardv1.SharedJob, m *ent.JobMutation) {
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
func (s *Peers) ListSharedJobs(ctx context.Context, _ *switchboardv1.ListSharedJobsRequest) (*switchboardv1.ListSharedJobsResponse, error) {
	row, err := s.core.fromActivePeer(ctx, "jobs", nil)
	if err != nil {
		return nil, err
	}
	return s.sharedJobs(ctx, row)
}

// sharedJobs are the local user's open posted jobs shared with the
// connection, newest first (ListSharedJobs, and job_browse for a trusted
// peer).
func (s *Peers) sharedJobs(ctx context.Context, row *ent.NetworkConnection) (*switchboardv1.ListSharedJobsResponse, error) {
	rows, err := s.core.DB.Job.Query().Where(job.UserID(row.UserID), job.OriginEQ(job.OriginPosted), job.StatusEQ(job.StatusOpen)).
		Order(ent.Desc(job.FieldCreatedAt), ent.Desc(job.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &switchboardv1.ListSharedJobsResponse{Jobs: []*switchboardv1.SharedJob{}}
	for _, j := range rows {
		if slices.Contains(j.SharedWith, row.ID) {
			out.Jobs = append(out.Jobs, sharedProto(j))
		}
	}
	return out, nil
}

func sharedProto(j *ent.Job) *switchboardv1.SharedJob {
	return &switchboardv1.SharedJob{
		Id: j.ID, Title: j.Title, Description: j.Description, TaskType: string(j.TaskType), Urgency: string(j.Urgency),
		Compensation: deref(j.Compensation), RequiredSkills: orEmpty(j.RequiredSkills), EstimatedHours: j.EstimatedHours,
		Status: string(j.Status), PostedAt: timestamppb.New(j.CreatedAt),
	}
}

func jobProto(j *ent.Job) *switchboardv1.Job {
	out := &switchboardv1.Job{
		Id: j.ID, Origin: string(j.Origin), Title: j.Title, Description: j.Description, TaskType: string(j.TaskType),
		Urgency: string(j.Urgency), Compensation: j.Compensation, RequiredSkills: orEmpty(j.RequiredSkills),
		EstimatedHours: j.EstimatedHours, Status: string(j.Status), ConnectionIds: orEmpty(j.SharedWith),
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
