package economy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/ent/job"
	"github.com/switchboard-hq/switchboard/ent/jobapplication"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/providercapability"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/money"
	"github.com/switchboard-hq/switchboard/internal/runes"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/economy/rules"
	"github.com/switchboard-hq/switchboard/server/network"
)

// Jobs is applying to jobs and awarding them (RULINGS "The task economy":
// Jobs) over the economy's Core, a type of its own so the Core does not
// grow past the house's limit. A job lives on its owner's board
// (server/network): a user of the owner's instance applies to it there; a
// connection's peer applies to the copy its board received, and its
// instance sends the application to the owner's through the outbox
// (ReceiveJobApplication), keeping its own row to follow. The owner's
// award, or an auction's end (the economy's timer), hires the applicant
// with the application's terms (Core.Hire's unit of work) and closes the
// job; every other application is declined, and a remote applicant's
// instance is told how its application went (ReceiveApplicationOutcome).
type Jobs struct{ core *Core }

// NewJobs makes the job market over the economy's core.
func NewJobs(c *Core) *Jobs { return &Jobs{core: c} }

// Outbox events of the job market.
const (
	EventJobApplication     = "job_application"
	EventApplicationOutcome = "application_outcome"
)

// Application is what an applicant offers.
type Application struct {
	Message string
	Price   money.Cents
	EtaDays int
}

// Award is what an award made: the job closed, the application awarded and
// the contract offered.
type Award struct {
	Job         *ent.Job
	Application *ent.JobApplication
	Contract    *ent.Contract
}

var (
	statusPending  = jobapplication.Status(vocab.ApplicationStatusPending)
	statusAwarded  = jobapplication.Status(vocab.ApplicationStatusAwarded)
	statusDeclined = jobapplication.Status(vocab.ApplicationStatusDeclined)
)

// Apply records p's application to the job its board calls jobID: a user's
// application to another user's job here, or to a job its board received
// from a connection, which goes to the job's owner through the outbox.
func (j *Jobs) Apply(ctx context.Context, p *auth.Principal, jobID string, a Application) (*ent.JobApplication, error) {
	s := j.core
	if a.Price <= 0 {
		return nil, apperr.Invalid("priceCents must be a positive whole number of cents")
	}
	row, err := s.DB.Job.Get(ctx, jobID)
	switch {
	case ent.IsNotFound(err):
		return nil, apperr.NotFound("job %s not found", jobID)
	case err != nil:
		return nil, err
	case row.UserID == p.UserID && row.Origin == job.OriginPosted:
		return nil, apperr.IllegalMove("job %s is yours: you cannot apply to your own job", row.ID)
	case row.UserID != p.UserID && row.Origin == job.OriginReceived:
		return nil, apperr.NotFound("job %s not found", jobID)
	}
	remote := row.Origin == job.OriginReceived
	if remote {
		if _, err := s.Net.SwitchOn(ctx); err != nil {
			return nil, err
		}
	}
	cp, err := j.capabilityFor(ctx, p.UserID, row)
	if err != nil {
		return nil, err
	}
	return db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.JobApplication, error) {
		row, err := lockJob(ctx, tx, row.ID)
		if err != nil {
			return nil, err
		}
		if err := takes(row, s.now()); err != nil {
			return nil, err
		}
		prior, err := tx.JobApplication.Query().Where(jobapplication.JobID(row.ID), jobapplication.ApplicantUserID(p.UserID)).First(ctx)
		if err == nil {
			return nil, apperr.Conflict("you applied to job %s already (application %s)", row.ID, prior.ID)
		} else if !ent.IsNotFound(err) {
			return nil, err
		}
		create := tx.JobApplication.Create().SetJobID(row.ID).SetApplicantUserID(p.UserID).SetPartyName(p.Name).
			SetMessage(a.Message).SetPriceCents(a.Price).SetEtaDays(a.EtaDays)
		withCapability(create, cp)
		app, err := create.Save(ctx)
		if err != nil {
			return nil, err
		}
		if !remote {
			return app, j.tellOwner(ctx, tx, row, app, p.Name)
		}
		conn, err := tx.NetworkConnection.Get(ctx, deref(row.ConnectionID))
		if ent.IsNotFound(err) {
			return nil, apperr.IllegalMove("job %s came through a connection that is gone: its owner cannot be reached", row.ID)
		} else if err != nil {
			return nil, err
		}
		if conn.Status != networkconnection.StatusActive || conn.PeerTokenSealed == nil {
			return nil, apperr.IllegalMove("connection %s is %s: apply over active connections only", conn.ID, conn.Status)
		}
		msg := &switchboardv1.ReceiveJobApplicationRequest{ApplicationId: app.ID, JobId: deref(row.PeerJobID),
			Message: app.Message, PriceCents: wire(app.PriceCents), EtaDays: int32(app.EtaDays), //nolint:gosec // 0 to 3650
			Capability: capabilityProto(app)}
		return app, s.Net.ToPeerInTx(ctx, tx, p.UserID, conn, EventJobApplication,
			switchboardv1connect.EconomyPeerServiceReceiveJobApplicationProcedure, msg)
	})
}

