// Package onboarding owns the operator's onboarding (RULINGS "Onboarding,
// sprite, admin views, the developer portal"): OnboardingService (the intro,
// the checklist "Getting started" made by setup-project, a step advanced by
// hand) and the completion of each step by its real action, which the
// server's subscription table reports here from the other areas' domain
// events (Done, Installed). The checklist's decisions are
// server/onboarding/rules'; its card is the board's (kanban.Open), its
// project the groups' (groups.Core.OpenProject).
package onboarding

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	entonboarding "github.com/switchboard-hq/switchboard/ent/onboarding"
	"github.com/switchboard-hq/switchboard/ent/setting"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/activity"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/groups"
	"github.com/switchboard-hq/switchboard/server/kanban"
	"github.com/switchboard-hq/switchboard/server/onboarding/rules"
	"github.com/switchboard-hq/switchboard/server/provenance"
)

var (
	_ switchboardv1connect.OnboardingServiceHandler = (*Service)(nil)
	_ switchboardv1.OnboardingServiceServer         = (*Service)(nil)
)

// Service implements OnboardingService and hears the actions that complete
// its steps.
type Service struct {
	DB  *db.DB
	Now func() time.Time
	// Projects makes the project "Getting started".
	Projects *groups.Core
	Logger   *slog.Logger
}

// system is the writer of the card's words: Switchboard's own.
var system = provenance.Mark{Kind: provenance.System}

// actor names Switchboard in the activity of a completion no request made.
const actor = "Switchboard"

func (s *Service) now() time.Time { return s.Now().UTC() }

// lock holds the account's onboarding until the transaction ends, so that
// two completions (or two setup-project calls) take turns (PostgreSQL;
// SQLite's write transactions already do).
func lock(ctx context.Context, tx *db.Tx, userID string) error {
	return tx.Serialize(ctx, "onboarding:"+userID)
}

func row(ctx context.Context, c *ent.Client, userID string) (*ent.Onboarding, error) {
	r, err := c.Onboarding.Query().Where(entonboarding.UserID(userID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return r, err
}

// GetOnboarding answers where the caller's onboarding stands.
func (s *Service) GetOnboarding(ctx context.Context, _ *switchboardv1.GetOnboardingRequest) (*switchboardv1.GetOnboardingResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	set, err := s.DB.Setting.Query().Where(setting.UserID(p.UserID)).Only(ctx)
	if err != nil {
		return nil, err
	}
	r, err := row(ctx, s.DB.Client, p.UserID)
	if err != nil {
		return nil, err
	}
	res := &switchboardv1.GetOnboardingResponse{OnboardingPhase: set.OnboardingPhase, OnboardingComplete: set.OnboardingComplete}
	v, err := s.view(ctx, s.DB.Client, p.UserID, r)
	if err != nil {
		return nil, err
	}
	res.Card, res.Steps, res.Project = v.card, v.steps, v.project
	return res, nil
}

// StartIntro marks the intro held: onboardingPhase 6, with
// onboarding_progress the first time.
func (s *Service) StartIntro(ctx context.Context, _ *switchboardv1.StartIntroRequest) (*switchboardv1.StartIntroResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	return db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*switchboardv1.StartIntroResponse, error) {
		set, err := tx.Setting.Query().Where(setting.UserID(p.UserID)).Only(ctx)
		if err != nil {
			return nil, err
		}
		res := &switchboardv1.StartIntroResponse{OnboardingPhase: rules.Phase, OnboardingComplete: set.OnboardingComplete}
		if set.OnboardingPhase == rules.Phase {
			return res, nil
		}
		if err := tx.Setting.UpdateOne(set).SetOnboardingPhase(rules.Phase).Exec(ctx); err != nil {
			return nil, err
		}
		return res, activity.Write(ctx, tx, activity.Entry{UserID: p.UserID, Action: rules.ByAction.Activity(),
			Actor: p.Actor(), At: s.now(), Summary: "Held the intro conversation", Metadata: map[string]any{"onboardingPhase": rules.Phase}})
	})
}

