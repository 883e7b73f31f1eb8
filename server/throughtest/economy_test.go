package throughtest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/ent/streamevent"
	"github.com/switchboard-hq/switchboard/ent/userreputation"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// The task economy on one instance (issue 29; RULINGS "The task economy"):
// both sides are users here, the money is this instance's ledger.

type economyFixture struct {
	s             *servertest.Server
	boss          *servertest.Account // the instance admin
	ann, bob, cat *servertest.Account
}

// newEconomy starts the server; call it after t.Parallel().
func newEconomy(t *testing.T, opts ...servertest.Option) *economyFixture {
	t.Helper()
	s := servertest.New(t, opts...)
	return &economyFixture{s: s, boss: s.SignUp("boss"), ann: s.SignUp("ann"), bob: s.SignUp("bob"), cat: s.SignUp("cat")}
}

// hire is client hiring a local provider at price cents.
func (f *economyFixture) hire(t *testing.T, client, provider *servertest.Account, price int) map[string]any {
	t.Helper()
	body := wantOK(t, client.Session.Do(http.MethodPost, "/api/economy/contracts", map[string]any{
		"provider": map[string]any{"userId": provider.ID}, "taskType": "research", "title": "Market scan",
		"scope": []string{"ten competitors", "a summary"}, "priceCents": price, "currency": "USD",
	}), http.StatusCreated)
	return jsonObj(t, body, "contract")
}

func (f *economyFixture) contract(t *testing.T, who *servertest.Account, id string) map[string]any {
	t.Helper()
	return wantOK(t, who.Session.Do(http.MethodGet, "/api/economy/contracts/"+id, nil), http.StatusOK)
}

func (f *economyFixture) move(t *testing.T, who *servertest.Account, id, move string, body map[string]any, status int) map[string]any {
	t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	res := who.Session.Do(http.MethodPost, "/api/economy/contracts/"+id+"/"+move, body)
	if status != http.StatusOK && status != http.StatusCreated {
		servertest.WantError(t, res, status)
		return nil
	}
	return jsonObj(t, wantOK(t, res, status), "contract")
}

// offerItem is the provider's queue item for contract id.
func (f *economyFixture) itemOf(t *testing.T, userID, contractID, move string) string {
	t.Helper()
	items, err := f.s.DB.QueueItem.Query().Where(queueitem.UserID(userID)).All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		var meta map[string]any
		if json.Unmarshal([]byte(it.Metadata), &meta) == nil && meta["contractId"] == contractID && meta["contractMove"] == move {
			return it.ID
		}
	}
	t.Fatalf("no %s item of contract %s for %s", move, contractID, userID)
	return ""
}

func (f *economyFixture) ledger(t *testing.T, who *servertest.Account) []any {
	t.Helper()
	return jsonList(t, wantOK(t, who.Session.Do(http.MethodGet, "/api/economy/ledger", nil), http.StatusOK), "rows")
}

// sums adds a ledger view's rows by kind.
func sums(t *testing.T, rows []any) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, r := range rows {
		m := r.(map[string]any)
		out[m["kind"].(string)] += m["amountCents"].(float64)
	}
	return out
}