// capabilityFor is userID's capability for the job's task type, the one
// sharing most of the job's skills (the oldest of equals); nil when none.
func (j *Jobs) capabilityFor(ctx context.Context, userID string, row *ent.Job) (*ent.ProviderCapability, error) {
	s := j.core
	caps, err := s.DB.ProviderCapability.Query().Where(providercapability.UserID(userID),
		providercapability.TaskTypeEQ(providercapability.TaskType(row.TaskType))).
		Order(ent.Asc(providercapability.FieldCreatedAt), ent.Asc(providercapability.FieldID)).All(ctx)
	if err != nil || len(caps) == 0 {
		return nil, err
	}
	want := map[string]bool{}
	for _, sk := range row.RequiredSkills {
		want[strings.ToLower(strings.TrimSpace(sk))] = true
	}
	best, most := caps[0], -1
	for _, c := range caps {
		n := 0
		for _, sk := range c.Skills {
			if want[strings.ToLower(strings.TrimSpace(sk))] {
				n++
			}
		}
		if n > most {
			best, most = c, n
		}
	}
	return best, nil
}

func withCapability(create *ent.JobApplicationCreate, c *ent.ProviderCapability) {
	if c == nil {
		return
	}
	create.SetTaskType(jobapplication.TaskType(c.TaskType)).SetSkills(c.Skills).SetNillablePrice(c.Price).
		SetNillableCurrency(c.Currency)
	if c.PricingModel != nil {
		create.SetPricingModel(jobapplication.PricingModel(*c.PricingModel))
	}
}

// lockJob reads a job again under its lock: an award, an auction's end,
// an application and the owner's close of one job run one at a time.
func lockJob(ctx context.Context, tx *db.Tx, id string) (*ent.Job, error) {
	if err := tx.Serialize(ctx, "job "+id); err != nil {
		return nil, err
	}
	return tx.Job.Get(ctx, id)
}

// takes is rules.Takes on a job, as the caller reads it (400).
func takes(row *ent.Job, now time.Time) error {
	if err := rules.Takes(string(row.Status), row.AwardedApplicationID != nil, row.ClosesAt, now); err != nil {
		return apperr.IllegalMove("job %s takes no applications: %s", row.ID, strings.TrimPrefix(err.Error(), rules.ErrJobShut.Error()+": "))
	}
	return nil
}

// tellOwner writes the owner a comms message of a new application.
func (j *Jobs) tellOwner(ctx context.Context, tx *db.Tx, row *ent.Job, app *ent.JobApplication, from string) error {
	s := j.core
	_, err := post(ctx, tx, s.now(), row.UserID, fmt.Sprintf("%s applied to your job %q for %s.", from, row.Title,
		cents(app.PriceCents, DefaultCurrency)), "economy", map[string]any{"type": "job_application", "jobId": row.ID, "applicationId": app.ID})
	return err
}

