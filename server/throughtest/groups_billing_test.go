package throughtest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/ledgerentry"
	"github.com/switchboard-hq/switchboard/ent/teammember"
	"github.com/switchboard-hq/switchboard/ent/teamsubscription"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store/payments"
)

// Billing on the managed platform (issue 28 point 9; RULINGS "Teams,
// projects, invites, profiles": billing): a hub's team made without
// originInstanceUrl has one seat (its owner) until its owner subscribes; a
// seat beyond the plan is 402 PAYMENT_REQUIRED quoting the cheapest plan
// that covers it (Starter 2900 cents for 5, Pro 7900 for 10 plus 900 per
// extra seat, USD), for direct adds and accepted invites alike; each month
// is a ledger charge, the renewal made by the timer on the injected clock.
func TestTeamSeatsOnTheHub(t *testing.T) {
	t.Parallel()
	f := newGroups(t, servertest.WithRole("hub"))
	team := f.createTeam(t, f.ann, nil)
	id := team["id"].(string)
	if team["isSelfHosted"] != false {
		t.Fatalf("a platform team: %v", team)
	}
	add := func(who *servertest.Account) *servertest.Response {
		return f.ann.Session.Do(http.MethodPost, "/api/teams/"+id+"/members", map[string]any{"userId": who.ID})
	}
	seatRefused := func(res *servertest.Response, plan string, cents float64) {
		t.Helper()
		body := res.JSON(t)
		quote, _ := body["planPrice"].(map[string]any)
		if res.Status != http.StatusPaymentRequired || body["code"] != "PAYMENT_REQUIRED" ||
			quote["plan"] != plan || quote["amountCents"] != cents || quote["currency"] != "USD" {
			t.Fatalf("a seat beyond the plan: %d %s", res.Status, res.Body)
		}
	}
	members := func() int {
		t.Helper()
		return len(jsonList(t, f.getTeam(t, f.ann, id), "members"))
	}
	seatRefused(add(f.bob), "starter", 2900)
	token := wantOK(t, f.ann.Session.Do(http.MethodPost, "/api/teams/"+id+"/invites", map[string]any{}), http.StatusCreated)["token"].(string)
	seatRefused(f.bob.Session.Do(http.MethodPost, "/api/teams/invite/"+token, map[string]any{"action": "accept"}), "starter", 2900)
	if n := members(); n != 1 {
		t.Fatalf("members after two refused seats: %d", n)
	}
	if s := f.getTeam(t, f.ann, id)["subscription"]; s != nil {
		t.Fatalf("the subscription before subscribing: %v", s)
	}

	subscribe := func(a *servertest.Account, body map[string]any) *servertest.Response {
		return a.Session.Do(http.MethodPost, "/api/teams/"+id+"/subscription", body)
	}
	servertest.WantError(t, subscribe(f.ann, map[string]any{"plan": "starter", "extraSeats": 2}), http.StatusBadRequest)
	s := jsonObj(t, wantOK(t, subscribe(f.ann, map[string]any{"plan": "starter"}), http.StatusOK), "subscription")
	if s["plan"] != "starter" || s["status"] != "active" || s["seats"] != float64(5) || s["amountCents"] != float64(2900) ||
		s["currency"] != "USD" {
		t.Fatalf("the starter plan: %v", s)
	}
	if n := charges(t, f.s, f.ann.ID); n != 1 {
		t.Fatalf("ledger charges after subscribing: %d, want 1", n)
	}
	wantOK(t, f.bob.Session.Do(http.MethodPost, "/api/teams/invite/"+token, map[string]any{"action": "accept"}), http.StatusOK)
	for _, who := range []*servertest.Account{f.cat, f.dan, f.eve} {
		servertest.WantStatus(t, add(who), http.StatusCreated)
	}
	seatRefused(add(f.fay), "pro", 7900) // the 6th seat
	// Only the owner subscribes; an admin may not.
	f.s.DB.TeamMember.Update().Where(teammember.TeamID(id), teammember.UserID(f.bob.ID)).SetRole(teammember.RoleAdmin).ExecX(context.Background())
	servertest.WantError(t, subscribe(f.bob, map[string]any{"plan": "pro"}), http.StatusForbidden)
	s = jsonObj(t, wantOK(t, subscribe(f.ann, map[string]any{"plan": "pro", "extraSeats": 1}), http.StatusOK), "subscription")
	if s["seats"] != float64(11) || s["amountCents"] != float64(8800) {
		t.Fatalf("pro with an extra seat: %v", s)
	}
	servertest.WantStatus(t, add(f.fay), http.StatusCreated)
	if n := charges(t, f.s, f.ann.ID); n != 2 {
		t.Fatalf("ledger charges after the change of plan: %d, want 2", n)
	}

	// A month later the timer renews it: another charge, another month.
	end := servertest.At(t, s["currentPeriodEnd"])
	f.s.Clock.Advance(end.Sub(f.s.Clock.Now()) + time.Second)
	f.s.App.Renewals.Wake()
	servertest.WaitFor(t, "the renewal's charge", func() bool { return charges(t, f.s, f.ann.ID) == 3 })
	// (A month on, the sessions have expired: the row is read directly.)
	servertest.WaitFor(t, "the next month", func() bool {
		sub := f.s.DB.TeamSubscription.Query().Where(teamsubscription.TeamID(id)).OnlyX(context.Background())
		return sub.CurrentPeriodEnd.Equal(end.AddDate(0, 1, 0)) && sub.Status == teamsubscription.StatusActive
	})
}

// A team that is not the platform's is never gated: one made with
// originInstanceUrl on a hub, and every team of a standalone instance;
// neither subscribes here.
func TestSelfHostedTeamsAreNeverGated(t *testing.T) {
	t.Parallel()
	hub := newGroups(t, servertest.WithRole("hub"))
	standalone := newGroups(t)
	for _, c := range []struct {
		name string
		f    *groupsFixture
		body map[string]any
	}{
		{"self-hosted on a hub", hub, map[string]any{"originInstanceUrl": "https://ops.example.com"}},
		{"standalone", standalone, nil},
	} {
		f := c.f
		team := f.createTeam(t, f.ann, c.body)
		id := team["id"].(string)
		if team["isSelfHosted"] != true {
			t.Fatalf("%s: %v", c.name, team)
		}
		for _, who := range []*servertest.Account{f.bob, f.cat, f.dan, f.eve, f.fay, f.gus} {
			servertest.WantStatus(t, f.ann.Session.Do(http.MethodPost, "/api/teams/"+id+"/members", map[string]any{"userId": who.ID}), http.StatusCreated)
		}
		servertest.WantError(t, f.ann.Session.Do(http.MethodPost, "/api/teams/"+id+"/subscription", map[string]any{"plan": "pro"}), http.StatusBadRequest)
		if s := f.getTeam(t, f.ann, id)["subscription"]; s != nil {
			t.Errorf("%s: subscription %v", c.name, s)
		}
		if n := charges(t, f.s, f.ann.ID); n != 0 {
			t.Errorf("%s: %d charges", c.name, n)
		}
	}
}

// charges counts userID's subscription charges in the ledger.
func charges(t *testing.T, s *servertest.Server, userID string) int {
	t.Helper()
	n, err := s.DB.LedgerEntry.Query().Where(ledgerentry.Account(userID), ledgerentry.Kind(payments.KindSubscription)).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}