// A whole engagement between two users of one instance: the offer is the
// provider's queue item, approving it accepts; an update, a question
// answered by reporting a result on its item, a deliverable, the close with
// its capture and fee in cents, and mutual blind reviews feeding both
// reputations.
func TestEngagementOnOneInstance(t *testing.T) {
	t.Parallel()
	f := newEconomy(t)
	c := f.hire(t, f.ann, f.bob, 12345)
	id := c["id"].(string)
	if c["status"] != "offered" || c["paymentHoldStatus"] != "held" || c["priceCents"] != float64(12345) ||
		c["feeCents"] != float64(1235) || c["role"] != "client" || jsonObj(t, c, "provider")["userId"] != f.bob.ID {
		t.Fatalf("the offer: %v", c)
	}
	if got := sums(t, f.ledger(t, f.ann)); got["hold"] != -12345 || len(got) != 1 {
		t.Fatalf("the client's ledger after hiring: %v", got)
	}
	// The provider's open streams hear of the offer at once (new_message).
	heard := false
	for _, ev := range f.s.DB.StreamEvent.Query().Where(streamevent.UserID(f.bob.ID)).AllX(context.Background()) {
		heard = heard || (bytes.Contains(ev.Payload, []byte("new_message")) && bytes.Contains(ev.Payload, []byte("approve the offer")))
	}
	if !heard {
		t.Fatal("the offer's comms message emitted no new_message to the provider's streams")
	}
	// The provider sees it as provider; a third account does not see it.
	if got := jsonObj(t, f.contract(t, f.bob, id), "contract"); got["role"] != "provider" || got["status"] != "offered" {
		t.Fatalf("the provider's view: %v", got)
	}
	servertest.WantError(t, f.cat.Session.Do(http.MethodGet, "/api/economy/contracts/"+id, nil), http.StatusNotFound)
	servertest.WantError(t, f.cat.Session.Do(http.MethodPost, "/api/economy/contracts/"+id+"/accept", map[string]any{}), http.StatusNotFound)
	// Only the provider accepts; approving the offer's item does.
	f.move(t, f.ann, id, "accept", nil, http.StatusForbidden)
	offer := f.itemOf(t, f.bob.ID, id, "accept")
	wantOK(t, f.bob.Session.Do(http.MethodPost, "/api/v2/queue/"+offer+"/confirm", map[string]any{"action": "approve"}), http.StatusOK)
	if got := jsonObj(t, f.contract(t, f.ann, id), "contract"); got["status"] != "active" {
		t.Fatalf("after the provider approved the offer: %v", got)
	}
	f.move(t, f.bob, id, "accept", nil, http.StatusBadRequest) // accepted already

	f.move(t, f.bob, id, "update", map[string]any{"text": "Halfway through"}, http.StatusOK)
	f.move(t, f.ann, id, "question", map[string]any{"question": "Include pricing?"}, http.StatusOK)
	q := f.itemOf(t, f.bob.ID, id, "question")
	wantOK(t, f.bob.Session.Do(http.MethodPost, "/api/v2/queue/"+q+"/result", map[string]any{"result": "Yes, list prices"}), http.StatusOK)
	f.move(t, f.ann, id, "close", nil, http.StatusBadRequest) // nothing delivered yet
	f.move(t, f.ann, id, "deliver", map[string]any{"summary": "Done"}, http.StatusForbidden)
	f.move(t, f.bob, id, "deliver", map[string]any{"summary": "The scan", "url": "https://example.com/scan"}, http.StatusOK)
	f.move(t, f.bob, id, "close", nil, http.StatusForbidden)
	closed := f.move(t, f.ann, id, "close", nil, http.StatusOK)
	if closed["status"] != "closed" || closed["paymentHoldStatus"] != "captured" || closed["providerEarnedCents"] != float64(11110) ||
		closed["reviewWindowEndsAt"] == nil {
		t.Fatalf("closed: %v", closed)
	}
	thread := jsonList(t, f.contract(t, f.ann, id), "thread")
	var kinds []string
	var answer string
	for _, e := range thread {
		m := e.(map[string]any)
		kinds = append(kinds, m["kind"].(string))
		if m["kind"] == "answer" {
			answer, _ = m["text"].(string)
		}
	}
	want := []string{"accept", "update", "question", "answer", "deliver", "close"}
	if len(kinds) != len(want) || answer != "Yes, list prices" {
		t.Fatalf("the thread: %v (answer %q), want %v", kinds, answer, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("the thread: %v, want %v", kinds, want)
		}
	}
	// In cents: the client held 12345; the provider earned 12345 − ceil(1234.5).
	if got := sums(t, f.ledger(t, f.ann)); got["hold"] != -12345 || got["earning"] != -11110 || got["fee"] != -1235 {
		t.Fatalf("the client's ledger after closing: %v", got)
	}
	bobLedger := wantOK(t, f.bob.Session.Do(http.MethodGet, "/api/economy/ledger", nil), http.StatusOK)
	if got := sums(t, jsonList(t, bobLedger, "rows")); got["earning"] != 11110 || len(got) != 1 {
		t.Fatalf("the provider's ledger: %v", got)
	}
	if tot := jsonList(t, bobLedger, "totals"); len(tot) != 1 || jsonObj(t, tot[0])["engagementCents"] != float64(11110) {
		t.Fatalf("the provider's totals: %v", tot)
	}

	// Blind reviews: the provider's is hidden from the client until both are in.
	f.move(t, f.bob, id, "review", map[string]any{"overall": 4, "communication": 5, "quality": 4, "timeliness": 3, "text": "Clear brief"}, http.StatusCreated)
	f.move(t, f.bob, id, "review", map[string]any{"overall": 4, "communication": 5, "quality": 4, "timeliness": 3}, http.StatusConflict)
	seen := f.contract(t, f.ann, id)
	if len(jsonList(t, seen, "reviews")) != 0 || seen["counterpartReviewed"] != true {
		t.Fatalf("the client's view before reviewing: %v", seen)
	}
	if n := len(jsonList(t, f.contract(t, f.bob, id), "reviews")); n != 1 {
		t.Fatalf("the provider sees %d reviews, want its own", n)
	}
	f.move(t, f.ann, id, "review", map[string]any{"overall": 2, "communication": 3, "quality": 2, "timeliness": 1}, http.StatusCreated)
	for _, who := range []*servertest.Account{f.ann, f.bob} {
		if n := len(jsonList(t, f.contract(t, who, id), "reviews")); n != 2 {
			t.Fatalf("%s sees %d reviews once both are in, want 2", who.Username, n)
		}
	}
	rep := func(u *servertest.Account) (provider, client *float64) {
		r, err := f.s.DB.UserReputation.Query().Where(userreputation.UserID(u.ID)).Only(context.Background())
		if err != nil {
			t.Fatalf("%s's reputation: %v", u.Username, err)
		}
		return r.AvgProviderRating, r.AvgClientRating
	}
	if p, c := rep(f.bob); p == nil || *p != 2 || c != nil {
		t.Fatalf("the provider's averages: %v %v, want provider 2 (received), client none", p, c)
	}
	if p, c := rep(f.ann); c == nil || *c != 4 || p != nil {
		t.Fatalf("the client's averages: %v %v, want client 4 (received), provider none", p, c)
	}
	// Hiding one's text hides it from the other side, never the scores.
	var bobReview string
	for _, r := range jsonList(t, f.contract(t, f.bob, id), "reviews") {
		if m := r.(map[string]any); m["by"] == "provider" {
			bobReview = m["id"].(string)
		}
	}
	servertest.WantError(t, f.ann.Session.Do(http.MethodPatch, "/api/economy/reviews/"+bobReview, map[string]any{"visibility": "hidden"}), http.StatusNotFound)
	wantOK(t, f.bob.Session.Do(http.MethodPatch, "/api/economy/reviews/"+bobReview, map[string]any{"visibility": "hidden"}), http.StatusOK)
	for _, r := range jsonList(t, f.contract(t, f.ann, id), "reviews") {
		if m := r.(map[string]any); m["by"] == "provider" && (m["text"] != nil || m["overall"] != float64(4)) {
			t.Fatalf("a hidden review as its reviewee reads it: %v", m)
		}
	}
}

