package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/server/servertest"
)

// TestEconomyOverTheNetwork: issue 29's two-instance test, two processes
// each with its own database (SQLite, or PostgreSQL on that leg). A's owner
// hires B's owner by connection: B gets the offer as a pending item and
// its own contract linked by originContractId; approving it activates A's;
// B shares an update and asks a question, which A answers by reporting a
// result on its item; B delivers, A closes: A's ledger holds the capture
// and fee, B's the earning; both review and each then reads the other's,
// and each instance's reputation shows the review it received. A second
// engagement is disputed and A's admin splits it 70/30: both ledgers show
// it. A third closes while B is down: the move waits in A's outbox and
// reaches B once it is back; delivered again, it changes nothing.
func TestEconomyOverTheNetwork(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	a := startInstance(t, bin, "a", append([]string{"--federation-retry-schedule", "1s,2s,4s,8s"}, networkArgs...)...)
	b := startInstance(t, bin, "b", networkArgs...)
	must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/federation/connect",
		`{"peerInstanceUrl":"`+b.base+`","peerUserEmail":"owner@b.example"}`)
	connA := connections(t, b, "pending")[0]["id"].(string)
	must(t, b.owner, http.StatusOK, http.MethodPost, "/api/federation/connections/"+connA+"/accept", `{}`)
	connB := connectionTo(t, a, b.base)

	hire := func(title string, price string) (aID, bID string) {
		t.Helper()
		c := must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/economy/contracts",
			`{"provider":{"connectionId":"`+connB+`"},"taskType":"research","title":"`+title+`","scope":["one"],"priceCents":`+price+`}`)["contract"].(map[string]any)
		if c["status"] != "offered" || c["paymentHoldStatus"] != "held" || c["provider"].(map[string]any)["connectionId"] != connB {
			t.Fatalf("A's offer: %v", c)
		}
		aID = c["id"].(string)
		item := pendingTitled(t, b, "Engagement: "+title)
		var mine map[string]any
		within(t, 30*time.Second, "B's contract", func() bool {
			for _, x := range must(t, b.owner, http.StatusOK, http.MethodGet, "/api/economy/contracts?role=provider", "")["contracts"].([]any) {
				if x := x.(map[string]any); x["originContractId"] == aID {
					mine = x
				}
			}
			return mine != nil
		})
		if mine["status"] != "offered" || mine["title"] != title || mine["role"] != "provider" || mine["client"].(map[string]any)["connectionId"] != connA {
			t.Fatalf("B's contract: %v", mine)
		}
		must(t, b.owner, http.StatusOK, http.MethodPost, "/api/v2/queue/"+item["id"].(string)+"/confirm", `{"action":"approve"}`)
		within(t, 60*time.Second, "A's contract active", func() bool { return contractOn(t, a, aID)["status"] == "active" })
		return aID, mine["id"].(string)
	}
	aID, bID := hire("Market scan", "10000")
	if got := contractOn(t, b, bID); got["status"] != "active" {
		t.Fatalf("B's contract after approving: %v", got)
	}
	must(t, b.owner, http.StatusOK, http.MethodPost, "/api/economy/contracts/"+bID+"/update", `{"text":"Halfway"}`)
	must(t, b.owner, http.StatusOK, http.MethodPost, "/api/economy/contracts/"+bID+"/question", `{"question":"Pricing too?"}`)
	var question string
	within(t, 60*time.Second, "A's question item", func() bool {
		items := must(t, a.owner, http.StatusOK, http.MethodGet, "/api/v2/queue?status=ready", "")["data"].(map[string]any)["items"].([]any)
		for _, it := range items {
			if it := it.(map[string]any); it["title"] == "Answer a question on Market scan" {
				question = it["id"].(string)
			}
		}
		return question != ""
	})
	must(t, a.owner, http.StatusOK, http.MethodPost, "/api/v2/queue/"+question+"/result", `{"result":"Yes, list prices"}`)
	within(t, 60*time.Second, "B's thread has the answer", func() bool {
		for _, e := range threadOn(t, b, bID) {
			if e := e.(map[string]any); e["kind"] == "answer" && e["text"] == "Yes, list prices" {
				return true
			}
		}
		return false
	})
	if kinds := kindsOf(threadOn(t, a, aID)); !hasAll(kinds, "accept", "update", "question", "answer") {
		t.Fatalf("A's thread: %v", kinds)
	}
	must(t, b.owner, http.StatusOK, http.MethodPost, "/api/economy/contracts/"+bID+"/deliver", `{"summary":"The scan","url":"https://example.com/scan"}`)
	within(t, 60*time.Second, "A's contract delivered", func() bool { return contractOn(t, a, aID)["status"] == "delivered" })
	closed := must(t, a.owner, http.StatusOK, http.MethodPost, "/api/economy/contracts/"+aID+"/close", `{}`)["contract"].(map[string]any)
	if closed["status"] != "closed" || closed["paymentHoldStatus"] != "captured" || closed["providerEarnedCents"] != float64(9000) {
		t.Fatalf("A's close: %v", closed)
	}
	if got := ledgerOn(t, a); got["hold"] != -10000 || got["capture"] != -9000 || got["fee"] != -1000 {
		t.Fatalf("A's ledger: %v", got)
	}
	within(t, 60*time.Second, "B's earning", func() bool { return ledgerOn(t, b)["earning"] == 9000 })
	if got := contractOn(t, b, bID); got["status"] != "closed" || got["providerEarnedCents"] != float64(9000) {
		t.Fatalf("B's closed contract: %v", got)
	}

	// Reviews: each side's is told at once and sent when both are in.
	must(t, b.owner, http.StatusCreated, http.MethodPost, "/api/economy/contracts/"+bID+"/review",
		`{"overall":4,"communication":5,"quality":4,"timeliness":4,"text":"Clear brief"}`)
	within(t, 60*time.Second, "A told of B's review", func() bool {
		return must(t, a.owner, http.StatusOK, http.MethodGet, "/api/economy/contracts/"+aID, "")["counterpartReviewed"] == true
	})
	if n := len(reviewsOn(t, a, aID)); n != 0 {
		t.Fatalf("A reads %d reviews before reviewing", n)
	}
	must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/economy/contracts/"+aID+"/review",
		`{"overall":2,"communication":3,"quality":2,"timeliness":2}`)
	within(t, 60*time.Second, "both read both reviews", func() bool {
		return len(reviewsOn(t, a, aID)) == 2 && len(reviewsOn(t, b, bID)) == 2
	})
	clientID := closed["clientUserId"].(string)
	providerID := contractOn(t, b, bID)["provider"].(map[string]any)["userId"].(string)
	within(t, 30*time.Second, "the reputations", func() bool {
		ra := reputationOn(t, a, clientID)
		rb := reputationOn(t, b, providerID)
		return ra["avgClientRating"] == float64(4) && ra["avgProviderRating"] == nil &&
			rb["avgProviderRating"] == float64(2) && rb["avgClientRating"] == nil
	})

	// A dispute, split 70/30 by A's admin.
	a2, b2 := hire("Second", "10000")
	must(t, b.owner, http.StatusOK, http.MethodPost, "/api/economy/contracts/"+b2+"/deliver", `{"summary":"Part"}`)
	within(t, 60*time.Second, "A's second delivered", func() bool { return contractOn(t, a, a2)["status"] == "delivered" })
	must(t, a.owner, http.StatusOK, http.MethodPost, "/api/economy/contracts/"+a2+"/dispute", `{"reason":"Half missing"}`)
	within(t, 60*time.Second, "B's second disputed", func() bool { return contractOn(t, b, b2)["status"] == "disputed" })
	must(t, a.owner, http.StatusOK, http.MethodPost, "/api/admin/disputes/"+a2, `{"outcome":"split","providerPercent":70}`)
	if got := ledgerOn(t, a); got["refund"] != 3000 || got["capture"] != -9000-6300 || got["fee"] != -1000-700 {
		t.Fatalf("A's ledger after the split: %v", got)
	}
	within(t, 60*time.Second, "B's split earning", func() bool { return ledgerOn(t, b)["earning"] == 9000+6300 })
	if got := contractOn(t, b, b2); got["status"] != "closed" || got["disputeOutcome"] != "split" || got["providerEarnedCents"] != float64(6300) {
		t.Fatalf("B's settled dispute: %v", got)
	}

	// B down while A closes: the move waits in A's outbox.
	a3, b3 := hire("Third", "5000")
	must(t, b.owner, http.StatusOK, http.MethodPost, "/api/economy/contracts/"+b3+"/deliver", `{"summary":"All"}`)
	within(t, 60*time.Second, "A's third delivered", func() bool { return contractOn(t, a, a3)["status"] == "delivered" })
	b.stop(t)
	must(t, a.owner, http.StatusOK, http.MethodPost, "/api/economy/contracts/"+a3+"/close", `{}`)
	time.Sleep(1500 * time.Millisecond) // at least one attempt fails while B is down
	b.start(t, bin)
	within(t, 90*time.Second, "B's third closed after its return", func() bool { return contractOn(t, b, b3)["status"] == "closed" })
	if got := ledgerOn(t, b); got["earning"] != 9000+6300+4500 {
		t.Fatalf("B's ledger after its return: %v", got)
	}
	// The close delivered again (a replay from A's outbox) changes nothing.
	replayed := replayDelivery(t, a, `"move":"close"`, a3)
	// A's next move (a review's notice) wakes its outbox, which sends both.
	must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/economy/contracts/"+a3+"/review",
		`{"overall":5,"communication":5,"quality":5,"timeliness":5}`)
	within(t, 60*time.Second, "the replayed close delivered", func() bool {
		return deliveryOn(t, a, replayed).Status == "delivered"
	})
	if got := ledgerOn(t, b); got["earning"] != 9000+6300+4500 {
		t.Fatalf("B's ledger after a replayed close: %v", got)
	}
	closes := 0
	for _, k := range kindsOf(threadOn(t, b, b3)) {
		if k == "close" {
			closes++
		}
	}
	if closes != 1 {
		t.Fatalf("B's thread after a replayed close has %d closes", closes)
	}
}

