package learnings

import (
	"context"
	"fmt"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent/behaviorsignal"
	"github.com/switchboard-hq/switchboard/internal/alarm"
	"github.com/switchboard-hq/switchboard/internal/periodic"
	"github.com/switchboard-hq/switchboard/internal/timers"
	"github.com/switchboard-hq/switchboard/server/learnings/rules"
)

// The daily timers' names (PeriodicRun rows).
const (
	TimerAnalysis  = "learnings_daily"
	TimerRetention = "behavior_signals_retention"
)

// Timers are the daily analysis of every account and the signals'
// retention, each run once a day across replicas.
type Timers struct{ loops []*alarm.Loop }

// Fires is how many runs each timer made, by its name (the metrics).
func (t *Timers) Fires() map[string]func() uint64 {
	return map[string]func() uint64{TimerAnalysis: t.loops[0].Fires, TimerRetention: t.loops[1].Fires}
}

// Close stops both.
func (t *Timers) Close() {
	for _, l := range t.loops {
		l.Close()
	}
}

// StartTimers starts the daily analysis and the retention on clock.
func (s *Service) StartTimers(set *timers.Set, clock clockwork.Clock, failed func(ctx context.Context, err error)) *Timers {
	day := 24 * time.Hour
	return &Timers{loops: []*alarm.Loop{
		periodic.Start(set, clock, s.DB.Client, periodic.Timer{Name: TimerAnalysis, Every: day, Run: s.AnalyzeAll}, failed),
		periodic.Start(set, clock, s.DB.Client, periodic.Timer{Name: TimerRetention, Every: day, Run: s.Prune}, failed),
	}}
}

// AnalyzeAll runs the analysis for every account; one account's
// failure does not stop the others.
func (s *Service) AnalyzeAll(ctx context.Context) error {
	ids, err := s.DB.User.Query().IDs(ctx)
	if err != nil {
		return err
	}
	var first error
	for _, id := range ids {
		if _, err := s.Analyze(ctx, id, "Switchboard"); err != nil && first == nil {
			first = fmt.Errorf("learnings: analysis of %s: %w", id, err)
		}
	}
	return first
}

// Prune deletes the signals older than the retention (180 days).
func (s *Service) Prune(ctx context.Context) error {
	_, err := s.DB.BehaviorSignal.Delete().Where(behaviorsignal.CreatedAtLT(s.now().Add(-rules.Retention))).Exec(ctx)
	return err
}

// Wake makes both look at their rows now (tests, after moving the clock).
func (t *Timers) Wake() {
	for _, l := range t.loops {
		l.Wake()
	}
}
