package groups

import (
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/internal/money"
)

func TestQuote(t *testing.T) {
	for _, c := range []struct {
		seats int
		plan  string
		extra int
		cents money.Cents
	}{
		{2, "starter", 0, 2900}, {5, "starter", 0, 2900}, {6, "pro", 0, 7900},
		{10, "pro", 0, 7900}, {11, "pro", 1, 8800}, {14, "pro", 4, 11500},
	} {
		plan, extra, cents := Quote(c.seats)
		if plan != c.plan || extra != c.extra || cents != c.cents {
			t.Errorf("Quote(%d) = %s %d %d, want %s %d %d", c.seats, plan, extra, cents, c.plan, c.extra, c.cents)
		}
		if PlanSeats(plan, extra) < c.seats {
			t.Errorf("the quote for %d seats covers %d", c.seats, PlanSeats(plan, extra))
		}
	}
	if got := SeatsAllowed("pro", "canceled", 3); got != 1 {
		t.Errorf("a canceled plan covers %d seats, want the owner alone", got)
	}
	if got := SeatsAllowed("pro", "past_due", 3); got != 13 {
		t.Errorf("a past-due pro plan with 3 extra covers %d seats, want 13", got)
	}
}

// A renewal that fails is past due and retried daily; once seven days have
// passed since the first failure the plan is canceled; a success clears it.
func TestRenew(t *testing.T) {
	due := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	ok := Renew(Renewal{Status: "active", PeriodEnd: due}, true, due)
	if ok.Status != "active" || !ok.PeriodEnd.Equal(due.AddDate(0, 1, 0)) || ok.PastDueSince != nil {
		t.Fatalf("a paid renewal: %+v", ok)
	}
	failed := Renew(Renewal{Status: "active", PeriodEnd: due}, false, due)
	if failed.Status != "past_due" || !failed.PastDueSince.Equal(due) || !failed.PeriodEnd.Equal(due.Add(24*time.Hour)) {
		t.Fatalf("a failed renewal: %+v", failed)
	}
	r := failed
	for day := 1; day < 7; day++ {
		r = Renew(r, false, due.Add(time.Duration(day)*24*time.Hour))
		if r.Status != "past_due" || !r.PastDueSince.Equal(due) {
			t.Fatalf("day %d: %+v", day, r)
		}
	}
	if end := Renew(r, false, due.Add(7*24*time.Hour-time.Second)); end.Status != "past_due" {
		t.Fatalf("a second before the grace ends: %+v", end)
	}
	if end := Renew(r, false, due.Add(7*24*time.Hour)); end.Status != "canceled" {
		t.Fatalf("seven days after the first failure: %+v", end)
	}
	if back := Renew(r, true, due.Add(3*24*time.Hour)); back.Status != "active" || back.PastDueSince != nil {
		t.Fatalf("paid while past due: %+v", back)
	}
}