// The client's hold is refused past the instance's limit (402 with the
// documented code), on hiring and on an amendment the provider accepts;
// a declined amendment changes nothing, an accepted one raises price,
// fee and scope; withdrawing and declining release the hold.
func TestHoldsAndAmendments(t *testing.T) {
	t.Parallel()
	f := newEconomy(t, servertest.WithEconomyHoldLimit(20000))
	c := f.hire(t, f.ann, f.bob, 15000)
	id := c["id"].(string)
	res := f.ann.Session.Do(http.MethodPost, "/api/economy/contracts", map[string]any{
		"provider": map[string]any{"userId": f.cat.ID}, "taskType": "research", "title": "Too much", "priceCents": 6000})
	if body := res.JSON(t); res.Status != http.StatusPaymentRequired || body["code"] != "PAYMENT_REQUIRED" {
		t.Fatalf("a hire past the hold limit: %d %s", res.Status, res.Body)
	}
	if n := len(jsonList(t, wantOK(t, f.ann.Session.Do(http.MethodGet, "/api/economy/contracts", nil), http.StatusOK), "contracts")); n != 1 {
		t.Fatalf("a refused hire wrote a contract: %d contracts", n)
	}
	f.move(t, f.bob, id, "accept", nil, http.StatusOK)
	f.move(t, f.bob, id, "scope", map[string]any{"item": "more"}, http.StatusForbidden)
	f.move(t, f.ann, id, "scope", map[string]any{"item": "Two more competitors", "priceCents": 4000}, http.StatusOK)
	f.move(t, f.ann, id, "scope", map[string]any{"item": "A deck", "priceCents": 6000}, http.StatusOK)
	res = f.bob.Session.Do(http.MethodPost, "/api/economy/contracts/"+id+"/scope/2/accept", map[string]any{})
	if body := res.JSON(t); res.Status != http.StatusPaymentRequired || body["code"] != "PAYMENT_REQUIRED" {
		t.Fatalf("an amendment past the hold limit: %d %s", res.Status, res.Body)
	}
	wantOK(t, f.bob.Session.Do(http.MethodPost, "/api/economy/contracts/"+id+"/scope/2/decline", map[string]any{}), http.StatusOK)
	got := jsonObj(t, wantOK(t, f.bob.Session.Do(http.MethodPost, "/api/economy/contracts/"+id+"/scope/1/accept", map[string]any{}), http.StatusOK), "contract")
	if got["priceCents"] != float64(19000) || got["feeCents"] != float64(1900) || len(jsonList(t, got, "scope")) != 3 {
		t.Fatalf("after the first amendment: %v", got)
	}
	servertest.WantError(t, f.bob.Session.Do(http.MethodPost, "/api/economy/contracts/"+id+"/scope/1/accept", map[string]any{}), http.StatusBadRequest)
	servertest.WantError(t, f.bob.Session.Do(http.MethodPost, "/api/economy/contracts/"+id+"/scope/9/accept", map[string]any{}), http.StatusNotFound)
	am := jsonList(t, f.contract(t, f.ann, id), "amendments")
	if len(am) != 2 || jsonObj(t, am[0])["status"] != "accepted" || jsonObj(t, am[1])["status"] != "declined" {
		t.Fatalf("amendments: %v", am)
	}
	if got := sums(t, f.ledger(t, f.ann)); got["hold"] != -15000 || got["hold_raise"] != -4000 {
		t.Fatalf("the client's ledger: %v", got)
	}

	// Withdrawn before acceptance: the hold comes back and the offer leaves
	// the provider's queue; declined likewise.
	w := f.hire(t, f.cat, f.bob, 500)
	item := f.itemOf(t, f.bob.ID, w["id"].(string), "accept")
	f.move(t, f.bob, w["id"].(string), "withdraw", nil, http.StatusForbidden)
	if got := f.move(t, f.cat, w["id"].(string), "withdraw", nil, http.StatusOK); got["status"] != "withdrawn" || got["paymentHoldStatus"] != "released" {
		t.Fatalf("withdrawn: %v", got)
	}
	servertest.WantError(t, f.bob.Session.Do(http.MethodGet, "/api/v2/queue/"+item, nil), http.StatusNotFound)
	d := f.hire(t, f.cat, f.bob, 700)
	if got := f.move(t, f.bob, d["id"].(string), "decline", map[string]any{"reason": "busy"}, http.StatusOK); got["status"] != "declined" {
		t.Fatalf("declined: %v", got)
	}
	if got := sums(t, f.ledger(t, f.cat)); got["hold"] != -1200 || got["release"] != 1200 {
		t.Fatalf("the ledger of two released offers: %v", got)
	}
}

