package economy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/job"
	"github.com/switchboard-hq/switchboard/ent/jobapplication"
	"github.com/switchboard-hq/switchboard/ent/peerpattern"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
	networkrules "github.com/switchboard-hq/switchboard/server/network/rules"
)

// An auction's end, on the economy's durable timer (Due): its state is the
// jobs' rows, so a restart loses nothing. At closesAt the pending
// applications are ranked as find_providers ranks (rules.Auction: each
// applicant's route_task score for the job, with the price fit of the
// application's price against maxPriceCents) and the best is awarded as
// the owner's award does; with none the job closes unawarded.

// ended awards or closes the open auctions whose closesAt has passed.
func (j *Jobs) ended(ctx context.Context, now time.Time) error {
	rows, err := j.core.DB.Job.Query().Where(job.ModeEQ(job.ModeAuction), job.StatusEQ(job.StatusOpen),
		job.OriginEQ(job.OriginPosted), job.ClosesAtLTE(now)).Order(ent.Asc(job.FieldClosesAt), ent.Asc(job.FieldID)).
		Limit(timerBatch).All(ctx)
	if err != nil {
		return err
	}
	for _, row := range rows {
		if err := j.closeAuction(ctx, row); err != nil {
			j.core.Logger.ErrorContext(ctx, "economy: ending an auction", "job", row.ID, "error", err)
		}
	}
	return nil
}

// nextAuction is when the next open auction ends (zero: none is open).
func (j *Jobs) nextAuction(ctx context.Context) (time.Time, error) {
	row, err := j.core.DB.Job.Query().Where(job.ModeEQ(job.ModeAuction), job.StatusEQ(job.StatusOpen),
		job.OriginEQ(job.OriginPosted), job.ClosesAtNotNil()).Order(ent.Asc(job.FieldClosesAt)).First(ctx)
	if ent.IsNotFound(err) {
		return time.Time{}, nil
	} else if err != nil {
		return time.Time{}, err
	}
	return *row.ClosesAt, nil
}

// closeAuction ends one auction. The ranking is read before the unit of
// work: the job takes no application after closesAt, so the pending ones
// cannot change meanwhile. A winner this instance cannot hire (the ledger
// refuses the hold, the applicant or its connection is gone) closes the
// job unawarded, every application declined with the reason.
func (j *Jobs) closeAuction(ctx context.Context, row *ent.Job) error {
	s := j.core
	apps, err := s.DB.JobApplication.Query().Where(jobapplication.JobID(row.ID), jobapplication.StatusEQ(statusPending)).
		Order(ent.Asc(jobapplication.FieldCreatedAt), ent.Asc(jobapplication.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	ranked, err := j.rank(ctx, row, apps)
	if err != nil {
		return err
	}
	var h Hire
	var conn *ent.NetworkConnection
	award, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*Award, error) {
		row, err := lockJob(ctx, tx, row.ID)
		if err != nil || row.Status != job.StatusOpen {
			return nil, err
		}
		for _, w := range ranked {
			if err := tx.JobApplication.UpdateOneID(w.ID).SetScore(round4(w.Score)).Exec(ctx); err != nil {
				return nil, err
			}
		}
		if len(ranked) == 0 {
			return nil, j.closeUnawarded(ctx, tx, row, "nobody applied before closesAt")
		}
		win, err := tx.JobApplication.Get(ctx, ranked[0].ID)
		if err != nil {
			return nil, err
		}
		owner, err := principal(ctx, tx, row.UserID)
		if err != nil {
			return nil, err
		}
		h = hireFor(owner, row, win, s.now())
		if err := h.check(); err != nil {
			return nil, err
		}
		var a *Award
		a, conn, err = j.award(ctx, tx, row, win, h)
		return a, err
	})
	var refused *apperr.Error
	if errors.As(err, &refused) {
		return s.DB.InTx(ctx, func(tx *db.Tx) error {
			row, err := lockJob(ctx, tx, row.ID)
			if err != nil || row.Status != job.StatusOpen {
				return err
			}
			return j.closeUnawarded(ctx, tx, row, "the best application could not be hired: "+refused.Message)
		})
	}
	if err != nil || conn == nil {
		return err
	}
	_, err = s.offerOverNetwork(ctx, h, award.Contract, conn)
	return err
}

// closeUnawarded closes an auction without an award: its pending
// applications declined with reason, its connections told.
func (j *Jobs) closeUnawarded(ctx context.Context, tx *db.Tx, row *ent.Job, reason string) error {
	row, err := row.Update().SetStatus(job.StatusClosed).SetClosedAt(j.core.now()).Save(ctx)
	if err != nil {
		return err
	}
	if err := j.declineRest(ctx, tx, row, fmt.Sprintf("the auction of %q closed unawarded: %s", row.Title, reason)); err != nil {
		return err
	}
	return j.shareClosed(ctx, tx, row)
}

// rank weighs apps for the job as find_providers weighs providers: each
// applicant as a route_task candidate (the capability its application
// carries, a local user's track record, a peer's trust and published
// capacity) for the job's task type and skills, then rules.Auction with
// each application's price. An applicant whose connection is gone is left
// out.
func (j *Jobs) rank(ctx context.Context, row *ent.Job, apps []*ent.JobApplication) ([]rules.Weighed, error) {
	s := j.core
	cands := make([]networkrules.Candidate, 0, len(apps))
	for _, a := range apps {
		skills, taskType := a.Skills, derefEnum(a.TaskType)
		if a.ConnectionID == nil {
			var maxConcurrent *int
			if cp, err := j.capabilityFor(ctx, deref(a.ApplicantUserID), row); err != nil {
				return nil, err
			} else if cp != nil {
				maxConcurrent = cp.MaxConcurrent
			}
			cand, err := s.localCandidate(ctx, a.ID, a.PartyName, deref(a.ApplicantUserID), skills, taskType, maxConcurrent)
			if err != nil {
				return nil, err
			}
			cands = append(cands, cand)
			continue
		}
		conn, err := s.DB.NetworkConnection.Get(ctx, *a.ConnectionID)
		if ent.IsNotFound(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		pp, err := s.DB.PeerPattern.Query().Where(peerpattern.UserID(row.UserID), peerpattern.ConnectionID(conn.ID)).First(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return nil, err
		}
		taskTypes := []string{taskType}
		if taskType == "" && pp != nil {
			skills, taskTypes = pp.Skills, pp.TaskTypes
		}
		cands = append(cands, peerCandidate(a.ID, a.PartyName, conn, pp, skills, taskTypes))
	}
	route := networkrules.RouteTask(networkrules.Task{Description: row.Description, TaskType: string(row.TaskType),
		Skills: row.RequiredSkills, MaxCandidates: len(cands)}, cands)
	scores := map[string]float64{}
	for _, r := range route.Candidates {
		scores[r.ID] = r.Score
	}
	bids := make([]rules.Bid, 0, len(apps))
	for _, a := range apps {
		if score, ok := scores[a.ID]; ok {
			bids = append(bids, rules.Bid{ID: a.ID, RouteScore: score, Price: a.PriceCents})
		}
	}
	var maxPrice money.Cents
	if row.MaxPriceCents != nil {
		maxPrice = *row.MaxPriceCents
	}
	return rules.Auction(bids, maxPrice), nil
}