// Award is the owner's award of a direct job to one of its applications.
func (j *Jobs) Award(ctx context.Context, p *auth.Principal, jobID, applicationID string) (*Award, error) {
	s := j.core
	var conn *ent.NetworkConnection
	var h Hire
	out, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*Award, error) {
		row, err := tx.Job.Query().Where(job.ID(jobID), job.UserID(p.UserID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("job %s not found", jobID)
		} else if err != nil {
			return nil, err
		}
		if row.Origin != job.OriginPosted {
			return nil, apperr.IllegalMove("job %s was received from a connection: its owner awards it", row.ID)
		}
		if row.Mode == job.ModeAuction {
			return nil, apperr.IllegalMove("job %s is an auction: the best application is awarded at closesAt", row.ID)
		}
		if row, err = lockJob(ctx, tx, row.ID); err != nil {
			return nil, err
		}
		if row.Status != job.StatusOpen {
			state := string(row.Status)
			if row.AwardedApplicationID != nil {
				state = "awarded already"
			}
			return nil, apperr.IllegalMove("job %s is %s: only an open job is awarded", row.ID, state)
		}
		app, err := tx.JobApplication.Query().Where(jobapplication.ID(applicationID), jobapplication.JobID(row.ID)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("application %s of job %s not found", applicationID, row.ID)
		} else if err != nil {
			return nil, err
		}
		if app.Status != statusPending {
			return nil, apperr.IllegalMove("application %s is %s: only a pending one is awarded", app.ID, app.Status)
		}
		h = hireFor(p, row, app, s.now())
		if err := h.check(); err != nil {
			return nil, err
		}
		var award *Award
		award, conn, err = j.award(ctx, tx, row, app, h)
		return award, err
	})
	if err != nil || conn == nil {
		return out, err
	}
	if out.Contract, err = s.offerOverNetwork(ctx, h, out.Contract, conn); err != nil {
		return nil, err
	}
	return out, nil
}

// hireFor is hire_provider with an application's terms: the job's title,
// task type and description, the application's price and, from its
// estimate, the due date.
func hireFor(client *auth.Principal, row *ent.Job, app *ent.JobApplication, now time.Time) Hire {
	h := Hire{Client: client, ProviderUserID: deref(app.ApplicantUserID), ConnectionID: deref(app.ConnectionID),
		TaskType: string(row.TaskType), Title: runes.Prefix(strings.TrimSpace(row.Title), 200), Price: app.PriceCents,
		Currency: DefaultCurrency, JobID: row.ID}
	if d := strings.TrimSpace(row.Description); d != "" {
		h.Scope = []string{runes.Prefix(d, 2000)}
	}
	if app.EtaDays > 0 {
		due := now.Add(time.Duration(app.EtaDays) * 24 * time.Hour)
		h.DueAt = &due
	}
	return h
}

// award hires app's applicant in tx and closes the job: the application
// awarded, the others declined and their remote applicants told, the
// connections the job was shared with sent its closed state. A remote
// provider's offer is the caller's to send once tx has committed (conn).
func (j *Jobs) award(ctx context.Context, tx *db.Tx, row *ent.Job, app *ent.JobApplication, h Hire) (*Award, *ent.NetworkConnection, error) {
	s := j.core
	c, conn, err := s.hireIn(ctx, tx, h)
	if err != nil {
		return nil, nil, err
	}
	now := s.now()
	row, err = row.Update().SetStatus(job.StatusClosed).SetClosedAt(now).SetAwardedApplicationID(app.ID).SetContractID(c.ID).Save(ctx)
	if err != nil {
		return nil, nil, err
	}
	app, err = app.Update().SetStatus(statusAwarded).SetContractID(c.ID).Save(ctx)
	if err != nil {
		return nil, nil, err
	}
	if app.ConnectionID != nil {
		if err := j.answerApplicant(ctx, tx, row, app, ""); err != nil {
			return nil, nil, err
		}
	}
	if err := j.declineRest(ctx, tx, row, fmt.Sprintf("job %q was awarded to another application", row.Title)); err != nil {
		return nil, nil, err
	}
	return &Award{Job: row, Application: app, Contract: c}, conn, j.shareClosed(ctx, tx, row)
}