// A dispute freezes the hold until the instance admin decides; a split
// pays the provider floor(price × percent) less the fee on that share and
// refunds the rest; only the admin decides.
func TestDisputeSplit(t *testing.T) {
	t.Parallel()
	f := newEconomy(t)
	id := f.hire(t, f.ann, f.bob, 12345)["id"].(string)
	f.move(t, f.bob, id, "accept", nil, http.StatusOK)
	f.move(t, f.bob, id, "deliver", map[string]any{"summary": "Half of it"}, http.StatusOK)
	got := f.move(t, f.ann, id, "dispute", map[string]any{"reason": "Half missing"}, http.StatusOK)
	if got["status"] != "disputed" || got["paymentHoldStatus"] != "frozen" || got["disputeReason"] != "Half missing" {
		t.Fatalf("disputed: %v", got)
	}
	f.move(t, f.ann, id, "close", nil, http.StatusBadRequest)
	servertest.WantError(t, f.ann.Session.Do(http.MethodGet, "/api/admin/disputes", nil), http.StatusForbidden)
	list := jsonList(t, wantOK(t, f.boss.Session.Do(http.MethodGet, "/api/admin/disputes", nil), http.StatusOK), "disputes")
	if len(list) != 1 || jsonObj(t, list[0])["id"] != id {
		t.Fatalf("open disputes: %v", list)
	}
	servertest.WantError(t, f.ann.Session.Do(http.MethodPost, "/api/admin/disputes/"+id, map[string]any{"outcome": "refund"}), http.StatusForbidden)
	servertest.WantError(t, f.boss.Session.Do(http.MethodPost, "/api/admin/disputes/"+id, map[string]any{"outcome": "split"}), http.StatusBadRequest)
	done := jsonObj(t, wantOK(t, f.boss.Session.Do(http.MethodPost, "/api/admin/disputes/"+id,
		map[string]any{"outcome": "split", "providerPercent": 70}), http.StatusOK), "contract")
	// 70 percent of 12345 is 8641 (rounded down); fee ceil(864.1) = 865.
	if done["status"] != "closed" || done["providerEarnedCents"] != float64(7776) || done["refundedCents"] != float64(3704) || done["feeCents"] != float64(865) ||
		done["disputeOutcome"] != "split" || done["providerPercent"] != float64(70) {
		t.Fatalf("split 70/30: %v", done)
	}
	if got := sums(t, f.ledger(t, f.ann)); got["hold"] != -12345 || got["refund"] != 3704 || got["earning"] != -7776 || got["fee"] != -865 {
		t.Fatalf("the client's ledger after the split: %v", got)
	}
	if got := sums(t, f.ledger(t, f.bob)); got["earning"] != 7776 {
		t.Fatalf("the provider's ledger after the split: %v", got)
	}
	servertest.WantError(t, f.boss.Session.Do(http.MethodPost, "/api/admin/disputes/"+id, map[string]any{"outcome": "refund"}), http.StatusBadRequest)
}