// SetupProject makes the checklist once (its project, its card, the steps
// already done completed at once); a later call sets the card's due date,
// and makes the card again if the operator deleted it.
func (s *Service) SetupProject(ctx context.Context, req *switchboardv1.SetupProjectRequest) (*switchboardv1.SetupProjectResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var due *time.Time
	if req.DueAt != nil {
		if err := req.GetDueAt().CheckValid(); err != nil {
			return nil, apperr.Invalid("dueAt is not a valid time")
		}
		t := req.GetDueAt().AsTime().UTC()
		due = &t
	}
	v, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (checklist, error) {
		if err := lock(ctx, tx, p.UserID); err != nil {
			return checklist{}, err
		}
		r, err := row(ctx, tx.Client(), p.UserID)
		if err != nil {
			return checklist{}, err
		}
		if r == nil {
			r, err = s.setUp(ctx, tx, p, due)
		} else {
			r, err = s.keep(ctx, tx, p, r, due)
		}
		if err != nil {
			return checklist{}, err
		}
		return s.view(ctx, tx.Client(), p.UserID, r)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.SetupProjectResponse{Card: v.card, Steps: v.steps, Project: v.project}, nil
}

// setUp makes the project, its card and the account's row, then completes
// the steps whose action was done before.
func (s *Service) setUp(ctx context.Context, tx *db.Tx, p *auth.Principal, due *time.Time) (*ent.Onboarding, error) {
	pr, err := s.Projects.OpenProject(ctx, tx, p.UserID, rules.Title, "Six steps to set Switchboard up.", p.Actor())
	if err != nil {
		return nil, err
	}
	c, err := s.openCard(ctx, tx, p, pr.ID, due, nil)
	if err != nil {
		return nil, err
	}
	r, err := tx.Onboarding.Create().SetUserID(p.UserID).SetProjectID(pr.ID).SetCardID(c.ID).
		SetCreatedAt(s.now()).SetUpdatedAt(s.now()).Save(ctx)
	if err != nil {
		return nil, err
	}
	done, err := already(ctx, tx.Client(), p)
	if err != nil {
		return nil, err
	}
	return s.apply(ctx, tx, r, done, rules.Before, p.Actor())
}

// keep answers an existing checklist, its card made again if it is gone,
// its due date set when one is given.
func (s *Service) keep(ctx context.Context, tx *db.Tx, p *auth.Principal, r *ent.Onboarding, due *time.Time) (*ent.Onboarding, error) {
	if r.CardID != nil {
		ok, err := kanban.Exists(ctx, tx.Client(), p.UserID, *r.CardID)
		if err != nil {
			return nil, err
		}
		if ok {
			if due == nil {
				return r, nil
			}
			return r, kanban.SetDue(ctx, tx, p.UserID, *r.CardID, p.Actor(), *due, s.now())
		}
	}
	projectID := ""
	if r.ProjectID != nil {
		if v, err := groups.LedProject(ctx, tx.Client(), p.UserID, *r.ProjectID); err != nil {
			return nil, err
		} else if v != nil {
			projectID = v.Id
		}
	}
	if projectID == "" {
		pr, err := s.Projects.OpenProject(ctx, tx, p.UserID, rules.Title, "Six steps to set Switchboard up.", p.Actor())
		if err != nil {
			return nil, err
		}
		projectID = pr.ID
	}
	c, err := s.openCard(ctx, tx, p, projectID, due, r.Steps)
	if err != nil {
		return nil, err
	}
	return tx.Onboarding.UpdateOne(r).SetProjectID(projectID).SetCardID(c.ID).SetUpdatedAt(s.now()).Save(ctx)
}

// openCard makes the card "Getting started" with the six steps, done ones
// checked.
func (s *Service) openCard(ctx context.Context, tx *db.Tx, p *auth.Principal, projectID string, due *time.Time, done []string) (*ent.Card, error) {
	k := kanban.Kept{Title: rules.Title, Description: "Each item checks itself off when you do it; or mark it done from Now.",
		ProjectID: &projectID, DueDate: due, Source: rules.Source}
	for _, st := range rules.List(done) {
		k.Items = append(k.Items, kanban.KeptItem{Key: st.Key, Text: st.Text, Completed: st.Completed})
	}
	return kanban.Open(ctx, tx, p.UserID, p.Actor(), system, k, s.now())
}

// AdvanceOnboarding completes one step by hand.
func (s *Service) AdvanceOnboarding(ctx context.Context, req *switchboardv1.AdvanceOnboardingRequest) (*switchboardv1.AdvanceOnboardingResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	// The contract holds a key to its set; "" it lets through as absent.
	if req.GetStep() == "" {
		return nil, apperr.Invalid("step is required: one of %s", strings.Join(rules.Steps, ", "))
	}
	v, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (checklist, error) {
		if err := lock(ctx, tx, p.UserID); err != nil {
			return checklist{}, err
		}
		r, err := row(ctx, tx.Client(), p.UserID)
		if err != nil {
			return checklist{}, err
		}
		if r == nil {
			return checklist{}, apperr.IllegalMove("there is no onboarding checklist yet: POST /api/onboarding/setup-project makes it")
		}
		if r, err = s.apply(ctx, tx, r, []string{req.GetStep()}, rules.ByHand, p.Actor()); err != nil {
			return checklist{}, err
		}
		return s.view(ctx, tx.Client(), p.UserID, r)
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.AdvanceOnboardingResponse{Card: v.card, Steps: v.steps, Project: v.project,
		OnboardingComplete: v.complete}, nil
}

// checklist is what the answers carry.
type checklist struct {
	card     *switchboardv1.KanbanCardDetail
	steps    []*switchboardv1.OnboardingStep
	project  *switchboardv1.Project
	complete bool
}

// view renders the account's checklist (none yet: the six steps open).
func (s *Service) view(ctx context.Context, c *ent.Client, userID string, r *ent.Onboarding) (checklist, error) {
	var v checklist
	var done []string
	if r != nil {
		done, v.complete = r.Steps, r.CompletedAt != nil
		if r.CardID != nil {
			ok, err := kanban.Exists(ctx, c, userID, *r.CardID)
			if err != nil {
				return v, err
			}
			if ok {
				if v.card, err = kanban.Detail(ctx, c, userID, *r.CardID); err != nil {
					return v, err
				}
			}
		}
		if r.ProjectID != nil {
			var err error
			if v.project, err = groups.LedProject(ctx, c, userID, *r.ProjectID); err != nil {
				return v, err
			}
		}
	}
	for _, st := range rules.List(done) {
		v.steps = append(v.steps, &switchboardv1.OnboardingStep{Key: st.Key, Text: st.Text, Completed: st.Completed})
	}
	return v, nil
}

// apply completes keys on the account's row in tx: the row, the card's
// items, one activity entry per step and, on the sixth, onboardingComplete
// with onboarding_completed.
func (s *Service) apply(ctx context.Context, tx *db.Tx, r *ent.Onboarding, keys []string, how rules.How, by string) (*ent.Onboarding, error) {
	plan := rules.Complete(r.Steps, keys...)
	if len(plan.New) == 0 {
		return r, nil
	}
	now := s.now()
	upd := tx.Onboarding.UpdateOne(r).SetSteps(plan.Done).SetUpdatedAt(now)
	if plan.Finished {
		upd.SetCompletedAt(now)
	}
	r, err := upd.Save(ctx)
	if err != nil {
		return nil, err
	}
	card := ""
	if r.CardID != nil {
		ok, err := kanban.Exists(ctx, tx.Client(), r.UserID, *r.CardID)
		if err != nil {
			return nil, err
		}
		if ok {
			card = *r.CardID
		}
	}
	for _, k := range plan.New {
		if card != "" {
			if err := kanban.CheckOff(ctx, tx, r.UserID, card, rules.Source, k, by, now); err != nil {
				return nil, err
			}
		}
		summary := fmt.Sprintf("Onboarding: %s (%d of %d)", rules.Text(k), indexIn(plan.Done, k)+1, len(rules.Steps))
		if err := activity.Write(ctx, tx, activity.Entry{UserID: r.UserID, Action: how.Activity(), Actor: by, At: now,
			CardID: card, Summary: summary, Metadata: map[string]any{"step": k}}); err != nil {
			return nil, err
		}
	}
	if !plan.Finished {
		return r, nil
	}
	if err := tx.Setting.Update().Where(setting.UserID(r.UserID)).SetOnboardingComplete(true).Exec(ctx); err != nil {
		return nil, err
	}
	return r, activity.Write(ctx, tx, activity.Entry{UserID: r.UserID, Action: "onboarding_completed", Actor: by, At: now,
		CardID: card, Summary: "Onboarding complete: every step of " + rules.Title + " is done"})
}

func indexIn(list []string, k string) int {
	for i, v := range list {
		if v == k {
			return i
		}
	}
	return -1
}