// declineRest declines the job's pending applications with reason: a
// local applicant reads it in comms, a remote one's instance is told.
func (j *Jobs) declineRest(ctx context.Context, tx *db.Tx, row *ent.Job, reason string) error {
	s := j.core
	rest, err := tx.JobApplication.Query().Where(jobapplication.JobID(row.ID), jobapplication.StatusEQ(statusPending)).
		Order(ent.Asc(jobapplication.FieldCreatedAt), ent.Asc(jobapplication.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	for _, a := range rest {
		if a, err = a.Update().SetStatus(statusDeclined).SetReason(reason).Save(ctx); err != nil {
			return err
		}
		if a.ConnectionID != nil {
			err = j.answerApplicant(ctx, tx, row, a, reason)
		} else {
			_, err = post(ctx, tx, s.now(), deref(a.ApplicantUserID), fmt.Sprintf("Your application to %q was declined: %s.", row.Title, reason),
				"economy", map[string]any{"type": "job_application", "jobId": row.ID, "applicationId": a.ID, "status": string(a.Status)})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// answerApplicant tells a remote applicant's instance how its application
// went, through the outbox.
func (j *Jobs) answerApplicant(ctx context.Context, tx *db.Tx, row *ent.Job, app *ent.JobApplication, reason string) error {
	s := j.core
	conn, err := tx.NetworkConnection.Get(ctx, deref(app.ConnectionID))
	if ent.IsNotFound(err) {
		s.Logger.WarnContext(ctx, "economy: an applicant's connection is gone; its outcome stays here", "application", app.ID)
		return nil
	} else if err != nil {
		return err
	}
	msg := &switchboardv1.ReceiveApplicationOutcomeRequest{ApplicationId: deref(app.PeerApplicationID), JobId: row.ID,
		Status: string(app.Status), Reason: opt(reason), ContractId: app.ContractID}
	return s.Net.ToPeerInTx(ctx, tx, conn.UserID, conn, EventApplicationOutcome,
		switchboardv1connect.EconomyPeerServiceReceiveApplicationOutcomeProcedure, msg)
}

// shareClosed sends the job's closed state to the active connections it
// was shared with, as the owner's close does (CloseJob), through the outbox.
func (j *Jobs) shareClosed(ctx context.Context, tx *db.Tx, row *ent.Job) error {
	s := j.core
	if len(row.SharedWith) == 0 {
		return nil
	}
	conns, err := tx.NetworkConnection.Query().Where(networkconnection.UserID(row.UserID), networkconnection.IDIn(row.SharedWith...),
		networkconnection.StatusEQ(networkconnection.StatusActive), networkconnection.PeerTokenSealedNotNil()).All(ctx)
	if err != nil {
		return err
	}
	for _, c := range conns {
		if err := s.Net.ToPeerInTx(ctx, tx, row.UserID, c, network.EventJob, switchboardv1connect.NetworkExchangePeerServiceReceiveJobProcedure,
			&switchboardv1.ReceiveJobRequest{Job: network.SharedProto(row)}); err != nil {
			return err
		}
	}
	return nil
}

// Closed declines the pending applications of a job its owner closed by
// hand (network.JobClosed, in the close's unit of work).
func (j *Jobs) Closed(ctx context.Context, tx *db.Tx, row *ent.Job) error {
	if row.Origin != job.OriginPosted || row.AwardedApplicationID != nil {
		return nil
	}
	return j.declineRest(ctx, tx, row, fmt.Sprintf("job %q was closed without an award", row.Title))
}

// Posted wakes the economy's timer for a new auction, whose end may come
// before the timer's next look.
func (j *Jobs) Posted(row *ent.Job) {
	if row.Mode != job.ModeAuction {
		return
	}
	if t := j.core.timer.Load(); t != nil {
		t.Wake()
	}
}

// Applications answers the applications to the job the caller's board
// calls jobID: all of them to the owner of a posted job, best price first;
// to anyone else their own (on a received job, the one sent to its owner).
// Someone with no application to another account's job reads 404.
func (j *Jobs) Applications(ctx context.Context, p *auth.Principal, jobID string) ([]*switchboardv1.JobApplication, error) {
	s := j.core
	row, err := s.DB.Job.Get(ctx, jobID)
	if ent.IsNotFound(err) || (err == nil && row.UserID != p.UserID && row.Origin != job.OriginPosted) {
		return nil, apperr.NotFound("job %s not found", jobID)
	} else if err != nil {
		return nil, err
	}
	q := s.DB.JobApplication.Query().Where(jobapplication.JobID(row.ID))
	if row.UserID != p.UserID || row.Origin == job.OriginReceived {
		q.Where(jobapplication.ApplicantUserID(p.UserID))
	}
	apps, err := q.Order(ent.Asc(jobapplication.FieldPriceCents), ent.Asc(jobapplication.FieldCreatedAt), ent.Asc(jobapplication.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	if len(apps) == 0 && row.UserID != p.UserID {
		return nil, apperr.NotFound("job %s not found", jobID)
	}
	out := make([]*switchboardv1.JobApplication, 0, len(apps))
	for _, a := range apps {
		out = append(out, RenderApplication(ctx, s.DB.Client, row, a))
	}
	return out, nil
}

// RenderApplication is app as this instance shows it: on the applicant's
// side of a remote job, its contract is the one the award's offer made here.
func RenderApplication(ctx context.Context, cl *ent.Client, row *ent.Job, app *ent.JobApplication) *switchboardv1.JobApplication {
	out := &switchboardv1.JobApplication{Id: app.ID, JobId: app.JobID, Message: app.Message, PriceCents: wire(app.PriceCents),
		EtaDays: int32(app.EtaDays), Capability: capabilityProto(app), Status: string(app.Status), Reason: app.Reason, //nolint:gosec // 0 to 3650
		ContractId: app.ContractID, Score: app.Score, CreatedAt: ts(app.CreatedAt), UpdatedAt: ts(app.UpdatedAt)}
	if app.ConnectionID != nil {
		out.Applicant = &switchboardv1.ContractParty{ConnectionId: app.ConnectionID, Name: app.PartyName, InstanceUrl: app.PartyInstanceURL}
	} else {
		uid := deref(app.ApplicantUserID)
		out.Applicant = &switchboardv1.ContractParty{UserId: &uid, Name: app.PartyName}
		if u, err := cl.User.Get(ctx, uid); err == nil {
			out.Applicant.Name = u.Name
		}
	}
	if app.PeerContractID != nil && row.ConnectionID != nil {
		if c, err := cl.Contract.Query().Where(contract.ConnectionID(*row.ConnectionID), contract.OriginContractID(*app.PeerContractID)).
			Only(ctx); err == nil {
			out.ContractId = &c.ID
		}
	}
	return out
}

func capabilityProto(app *ent.JobApplication) *switchboardv1.JobApplicationCapability {
	if app.TaskType == nil {
		return nil
	}
	return &switchboardv1.JobApplicationCapability{TaskType: string(*app.TaskType), Skills: orEmpty(app.Skills),
		PricingModel: derefEnum(app.PricingModel), Price: app.Price, Currency: deref(app.Currency)}
}

func orEmpty(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// Received takes a connection's peer's application to one of its local
// user's jobs shared with that connection. The same application again
// (its id on the applicant's side) answers the same; another from the same
// connection is 409. A job that takes none records nothing and tells the
// applicant's instance it was declined, so its row does not wait forever.
func (j *Jobs) Received(ctx context.Context, conn *ent.NetworkConnection, req *switchboardv1.ReceiveJobApplicationRequest) (*switchboardv1.ReceiveJobApplicationResponse, error) {
	s := j.core
	return db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.ReceiveJobApplicationResponse, error) {
		row, err := tx.Job.Query().Where(job.ID(req.GetJobId()), job.UserID(conn.UserID), job.OriginEQ(job.OriginPosted)).Only(ctx)
		if ent.IsNotFound(err) || (err == nil && !slices.Contains(row.SharedWith, conn.ID)) {
			return nil, apperr.NotFound("job %s not found", req.GetJobId())
		} else if err != nil {
			return nil, err
		}
		if row, err = lockJob(ctx, tx, row.ID); err != nil {
			return nil, err
		}
		prior, err := tx.JobApplication.Query().Where(jobapplication.JobID(row.ID), jobapplication.ConnectionID(conn.ID)).First(ctx)
		switch {
		case err == nil && deref(prior.PeerApplicationID) == req.GetApplicationId():
			return &switchboardv1.ReceiveJobApplicationResponse{ApplicationId: prior.ID, Status: string(prior.Status)}, nil
		case err == nil:
			return nil, apperr.Conflict("your user applied to job %s already", row.ID)
		case !ent.IsNotFound(err):
			return nil, err
		}
		if refused := takes(row, s.now()); refused != nil {
			reason := apperr.From(refused).Message
			out := &switchboardv1.ReceiveApplicationOutcomeRequest{ApplicationId: req.GetApplicationId(), JobId: row.ID,
				Status: string(statusDeclined), Reason: &reason}
			return &switchboardv1.ReceiveJobApplicationResponse{Status: string(statusDeclined)},
				s.Net.ToPeerInTx(ctx, tx, conn.UserID, conn, EventApplicationOutcome,
					switchboardv1connect.EconomyPeerServiceReceiveApplicationOutcomeProcedure, out)
		}
		create := tx.JobApplication.Create().SetJobID(row.ID).SetConnectionID(conn.ID).SetPartyName(peerName(conn)).
			SetPartyInstanceURL(conn.PeerInstanceURL).SetPeerApplicationID(req.GetApplicationId()).
			SetMessage(req.GetMessage()).SetPriceCents(money.Cents(req.GetPriceCents())).SetEtaDays(int(req.GetEtaDays()))
		if cp := req.GetCapability(); cp != nil && cp.GetTaskType() != "" {
			create.SetTaskType(jobapplication.TaskType(cp.GetTaskType())).SetSkills(cp.GetSkills()).SetNillablePrice(cp.Price).
				SetNillableCurrency(opt(cp.GetCurrency()))
			if cp.GetPricingModel() != "" {
				create.SetPricingModel(jobapplication.PricingModel(cp.GetPricingModel()))
			}
		}
		app, err := create.Save(ctx)
		if err != nil {
			return nil, err
		}
		if err := j.tellOwner(ctx, tx, row, app, peerName(conn)); err != nil {
			return nil, err
		}
		return &switchboardv1.ReceiveJobApplicationResponse{ApplicationId: app.ID, Status: string(app.Status)}, nil
	})
}

// Outcome applies the job owner's answer to the application conn's local
// user sent: only forward from pending, so a repeat changes nothing.
func (j *Jobs) Outcome(ctx context.Context, conn *ent.NetworkConnection, req *switchboardv1.ReceiveApplicationOutcomeRequest) (*switchboardv1.ReceiveApplicationOutcomeResponse, error) {
	s := j.core
	return db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.ReceiveApplicationOutcomeResponse, error) {
		app, err := tx.JobApplication.Query().Where(jobapplication.ID(req.GetApplicationId()), jobapplication.ApplicantUserID(conn.UserID),
			jobapplication.HasJobWith(job.ConnectionID(conn.ID), job.PeerJobID(req.GetJobId()))).WithJob().Only(ctx)
		if ent.IsNotFound(err) {
			return nil, apperr.NotFound("application %s not found", req.GetApplicationId())
		} else if err != nil {
			return nil, err
		}
		to := jobapplication.Status(req.GetStatus())
		if app.Status != statusPending || to == statusPending {
			return &switchboardv1.ReceiveApplicationOutcomeResponse{Applied: false}, nil
		}
		title := app.Edges.Job.Title // Save answers the row without its edges
		up := app.Update().SetStatus(to).SetNillableReason(req.Reason).SetNillablePeerContractID(req.ContractId)
		if app, err = up.Save(ctx); err != nil {
			return nil, err
		}
		text := fmt.Sprintf("Your application to %q was awarded: the offer is in your queue.", title)
		if to == statusDeclined {
			text = fmt.Sprintf("Your application to %q was declined: %s.", title, strings.TrimSuffix(req.GetReason(), "."))
		}
		if _, err := post(ctx, tx, s.now(), conn.UserID, text, "economy",
			map[string]any{"type": "job_application", "jobId": app.JobID, "applicationId": app.ID, "status": string(to)}); err != nil {
			return nil, err
		}
		return &switchboardv1.ReceiveApplicationOutcomeResponse{Applied: true}, nil
	})
}
