package lifecycle_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/db/dbtest"
	"github.com/switchboard-hq/switchboard/server/store/engine"
	"github.com/switchboard-hq/switchboard/server/store/lifecycle"
)

// The owner builds the engine and the review lifecycle already wired to each
// other (docs/architecture.md, "server/store/lifecycle"): the review lifecycle
// settles and requeues through this engine, and the engine's hooks reach the
// review lifecycle, then the configured Finished hook.
func TestOwnerWiresEngineAndReview(t *testing.T) {
	d := dbtest.Open(t)
	clock := clockwork.NewFakeClock()
	var finished []string
	o := lifecycle.New(lifecycle.Config{
		DB: d, Clock: clock, Now: func() time.Time { return clock.Now().UTC() }, Logger: slog.Default(),
		Finished: func(_ context.Context, _ *db.Tx, ex *ent.Execution) error {
			finished = append(finished, ex.ID)
			return nil
		},
	})
	if p, ok := o.Review.Payments.(*engine.Engine); !ok || p != o.Engine {
		t.Fatalf("review settles through %T, not the owner's engine", o.Review.Payments)
	}
	if o.Review.Requeue == nil || o.Review.Kick == nil || o.Engine.Created == nil || o.Engine.Finished == nil {
		t.Fatal("a hook between the engine and the review lifecycle is missing")
	}
	// An owner's own execution is not reviewed: the review lifecycle passes,
	// and the configured hook runs after it.
	own := &ent.Execution{ID: "exe_own", IsOwnAgent: true}
	if err := o.Engine.Created(t.Context(), nil, own); err != nil {
		t.Fatal(err)
	}
	if err := o.Engine.Finished(t.Context(), nil, own); err != nil || len(finished) != 1 || finished[0] != "exe_own" {
		t.Fatalf("Finished: %v, configured hook saw %v", err, finished)
	}
	o.Start(t.Context())
	if o.Timer == nil {
		t.Fatal("Start did not start the review timer")
	}
	o.Close()
	o.Close() // idempotent, as App.Close may be called twice
}
