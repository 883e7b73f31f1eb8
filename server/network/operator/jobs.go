package operator

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/job"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/page"
)

// The job board (RULINGS "The operator network": Jobs; document 2,
// job_post): the operator posts jobs and publishes them to connections;
// peers push theirs in (POST /api/federation/jobs) and read the ones shared
// with them (GET /api/federation/jobs).

// PostJob posts a job and publishes it to the chosen active connections
// (all when none are named; a named one that is not the caller's active
// connection is 404 and nothing is posted).
func (s *Service) PostJob(ctx context.Context, req *switchboardv1.PostJobRequest) (*switchboardv1.PostJobResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.GetTitle()) == "" || strings.TrimSpace(req.GetDescription()) == "" {
		return nil, apperr.Invalid("title and description are required")
	}
	mode, closesAt, maxPrice, err := jobTerms(req, s.core.NowUTC())
	if err != nil {
		return nil, err
	}
	targets, err := s.jobTargets(ctx, p.UserID, req.GetConnectionIds())
	if err != nil {
		return nil, err
	}
	var w network.SwitchState
	if len(targets) > 0 {
		if w, err = s.core.SwitchOn(ctx); err != nil {
			return nil, err
		}
	}
	row, err := db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (*ent.Job, error) {
		c := tx.Job.Create().SetUserID(p.UserID).SetOrigin(job.OriginPosted).SetTitle(req.GetTitle()).
			SetDescription(req.GetDescription()).SetRequiredSkills(network.NonEmpty(req.GetRequiredSkills())).
			SetNillableCompensation(network.Optional(req.GetCompensation())).SetNillableEstimatedHours(req.EstimatedHours).
			SetSharedWith(lists.Map(targets, func(c *ent.NetworkConnection) string { return c.ID })).
			SetMode(mode).SetNillableClosesAt(closesAt).SetNillableMaxPriceCents(maxPrice)
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
		return row, tx.Publish(ctx, network.JobPosted{Job: row})
	})
	if err != nil {
		return nil, err
	}
	deliveries := s.publish(ctx, w, row, targets)
	return &switchboardv1.PostJobResponse{Job: network.JobProto(row), Deliveries: deliveries}, nil
}

// jobTerms are how a job is given (RULINGS "The task economy": Jobs):
// direct by default, which takes neither closesAt nor maxPriceCents; an
// auction needs both, closesAt in the future.
func jobTerms(req *switchboardv1.PostJobRequest, now time.Time) (job.Mode, *time.Time, *money.Cents, error) {
	if req.GetMode() != string(vocab.JobModeAuction) {
		if req.ClosesAt != nil || req.MaxPriceCents != nil {
			return "", nil, nil, apperr.Invalid("closesAt and maxPriceCents are an auction's: post the job with mode auction")
		}
		return job.ModeDirect, nil, nil, nil
	}
	if req.ClosesAt == nil || req.MaxPriceCents == nil {
		return "", nil, nil, apperr.Invalid("an auction needs closesAt and maxPriceCents")
	}
	if req.GetMaxPriceCents() <= 0 {
		return "", nil, nil, apperr.Invalid("maxPriceCents must be a positive whole number of cents")
	}
	closes := req.GetClosesAt().AsTime().UTC()
	if !closes.After(now) {
		return "", nil, nil, apperr.Invalid("closesAt must be in the future, and %s is not", closes.Format(time.RFC3339))
	}
	maxPrice := money.Cents(req.GetMaxPriceCents())
	return job.ModeAuction, &closes, &maxPrice, nil
}

