package lifecycle_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/internal/timers"
	"github.com/switchboard-hq/switchboard/server/store/engine"
	"github.com/switchboard-hq/switchboard/server/store/lifecycle"
	"github.com/switchboard-hq/switchboard/server/store/payments"
	"github.com/switchboard-hq/switchboard/server/store/review"
)

// The owner builds the engine and the review lifecycle already wired to each
// other (docs/architecture.md, "server/store/lifecycle"): the review lifecycle
// settles, requeues and kicks through this engine, and asks the configured
// fee check and global reviewer. The engine's events reach the review
// lifecycle through the server's subscription table (server.TestSubscriptions).
func TestOwnerWiresEngineAndReview(t *testing.T) {
	d := dbtest.Open(t)
	clock := clockwork.NewFakeClock()
	var checked []string
	o := lifecycle.New(lifecycle.Config{
		DB: d, Clock: clock, Now: func() time.Time { return clock.Now().UTC() }, Logger: slog.Default(),
		FeeCheck: func(_ context.Context, ex *ent.Execution) *payments.HubCheck {
			checked = append(checked, ex.ID)
			return nil
		},
	})
	if p, ok := o.Review.Payments.(*engine.Engine); !ok || p != o.Engine {
		t.Fatalf("review settles through %T, not the owner's engine", o.Review.Payments)
	}
	if o.Review.Requeue == nil || o.Review.Kick == nil {
		t.Fatal("a call from the review lifecycle to the engine is missing")
	}
	if o.Review.FeeCheck(t.Context(), &ent.Execution{ID: "exe_1"}); len(checked) != 1 || checked[0] != "exe_1" {
		t.Fatalf("the review's fee check did not reach the configured one: %v", checked)
	}
	if o.Review.Global != nil {
		t.Fatal("a global reviewer was set though none was configured")
	}
	set := timers.New(timers.Config{DB: d.Client, Clock: clock, Holder: "test"})
	o.Start(t.Context(), set)
	if o.Timer == nil {
		t.Fatal("Start did not start the review timer")
	}
	if got := set.Names(); !slices.Equal(got, []string{engine.SweepTimer, review.TimerName}) {
		t.Fatalf("registered timers: %v", got)
	}
	o.Close()
	o.Close() // idempotent, as App.Close may be called twice
}