func contractOn(t *testing.T, in *instance, id string) map[string]any {
	t.Helper()
	return must(t, in.owner, http.StatusOK, http.MethodGet, "/api/economy/contracts/"+id, "")["contract"].(map[string]any)
}

func threadOn(t *testing.T, in *instance, id string) []any {
	t.Helper()
	list, _ := must(t, in.owner, http.StatusOK, http.MethodGet, "/api/economy/contracts/"+id, "")["thread"].([]any)
	return list
}

func reviewsOn(t *testing.T, in *instance, id string) []any {
	t.Helper()
	list, _ := must(t, in.owner, http.StatusOK, http.MethodGet, "/api/economy/contracts/"+id, "")["reviews"].([]any)
	return list
}

// ledgerOn sums the owner's economy ledger by kind.
func ledgerOn(t *testing.T, in *instance) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	rows, _ := must(t, in.owner, http.StatusOK, http.MethodGet, "/api/economy/ledger?limit=100", "")["rows"].([]any)
	for _, r := range rows {
		r := r.(map[string]any)
		out[r["kind"].(string)] += r["amountCents"].(float64)
	}
	return out
}

func reputationOn(t *testing.T, in *instance, userID string) map[string]any {
	t.Helper()
	rep, _ := must(t, in.owner, http.StatusOK, http.MethodGet, "/api/profiles/"+userID, "")["reputation"].(map[string]any)
	return rep
}