// jobTargets are the named active connections of the caller, or all of
// them when none are named.
func (s *Service) jobTargets(ctx context.Context, userID string, ids []string) ([]*ent.NetworkConnection, error) {
	q := s.core.DB.NetworkConnection.Query().Where(networkconnection.UserID(userID), networkconnection.StatusEQ(networkconnection.StatusActive))
	if len(ids) == 0 {
		rows, err := q.Order(ent.Asc(networkconnection.FieldCreatedAt), ent.Asc(networkconnection.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
		return rows, nil
	}
	ids = network.NonEmpty(ids)
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
func (s *Service) publish(ctx context.Context, w network.SwitchState, row *ent.Job, targets []*ent.NetworkConnection) []*switchboardv1.JobDelivery {
	out := make([]*switchboardv1.JobDelivery, 0, len(targets))
	shared := network.SharedProto(row)
	for _, c := range targets {
		d := &switchboardv1.JobDelivery{ConnectionId: c.ID}
		err := network.Admit(w, c.PeerInstanceURL)
		if err == nil && c.PeerTokenSealed == nil {
			err = apperr.IllegalMove("connection %s has no token of its peer", c.ID)
		}
		if err == nil {
			d.Delivery, err = s.core.ToPeer(ctx, row.UserID, c, network.EventJob, switchboardv1connect.NetworkExchangePeerServiceReceiveJobProcedure,
				&switchboardv1.ReceiveJobRequest{Job: shared}, &switchboardv1.ReceiveJobResponse{})
		}
		if err != nil {
			msg := apperr.From(err).Message
			d.Error = &msg
			s.core.Logger.WarnContext(ctx, "network: a job did not reach a peer", "job", row.ID, "connection", c.ID, "error", err)
		}
		d.Delivered = d.Delivery == network.DeliveryDelivered
		out = append(out, d)
	}
	return out
}

// ListJobs pages the caller's board, newest first.
func (s *Service) ListJobs(ctx context.Context, req *switchboardv1.ListJobsRequest) (*switchboardv1.ListJobsResponse, error) {
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
	return &switchboardv1.ListJobsResponse{Jobs: lists.Map(rows, network.JobProto), Pagination: pg.Of(total, len(rows))}, nil
}

// CloseJob closes one of the caller's posted jobs and tells the connections
// it was shared with; a received job is the poster's to close (400).
func (s *Service) CloseJob(ctx context.Context, req *switchboardv1.CloseJobRequest) (*switchboardv1.CloseJobResponse, error) {
	row, err := network.CallerRow(ctx, "job", req.GetId(), func(userID string) (*ent.Job, error) {
		return s.core.DB.Job.Query().Where(job.ID(req.GetId()), job.UserID(userID)).Only(ctx)
	})
	if err != nil {
		return nil, err
	}
	if row.Origin != job.OriginPosted {
		return nil, apperr.IllegalMove("job %s was received from a connection: only its poster closes it", row.ID)
	}
	if row.Status == job.StatusClosed {
		return &switchboardv1.CloseJobResponse{Job: network.JobProto(row)}, nil
	}
	row, err = db.InTxValue(ctx, s.core.DB, func(tx *db.Tx) (*ent.Job, error) {
		// The economy awards under this lock (server/economy/jobs.go): a
		// job is closed once, by its owner or by its award.
		if err := tx.Serialize(ctx, "job "+row.ID); err != nil {
			return nil, err
		}
		n, err := tx.Job.Update().Where(job.ID(row.ID), job.StatusEQ(job.StatusOpen)).
			SetStatus(job.StatusClosed).SetClosedAt(s.core.NowUTC()).Save(ctx)
		if err != nil {
			return nil, err
		}
		closed, err := tx.Job.Get(ctx, row.ID)
		if err != nil || n == 0 {
			return closed, err
		}
		return closed, tx.Publish(ctx, network.JobClosed{Job: closed})
	})
	if err != nil {
		return nil, err
	}
	if w, err := s.core.SwitchOn(ctx); err == nil && len(row.SharedWith) > 0 {
		targets, err := s.core.DB.NetworkConnection.Query().Where(networkconnection.UserID(row.UserID),
			networkconnection.StatusEQ(networkconnection.StatusActive), networkconnection.IDIn(row.SharedWith...)).All(ctx)
		if err == nil {
			s.publish(ctx, w, row, targets)
		}
	}
	return &switchboardv1.CloseJobResponse{Job: network.JobProto(row)}, nil
}
