package throughtest

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The job market on one instance (issue 29, point 5; RULINGS "The task
// economy": Jobs): users here apply to another user's job, its owner
// awards one (hire_provider with the application's terms), and an auction
// awards the best at closesAt on the economy's timer.

// postJob posts a job on who's board (shared with nobody) and answers it.
func postJob(t *testing.T, who *servertest.Account, body map[string]any) map[string]any {
	t.Helper()
	base := map[string]any{"title": "Port the billing job", "description": "Move the nightly billing job to Go",
		"taskType": "technical", "requiredSkills": []string{"go", "sql", "postgres"}}
	for k, v := range body {
		base[k] = v
	}
	return jsonObj(t, wantOK(t, who.Session.Do(http.MethodPost, "/api/federation/jobs-board", base), http.StatusCreated), "job")
}

func apply(t *testing.T, who *servertest.Account, jobID string, price, eta int, status int) map[string]any {
	t.Helper()
	res := who.Session.Do(http.MethodPost, "/api/federation/jobs/"+jobID+"/apply",
		map[string]any{"message": "I can do it", "priceCents": price, "etaDays": eta})
	if status != http.StatusCreated {
		servertest.WantError(t, res, status)
		return res.JSON(t)
	}
	return jsonObj(t, wantOK(t, res, status), "application")
}

func applications(t *testing.T, who *servertest.Account, jobID string) []any {
	t.Helper()
	return jsonList(t, wantOK(t, who.Session.Do(http.MethodGet, "/api/federation/jobs/"+jobID+"/applications", nil), http.StatusOK), "applications")
}

// byApplicant indexes a job's applications by their applicant's user id.
func byApplicant(t *testing.T, apps []any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, a := range apps {
		m := jsonObj(t, a)
		out[jsonObj(t, m, "applicant")["userId"].(string)] = m
	}
	return out
}

// jobOn is the job as its owner's board lists it.
func jobOn(t *testing.T, who *servertest.Account, id string) map[string]any {
	t.Helper()
	for _, j := range jsonList(t, wantOK(t, who.Session.Do(http.MethodGet, "/api/federation/jobs-board?limit=100", nil), http.StatusOK), "jobs") {
		if m := jsonObj(t, j); m["id"] == id {
			return m
		}
	}
	t.Fatalf("job %s is not on %s's board", id, who.Username)
	return nil
}

func declare(t *testing.T, who *servertest.Account, taskType string, skills ...string) {
	t.Helper()
	wantOK(t, who.Session.Do(http.MethodPost, "/api/economy/capabilities", map[string]any{
		"taskType": taskType, "skills": skills, "pricingModel": "flat", "price": 80, "currency": "USD"}), http.StatusCreated)
}

// A direct job: two users apply, the owner reads both (cheapest first),
// each applicant only their own; the award hires the chosen applicant with
// the application's price and estimate (an offer in their queue, the
// client's hold), closes the job and declines the other.
func TestJobAwardedDirectly(t *testing.T) {
	t.Parallel()
	f := newEconomy(t)
	declare(t, f.bob, "technical", "go", "sql")
	job := postJob(t, f.ann, nil)
	id := job["id"].(string)
	if job["mode"] != "direct" || job["status"] != "open" || job["closesAt"] != nil {
		t.Fatalf("a direct job: %v", job)
	}
	mine := apply(t, f.bob, id, 4200, 5, http.StatusCreated)
	if mine["status"] != "pending" || mine["priceCents"] != float64(4200) || mine["etaDays"] != float64(5) ||
		jsonObj(t, mine, "capability")["taskType"] != "technical" || len(jsonList(t, mine, "capability", "skills")) != 2 {
		t.Fatalf("bob's application: %v", mine)
	}
	catApp := apply(t, f.cat, id, 3900, 0, http.StatusCreated)
	if catApp["capability"] != nil {
		t.Fatalf("an applicant without a capability for the task type: %v", catApp)
	}
	all := applications(t, f.ann, id)
	if len(all) != 2 || jsonObj(t, all[0])["id"] != catApp["id"] {
		t.Fatalf("the owner's list, cheapest first: %v", all)
	}
	if own := applications(t, f.bob, id); len(own) != 1 || jsonObj(t, own[0])["id"] != mine["id"] {
		t.Fatalf("bob reads %v, want his own", own)
	}
	servertest.WantError(t, f.boss.Session.Do(http.MethodGet, "/api/federation/jobs/"+id+"/applications", nil), http.StatusNotFound)

	res := wantOK(t, f.ann.Session.Do(http.MethodPost, "/api/federation/jobs/"+id+"/award",
		map[string]any{"applicationId": mine["id"]}), http.StatusOK)
	c := jsonObj(t, res, "contract")
	if c["status"] != "offered" || c["priceCents"] != float64(4200) || jsonObj(t, c, "provider")["userId"] != f.bob.ID ||
		c["title"] != "Port the billing job" || c["taskType"] != "technical" || c["dueAt"] == nil ||
		jsonList(t, c, "scope")[0] != "Move the nightly billing job to Go" {
		t.Fatalf("the award's contract: %v", c)
	}
	if d := servertest.At(t, c["dueAt"]).Sub(f.s.Clock.Now()); d < 5*24*time.Hour-time.Second || d > 5*24*time.Hour+time.Second {
		t.Fatalf("due in %v, want the application's five days", d)
	}
	if j := jsonObj(t, res, "job"); j["status"] != "closed" || j["awardedApplicationId"] != mine["id"] || j["contractId"] != c["id"] {
		t.Fatalf("the awarded job: %v", j)
	}
	f.itemOf(t, f.bob.ID, c["id"].(string), "accept")
	if got := sums(t, f.ledger(t, f.ann)); got["hold"] != -4200 {
		t.Fatalf("the owner's ledger after the award: %v", got)
	}
	apps := byApplicant(t, applications(t, f.ann, id))
	if a := apps[f.bob.ID]; a["status"] != "awarded" || a["contractId"] != c["id"] {
		t.Fatalf("the awarded application: %v", a)
	}
	if a := apps[f.cat.ID]; a["status"] != "declined" || !strings.Contains(a["reason"].(string), "awarded to another") {
		t.Fatalf("the other application: %v", a)
	}
	// Awarded once: neither a second award nor a late application.
	servertest.WantError(t, f.ann.Session.Do(http.MethodPost, "/api/federation/jobs/"+id+"/award",
		map[string]any{"applicationId": catApp["id"]}), http.StatusBadRequest)
	if body := apply(t, f.boss, id, 1000, 1, http.StatusBadRequest); !strings.Contains(body["error"].(string), "awarded") {
		t.Fatalf("a late application: %v", body)
	}
}

// What the market refuses: another account's job is 404 to its award and
// its list, one's own job takes no application from oneself, one
// application per applicant (409), a closed job none (400 naming it, and
// closing declines the pending ones), an auction none past closesAt and no
// award by hand; an auction needs closesAt in the future and a maximum.
func TestJobRefusals(t *testing.T) {
	t.Parallel()
	f := newEconomy(t)
	id := postJob(t, f.ann, nil)["id"].(string)
	servertest.WantError(t, f.cat.Session.Do(http.MethodPost, "/api/federation/jobs/"+id+"/award",
		map[string]any{"applicationId": "x"}), http.StatusNotFound)
	servertest.WantError(t, f.cat.Session.Do(http.MethodPost, "/api/federation/jobs/nope/apply",
		map[string]any{"priceCents": 100}), http.StatusNotFound)
	if body := apply(t, f.ann, id, 1000, 1, http.StatusBadRequest); !strings.Contains(body["error"].(string), "your own job") {
		t.Fatalf("applying to one's own job: %v", body)
	}
	bob := apply(t, f.bob, id, 1000, 1, http.StatusCreated)
	apply(t, f.bob, id, 900, 1, http.StatusConflict)
	servertest.WantError(t, f.ann.Session.Do(http.MethodPost, "/api/federation/jobs/"+id+"/award",
		map[string]any{"applicationId": "nope"}), http.StatusNotFound)
	servertest.WantError(t, f.bob.Session.Do(http.MethodPost, "/api/federation/jobs/"+id+"/apply",
		map[string]any{"priceCents": 0}), http.StatusBadRequest)

	wantOK(t, f.ann.Session.Do(http.MethodPost, "/api/federation/jobs-board/"+id+"/close", map[string]any{}), http.StatusOK)
	if body := apply(t, f.cat, id, 1000, 1, http.StatusBadRequest); !strings.Contains(body["error"].(string), "it is closed") {
		t.Fatalf("applying to a closed job: %v", body)
	}
	if a := jsonObj(t, applications(t, f.bob, id)[0]); a["id"] != bob["id"] || a["status"] != "declined" ||
		!strings.Contains(a["reason"].(string), "closed without an award") {
		t.Fatalf("an application to a job closed by hand: %v", a)
	}

	now := f.s.Clock.Now().UTC()
	for _, bad := range []map[string]any{
		{"mode": "auction", "maxPriceCents": 5000},
		{"mode": "auction", "closesAt": now.Add(time.Hour).Format(time.RFC3339)},
		{"mode": "auction", "maxPriceCents": 5000, "closesAt": now.Add(-time.Minute).Format(time.RFC3339)},
		{"mode": "auction", "maxPriceCents": 0, "closesAt": now.Add(time.Hour).Format(time.RFC3339)},
		{"maxPriceCents": 5000},
		{"mode": "sealed"},
	} {
		body := map[string]any{"title": "x", "description": "y"}
		for k, v := range bad {
			body[k] = v
		}
		servertest.WantError(t, f.ann.Session.Do(http.MethodPost, "/api/federation/jobs-board", body), http.StatusBadRequest)
	}
	auction := postJob(t, f.ann, map[string]any{"mode": "auction", "maxPriceCents": 5000,
		"closesAt": now.Add(time.Hour).Format(time.RFC3339)})
	aid := auction["id"].(string)
	if auction["mode"] != "auction" || auction["maxPriceCents"] != float64(5000) || auction["closesAt"] == nil {
		t.Fatalf("an auction: %v", auction)
	}
	early := apply(t, f.bob, aid, 1000, 1, http.StatusCreated)
	if body := wantErrorBody(t, f.ann.Session.Do(http.MethodPost, "/api/federation/jobs/"+aid+"/award",
		map[string]any{"applicationId": early["id"]}), http.StatusBadRequest); !strings.Contains(body, "auction") {
		t.Fatalf("an auction awarded by hand: %s", body)
	}
	// Past closesAt, whether or not the timer has looked: too late.
	f.s.Clock.Advance(time.Hour)
	if body := apply(t, f.cat, aid, 1000, 1, http.StatusBadRequest); !strings.Contains(body["error"].(string), "takes no applications") {
		t.Fatalf("applying after closesAt: %v", body)
	}
}

func wantErrorBody(t *testing.T, res *servertest.Response, status int) string {
	t.Helper()
	servertest.WantError(t, res, status)
	return string(res.Body)
}

// An auction awards at closesAt the best application by find_providers'
// score with price fit, not the cheapest: the job asks go, sql and
// postgres for at most 10000 cents. Every applicant is new (route_task's
// history factors neutral, 0.5), so the route score is (30 × skill match +
// 30 + 10 × same task type) / 100 and the score 0.8 × route + 0.2 × (1 −
// price / 10000):
//
//	bob, technical {go, sql, postgres}, 9000: route 0.70, fit 0.1 → 0.58
//	cat, technical {go},                3000: route 0.50, fit 0.7 → 0.54
//	dan, nothing declared,              2000: route 0.30, fit 0.8 → 0.40
func TestAuctionAwardsTheBest(t *testing.T) {
	t.Parallel()
	f := newEconomy(t)
	dan := f.s.SignUp("dan")
	declare(t, f.bob, "technical", "go", "sql", "postgres")
	declare(t, f.cat, "technical", "go")
	declare(t, f.cat, "creative", "go", "sql", "postgres") // another task type: not the job's
	closes := f.s.Clock.Now().UTC().Add(time.Hour)
	id := postJob(t, f.ann, map[string]any{"mode": "auction", "maxPriceCents": 10000, "closesAt": closes.Format(time.RFC3339)})["id"].(string)
	apply(t, f.bob, id, 9000, 10, http.StatusCreated)
	apply(t, f.cat, id, 3000, 10, http.StatusCreated)
	apply(t, dan, id, 2000, 10, http.StatusCreated)

	f.s.Clock.Advance(time.Hour - time.Minute)
	f.s.App.Economy.Wake()
	if j := jobOn(t, f.ann, id); j["status"] != "open" {
		t.Fatalf("a minute before closesAt: %v", j)
	}
	f.s.Clock.Advance(2 * time.Minute)
	f.s.App.Economy.Wake()
	servertest.WaitFor(t, "the auction's award", func() bool { return jobOn(t, f.ann, id)["status"] == "closed" })
	j := jobOn(t, f.ann, id)
	apps := byApplicant(t, applications(t, f.ann, id))
	if j["awardedApplicationId"] != apps[f.bob.ID]["id"] || j["contractId"] == nil {
		t.Fatalf("the auction went to %v, want bob's (%v); applications %v", j["awardedApplicationId"], apps[f.bob.ID]["id"], apps)
	}
	for who, want := range map[string]struct {
		status string
		score  float64
	}{f.bob.ID: {"awarded", 0.58}, f.cat.ID: {"declined", 0.54}, dan.ID: {"declined", 0.4}} {
		if a := apps[who]; a["status"] != want.status || a["score"] != want.score {
			t.Fatalf("application of %s: %v, want %s scored %v", who, a, want.status, want.score)
		}
	}
	c := jsonObj(t, f.contract(t, f.ann, j["contractId"].(string)), "contract")
	if c["status"] != "offered" || c["priceCents"] != float64(9000) || jsonObj(t, c, "provider")["userId"] != f.bob.ID {
		t.Fatalf("the auction's contract: %v", c)
	}
	f.itemOf(t, f.bob.ID, c["id"].(string), "accept")
}

// An auction nobody applied to closes unawarded at closesAt: no contract,
// and it takes no application after.
func TestAuctionNobodyApplied(t *testing.T) {
	t.Parallel()
	f := newEconomy(t)
	id := postJob(t, f.ann, map[string]any{"mode": "auction", "maxPriceCents": 10000,
		"closesAt": f.s.Clock.Now().UTC().Add(time.Hour).Format(time.RFC3339)})["id"].(string)
	f.s.Clock.Advance(time.Hour + time.Minute)
	f.s.App.Economy.Wake()
	servertest.WaitFor(t, "the auction's close", func() bool { return jobOn(t, f.ann, id)["status"] == "closed" })
	if j := jobOn(t, f.ann, id); j["awardedApplicationId"] != nil || j["contractId"] != nil || j["closedAt"] == nil {
		t.Fatalf("an auction nobody applied to: %v", j)
	}
	if n := len(jsonList(t, wantOK(t, f.ann.Session.Do(http.MethodGet, "/api/economy/contracts", nil), http.StatusOK), "contracts")); n != 0 {
		t.Fatalf("%d contracts after an empty auction", n)
	}
	apply(t, f.bob, id, 1000, 1, http.StatusBadRequest)
}