func kindsOf(thread []any) []string {
	var out []string
	for _, e := range thread {
		out = append(out, e.(map[string]any)["kind"].(string))
	}
	return out
}

func hasAll(have []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

// TestAuctionOverTheNetwork: issue 29's auction across three processes. A's
// owner posts an auction shared with its connections to B's and C's owners;
// both apply from the copy their board received (relayed to A through the
// outbox), and a user of A applies directly. At closesAt A's timer awards
// the best by find_providers' score with price fit: B's (the closest skills,
// a middle price) over C's cheaper but thinner and A's local one. A holds
// the price and offers B the engagement (B's pending item, its contract
// linked to A's, its application awarded); C and A's user are declined, and
// both remote boards show the job closed.
func TestAuctionOverTheNetwork(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	a := startInstance(t, bin, "a", networkArgs...)
	b := startInstance(t, bin, "b", networkArgs...)
	c := startInstance(t, bin, "c", networkArgs...)
	conns := map[*instance]string{}
	for _, peer := range []*instance{b, c} {
		must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/federation/connect",
			`{"peerInstanceUrl":"`+peer.base+`","peerUserEmail":"owner@`+peer.name+`.example"}`)
		pending := connections(t, peer, "pending")[0]["id"].(string)
		must(t, peer.owner, http.StatusOK, http.MethodPost, "/api/federation/connections/"+pending+"/accept", `{}`)
		conns[peer] = connectionTo(t, a, peer.base)
	}
	local := newClient(t, a.base)
	must(t, local, http.StatusCreated, http.MethodPost, "/api/signup",
		`{"username":"dee","email":"dee@a.example","password":"`+servertest.Password+`","name":"Dee"}`)
	must(t, local, http.StatusOK, http.MethodPost, "/api/auth/login", `{"username":"dee","password":"`+servertest.Password+`"}`)
	// Route scores for new applicants: (30 × skill match + 30 + 10) / 100;
	// score 0.8 × route + 0.2 × (1 − price / 10000).
	declared := map[*client]string{b.owner: `["go","sql","postgres"]`, c.owner: `["go"]`, local: `["go"]`}
	for who, skills := range declared {
		must(t, who, http.StatusCreated, http.MethodPost, "/api/economy/capabilities", `{"taskType":"technical","skills":`+skills+`}`)
	}
	closes := time.Now().Add(6 * time.Second).UTC().Format(time.RFC3339)
	posted := must(t, a.owner, http.StatusCreated, http.MethodPost, "/api/federation/jobs-board",
		`{"title":"Port the billing job","description":"Move the nightly billing job to Go","taskType":"technical",`+
			`"requiredSkills":["go","sql","postgres"],"mode":"auction","maxPriceCents":10000,"closesAt":"`+closes+`"}`)
	jobID := posted["job"].(map[string]any)["id"].(string)
	for _, d := range posted["deliveries"].([]any) {
		if d.(map[string]any)["delivered"] != true {
			t.Fatalf("the auction's deliveries: %v", posted["deliveries"])
		}
	}
	received := func(in *instance) map[string]any {
		t.Helper()
		var found map[string]any
		within(t, 30*time.Second, in.name+"'s copy of the job", func() bool {
			for _, j := range must(t, in.owner, http.StatusOK, http.MethodGet, "/api/federation/jobs-board?origin=received", "")["jobs"].([]any) {
				if j := j.(map[string]any); j["title"] == "Port the billing job" {
					found = j
				}
			}
			return found != nil
		})
		return found
	}
	bJob, cJob := received(b), received(c)
	if bJob["mode"] != "auction" || bJob["maxPriceCents"] != float64(10000) || bJob["closesAt"] == nil {
		t.Fatalf("B's copy of the auction: %v", bJob)
	}
	// B: 0.7 route, 5000 → 0.66; C: 0.5, 3000 → 0.54; Dee: 0.5, 6000 → 0.48.
	bApp := must(t, b.owner, http.StatusCreated, http.MethodPost, "/api/federation/jobs/"+bJob["id"].(string)+"/apply",
		`{"message":"Done this twice","priceCents":5000,"etaDays":3}`)["application"].(map[string]any)
	must(t, c.owner, http.StatusCreated, http.MethodPost, "/api/federation/jobs/"+cJob["id"].(string)+"/apply", `{"priceCents":3000,"etaDays":2}`)
	must(t, local, http.StatusCreated, http.MethodPost, "/api/federation/jobs/"+jobID+"/apply", `{"priceCents":6000,"etaDays":4}`)
	if bApp["status"] != "pending" || bApp["capability"].(map[string]any)["taskType"] != "technical" {
		t.Fatalf("B's application: %v", bApp)
	}
	applications := func() []any {
		list, _ := must(t, a.owner, http.StatusOK, http.MethodGet, "/api/federation/jobs/"+jobID+"/applications", "")["applications"].([]any)
		return list
	}
	within(t, 4*time.Second, "A has the three applications before closesAt", func() bool { return len(applications()) == 3 })

	within(t, 30*time.Second, "the auction's award at closesAt", func() bool {
		return jobOnBoard(t, a, jobID)["status"] == "closed"
	})
	job := jobOnBoard(t, a, jobID)
	var awarded map[string]any
	for _, x := range applications() {
		x := x.(map[string]any)
		who, _ := x["applicant"].(map[string]any)["connectionId"].(string)
		switch {
		case who == conns[b]:
			awarded = x
		case x["status"] != "declined":
			t.Fatalf("an application other than B's: %v", x)
		}
	}
	if awarded == nil || awarded["status"] != "awarded" || job["awardedApplicationId"] != awarded["id"] || awarded["score"] != 0.66 {
		t.Fatalf("the award: job %v, B's application %v", job, awarded)
	}
	contract := contractOn(t, a, job["contractId"].(string))
	if contract["status"] != "offered" || contract["priceCents"] != float64(5000) ||
		contract["provider"].(map[string]any)["connectionId"] != conns[b] {
		t.Fatalf("A's contract: %v", contract)
	}
	if got := ledgerOn(t, a); got["hold"] != -5000 {
		t.Fatalf("A's ledger: %v", got)
	}
	within(t, 30*time.Second, "B's offer", func() bool {
		for _, it := range must(t, b.owner, http.StatusOK, http.MethodGet, "/api/v2/queue?status=pending_confirmation", "")["data"].(map[string]any)["items"].([]any) {
			if it.(map[string]any)["title"] == "Engagement: Port the billing job" {
				return true
			}
		}
		return false
	})
	bApps := func(in *instance, id string) map[string]any {
		list := must(t, in.owner, http.StatusOK, http.MethodGet, "/api/federation/jobs/"+id+"/applications", "")["applications"].([]any)
		return only(t, list)
	}
	within(t, 30*time.Second, "B's application awarded, with B's contract", func() bool {
		mine := bApps(b, bJob["id"].(string))
		if mine["status"] != "awarded" || mine["contractId"] == nil {
			return false
		}
		return contractOn(t, b, mine["contractId"].(string))["originContractId"] == contract["id"]
	}, func() string { return fmt.Sprint(bApps(b, bJob["id"].(string))) })
	within(t, 30*time.Second, "C's application declined", func() bool { return bApps(c, cJob["id"].(string))["status"] == "declined" })
	for _, in := range []*instance{b, c} {
		within(t, 30*time.Second, in.name+"'s copy closed", func() bool { return received(in)["status"] == "closed" })
	}
}

// jobOnBoard is the job of in's owner's board with that id.
func jobOnBoard(t *testing.T, in *instance, id string) map[string]any {
	t.Helper()
	for _, j := range must(t, in.owner, http.StatusOK, http.MethodGet, "/api/federation/jobs-board?limit=100", "")["jobs"].([]any) {
		if j := j.(map[string]any); j["id"] == id {
			return j
		}
	}
	t.Fatalf("%s's board has no job %s", in.name, id)
	return nil
}