// The durable timer: a delivered contract its client leaves alone for 14
// days closes itself and pays the provider; a review stays hidden from the
// reviewee until the window's end.
func TestEconomyTimer(t *testing.T) {
	t.Parallel()
	f := newEconomy(t)
	id := f.hire(t, f.ann, f.bob, 1000)["id"].(string)
	f.move(t, f.bob, id, "accept", nil, http.StatusOK)
	f.move(t, f.bob, id, "deliver", map[string]any{"summary": "Done"}, http.StatusOK)
	f.s.Clock.Advance(14*24*time.Hour - time.Minute)
	f.s.App.Economy.Wake()
	if got := jsonObj(t, f.contract(t, f.ann, id), "contract"); got["status"] != "delivered" {
		t.Fatalf("a minute before 14 days: %v", got)
	}
	f.s.Clock.Advance(2 * time.Minute)
	f.s.App.Economy.Wake()
	servertest.WaitFor(t, "the timer's close", func() bool { return jsonObj(t, f.contract(t, f.ann, id), "contract")["status"] == "closed" })
	if got := jsonObj(t, f.contract(t, f.bob, id), "contract"); got["providerEarnedCents"] != float64(900) {
		t.Fatalf("closed by the timer: %v", got)
	}
	f.move(t, f.ann, id, "review", map[string]any{"overall": 5, "communication": 5, "quality": 5, "timeliness": 5}, http.StatusCreated)
	f.s.Clock.Advance(14*24*time.Hour - time.Minute)
	f.s.App.Economy.Wake()
	if n := len(jsonList(t, f.contract(t, f.bob, id), "reviews")); n != 0 {
		t.Fatalf("the provider reads %d reviews a minute before the window ends", n)
	}
	f.move(t, f.bob, id, "review", map[string]any{"overall": 5, "communication": 5, "quality": 5, "timeliness": 5}, http.StatusCreated)
	if n := len(jsonList(t, f.contract(t, f.bob, id), "reviews")); n != 2 {
		t.Fatalf("both in: %d reviews", n)
	}
}

// A review window that ends with one review in shows it to its reviewee,
// and the other side may no longer review.
func TestReviewWindowEnds(t *testing.T) {
	t.Parallel()
	f := newEconomy(t)
	id2 := f.hire(t, f.ann, f.cat, 1000)["id"].(string)
	f.move(t, f.cat, id2, "accept", nil, http.StatusOK)
	f.move(t, f.cat, id2, "deliver", map[string]any{"summary": "Done"}, http.StatusOK)
	f.move(t, f.ann, id2, "close", nil, http.StatusOK)
	f.move(t, f.ann, id2, "review", map[string]any{"overall": 3, "communication": 3, "quality": 3, "timeliness": 3}, http.StatusCreated)
	f.s.Clock.Advance(14*24*time.Hour + time.Minute)
	f.s.App.Economy.Wake()
	servertest.WaitFor(t, "the window's end", func() bool { return len(jsonList(t, f.contract(t, f.cat, id2), "reviews")) == 1 })
	f.move(t, f.cat, id2, "review", map[string]any{"overall": 3, "communication": 3, "quality": 3, "timeliness": 3}, http.StatusBadRequest)
}
