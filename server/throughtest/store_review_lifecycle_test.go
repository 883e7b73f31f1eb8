package throughtest

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/activityentry"
	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	"github.com/switchboard-hq/switchboard/ent/document"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/ent/userreputation"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Document 2 "Execution status and review" (completed marketplace → review
// widget shown → pending_review, 48-hour window) and Isolation ("Marketplace
// deliveries go as a shared document to the requester plus a queue
// callback"); "Events": card activity capability_executed.
func TestDeliveryOpensTheReview(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	ctx := context.Background()
	ex := f.paid(t, f.api)
	now := f.s.Clock.Now()

	got := f.reload(t, ex.ID)
	if got.ReviewStatus == nil || *got.ReviewStatus != execution.ReviewStatusPendingReview ||
		!got.ReviewWidgetShownAt.Equal(now) || got.PaymentHoldStatus != execution.PaymentHoldStatusHeld || f.hold(t, ex.ID) != "held" {
		t.Fatalf("after delivery: review %v shown %v hold %s", got.ReviewStatus, got.ReviewWidgetShownAt, got.PaymentHoldStatus)
	}
	doc, err := f.s.DB.Document.Query().Where(document.ExecutionID(ex.ID)).Only(ctx)
	if err != nil || doc.UserID != f.ann.ID || doc.Content != "Result for Scout the battery market\nThree sources please" || doc.Source != "marketplace" ||
		*doc.SharedBy != "Research Scout" {
		t.Fatalf("shared document %+v %v", doc, err)
	}
	it := f.delivery(t, ex.ID)
	var meta map[string]any
	_ = json.Unmarshal([]byte(it.Metadata), &meta)
	widgets, _ := meta["widgets"].([]any)
	if it.UserID != f.ann.ID || it.TaskOrigin != queueitem.TaskOriginMarketplace || it.Status != queueitem.StatusDoneToday ||
		*it.Result != doc.Content || it.Title != "Research Scout: Scout the battery market" ||
		meta["documentId"] != doc.ID || len(widgets) != 1 || widgets[0].(map[string]any)["type"] != "choice_card" {
		t.Fatalf("queue item %+v meta %v", it, meta)
	}
	// The agent owner's queue is not touched (output_only isolation).
	if n := f.s.DB.QueueItem.Query().Where(queueitem.UserID(f.bob.ID)).CountX(ctx); n != 0 {
		t.Fatalf("bob has %d queue items", n)
	}
	if n := f.s.DB.ActivityEntry.Query().Where(activityentry.UserID(f.ann.ID), activityentry.Action("capability_executed"),
		activityentry.CardID(*it.CardID)).CountX(ctx); n != 1 {
		t.Fatalf("%d capability_executed entries on the card", n)
	}
	if n := f.s.DB.ChatMessage.Query().Where(chatmessage.UserID(f.ann.ID), chatmessage.MetadataType("task_completed")).CountX(ctx); n != 1 {
		t.Fatalf("%d comms callbacks", n)
	}
	// The item was opened when the execution was made (one item, started then completed).
	if n := f.s.DB.ChatMessage.Query().Where(chatmessage.UserID(f.ann.ID), chatmessage.MetadataType("agent_execution_started")).CountX(ctx); n != 1 ||
		meta["executionId"] != ex.ID || it.ExecutionID == nil || *it.ExecutionID != ex.ID {
		t.Fatalf("%d started messages; meta %v", n, meta)
	}
	// A hook called twice delivers once.
	f.finish(t, got)
	if n := f.s.DB.QueueItem.Query().Where(queueitem.ExecutionID(ex.ID)).CountX(ctx); n != 1 {
		t.Fatalf("%d deliveries", n)
	}

	// A failed execution is delivered as blocked, with no review.
	failed := f.execute(t, f.api, "please fail")
	if failed.Status != execution.StatusFailed || failed.PaymentHoldStatus != execution.PaymentHoldStatusReleased {
		t.Fatalf("failed run %s hold %s", failed.Status, failed.PaymentHoldStatus)
	}
	if it := f.delivery(t, failed.ID); it.Status != queueitem.StatusBlocked || f.reload(t, failed.ID).ReviewStatus != nil {
		t.Fatalf("failed delivery %+v", it)
	}
	// One's own agent: nothing to deliver or review.
	own := f.execute(t, f.bobAPI, "own run")
	if !own.IsOwnAgent || own.Status != execution.StatusCompleted || f.reload(t, own.ID).ReviewStatus != nil || f.s.DB.QueueItem.Query().Where(queueitem.ExecutionID(own.ID)).ExistX(ctx) {
		t.Fatal("own-agent run was put in review")
	}
}

// Document 2 "Execution status and review": confirm (optional rating 1–5
// and feedback) → confirmed, payment captured; the listing's rating average
// and both parties' reputation ("Other records": User reputation) are
// recalculated.
func TestConfirmCapturesAndRecalculates(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	ctx := context.Background()
	ex := f.paid(t, f.api)
	f.s.Clock.Advance(time.Hour)
	res := f.api.Do(http.MethodPost, "/api/marketplace/lifecycle", map[string]any{"action": "confirm", "executionId": ex.ID,
		"rating": 4, "feedback": " Good sources ", "quality": map[string]any{"relevance": 5, "completeness": 3}})
	if res.Status != http.StatusOK {
		t.Fatalf("confirm: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	e, q := body["execution"].(map[string]any), body["quality"].(map[string]any)
	if body["action"] != "confirm" || e["reviewStatus"] != "confirmed" || e["paymentHoldStatus"] != "captured" ||
		e["rating"] != float64(4) || e["feedback"] != "Good sources" || body["requeued"] != nil || body["confirmed"] != nil {
		t.Fatalf("confirm answer %s", res.Body)
	}
	if q["relevance"] != float64(5) || q["coherence"] != nil || q["completeness"] != float64(3) {
		t.Fatalf("quality %v", q)
	}
	got := f.reload(t, ex.ID)
	if !got.ReviewedAt.Equal(f.s.Clock.Now()) || *got.Relevance != 5 || got.Coherence != nil || f.hold(t, ex.ID) != "captured" {
		t.Fatalf("stored %+v", got)
	}
	agent := f.s.DB.StoreAgent.GetX(ctx, f.agentID)
	if agent.RatingAvg != 4 || agent.RatingCount != 1 {
		t.Fatalf("listing rating %v/%d", agent.RatingAvg, agent.RatingCount)
	}
	ann := f.s.DB.UserReputation.Query().Where(userreputation.UserID(f.ann.ID)).OnlyX(ctx)
	bob := f.s.DB.UserReputation.Query().Where(userreputation.UserID(f.bob.ID)).OnlyX(ctx)
	// Ann gave the rating; she received none, so she has no client average
	// (RULINGS "The task economy": averages of reviews received).
	if ann.TaskEconomyRole != "client" || ann.AvgClientRating != nil || ann.AvgRating != nil || ann.AvgProviderRating != nil ||
		ann.ReviewsGiven != 1 || ann.ReviewsReceived != 0 || ann.ReputationScore != 0 {
		t.Fatalf("ann %+v", ann)
	}
	if bob.TaskEconomyRole != "provider" || *bob.AvgProviderRating != 4 || *bob.AvgRating != 4 || bob.ReputationScore != 80 ||
		bob.ReviewsReceived != 1 {
		t.Fatalf("bob %+v", bob)
	}
	// The same numbers over REST (GET /api/marketplace/reputation).
	res = f.bobAPI.Do(http.MethodGet, "/api/marketplace/reputation", nil)
	rep, _ := res.JSON(t)["reputation"].(map[string]any)
	if res.Status != http.StatusOK || rep["taskEconomyRole"] != "provider" || rep["reputationScore"] != float64(80) ||
		rep["avgProviderRating"] != float64(4) || rep["avgClientRating"] != nil || rep["reviewsReceived"] != float64(1) {
		t.Fatalf("bob's reputation: %d %s", res.Status, res.Body)
	}
	if res := f.carolAPI.Do(http.MethodGet, "/api/marketplace/reputation", nil); res.Status != http.StatusOK || res.JSON(t)["reputation"] != nil {
		t.Fatalf("carol before any review: %d %s", res.Status, res.Body)
	}
	// A second review of the same execution is refused and changes nothing.
	servertest.WantError(t, f.api.Do(http.MethodPost, "/api/marketplace/lifecycle", map[string]any{"action": "deny", "executionId": ex.ID,
		"reason": "Changed my mind"}), http.StatusBadRequest)
	if g := f.reload(t, ex.ID); *g.ReviewStatus != execution.ReviewStatusConfirmed || g.PaymentHoldStatus != execution.PaymentHoldStatusCaptured {
		t.Fatalf("after refused deny %+v", g)
	}

	// Over Connect, with a session-less key: confirm without rating leaves the
	// average alone; carol's confirmation counts in bob's reputation.
	carolKey := f.carol.NewKey("carol-connect", "store")
	ex2 := f.paid(t, f.carolAPI)
	out, err := f.client(carolKey).StoreLifecycle(ctx, &switchboardv1.StoreLifecycleRequest{Action: "confirm", ExecutionId: ex2.ID})
	if err != nil || out.GetExecution().GetReviewStatus() != "confirmed" || out.GetExecution().Rating != nil {
		t.Fatalf("connect confirm: %v %v", out, err)
	}
	if a := f.s.DB.StoreAgent.GetX(ctx, f.agentID); a.RatingCount != 1 {
		t.Fatalf("unrated confirm changed the rating count: %d", a.RatingCount)
	}
	if bob := f.s.DB.UserReputation.Query().Where(userreputation.UserID(f.bob.ID)).OnlyX(ctx); bob.ReviewsReceived != 2 || bob.ReputationScore != 80 {
		t.Fatalf("bob after carol %+v", bob)
	}
}

// Document 2 "Execution status and review": deny (reason, optional
// category) → denied, hold released; a new execution is queued at the back
// of the agent's queue (no priority boost); the provider's reputation falls.
func TestDenyReleasesAndRequeuesAtTheBack(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	ctx := context.Background()
	good := f.paid(t, f.carolAPI)
	if res := f.carolAPI.Do(http.MethodPost, "/api/marketplace/lifecycle", map[string]any{"action": "confirm", "executionId": good.ID, "rating": 5}); res.Status != http.StatusOK {
		t.Fatalf("carol confirms: %d %s", res.Status, res.Body)
	}
	ex := f.paid(t, f.api)

	// Carol's next task holds the agent; her third waits in the queue.
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.carolAPI.Do(http.MethodPost, "/api/marketplace/"+f.agentID+"/execute", map[string]any{"input": "hold this"})
	}()
	servertest.WaitFor(t, "the agent to hold", func() bool { return slices.Contains(f.agent.received(), "hold this") })
	waiting := f.execute(t, f.carolAPI, "after the held one")
	if waiting.Status != execution.StatusQueued || *waiting.QueuePosition != 1 {
		t.Fatalf("carol's third: %s at %v", waiting.Status, waiting.QueuePosition)
	}

	if it := f.delivery(t, waiting.ID); it.Status != queueitem.StatusInProgress || it.UserID != f.carol.ID || it.TaskOrigin != queueitem.TaskOriginMarketplace {
		t.Fatalf("queued execution's item %+v", it)
	}

	// Deny with the session (same origin).
	res := f.ann.Session.Do(http.MethodPost, "/api/marketplace/lifecycle", map[string]any{"action": "deny", "executionId": ex.ID,
		"reason": "Off topic", "category": "off_topic"})
	if res.Status != http.StatusOK {
		t.Fatalf("deny: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	e, again := body["execution"].(map[string]any), body["requeued"].(map[string]any)
	if e["reviewStatus"] != "denied" || e["paymentHoldStatus"] != "released" || e["denialReason"] != "Off topic" ||
		e["denialCategory"] != "off_topic" || f.hold(t, ex.ID) != "released" {
		t.Fatalf("deny answer %s", res.Body)
	}
	if again["status"] != "queued" || again["queuePosition"] != float64(2) || again["input"] != ex.Input ||
		again["executionId"] == ex.ID || again["paymentHoldStatus"] != "none" {
		t.Fatalf("requeued %v", again)
	}
	if it := f.delivery(t, again["executionId"].(string)); it.Status != queueitem.StatusInProgress || it.UserID != f.ann.ID {
		t.Fatalf("requeued execution's item %+v", it)
	}
	bob := f.s.DB.UserReputation.Query().Where(userreputation.UserID(f.bob.ID)).OnlyX(ctx)
	// One confirmed (5 stars) and one denied: 20 × 5 × 1/2.
	if bob.ReputationScore != 50 || *bob.AvgProviderRating != 5 || bob.ReviewsReceived != 2 {
		t.Fatalf("bob %+v", bob)
	}
	if ann := f.s.DB.UserReputation.Query().Where(userreputation.UserID(f.ann.ID)).OnlyX(ctx); ann.AvgRating != nil || ann.ReviewsGiven != 1 {
		t.Fatalf("ann %+v", ann)
	}

	// The agent is free again: carol's queued task runs first, then ann's
	// requeued one, which is delivered and in review like the first.
	f.agent.free()
	<-done
	id := again["executionId"].(string)
	servertest.WaitFor(t, "the requeued execution to finish", func() bool { return f.reload(t, id).Status == execution.StatusCompleted })
	calls := f.agent.received()
	if len(calls) < 2 || calls[len(calls)-2] != "after the held one" || calls[len(calls)-1] != ex.Input {
		t.Fatalf("agent calls %q", calls)
	}
	if g := f.reload(t, id); *g.ReviewStatus != execution.ReviewStatusPendingReview || g.PaymentHoldStatus != execution.PaymentHoldStatusHeld {
		t.Fatalf("requeued after running %+v", g)
	}
	if it := f.delivery(t, id); it.Status != queueitem.StatusDoneToday {
		t.Fatalf("requeued execution's item after delivery %+v", it)
	}
}

// Document 2: 48 hours elapsed → confirmed (auto), payment captured;
// RULINGS "Store, federation, MCP, A2A": the review timer is durable.
func TestAutoConfirmOnTheClock(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	ex := f.paid(t, f.api)
	f.s.Clock.Advance(48*time.Hour - time.Minute)
	time.Sleep(100 * time.Millisecond)
	if g := f.reload(t, ex.ID); *g.ReviewStatus != execution.ReviewStatusPendingReview {
		t.Fatalf("confirmed before the window ended: %v", *g.ReviewStatus)
	}
	// The clock moves on each time the review is not yet confirmed, so the
	// sweep's timer fires however late it was armed.
	servertest.WaitFor(t, "auto-confirm", func() bool {
		if *f.reload(t, ex.ID).ReviewStatus == execution.ReviewStatusConfirmed {
			return true
		}
		f.s.Clock.Advance(10 * time.Second)
		return false
	})
	g := f.reload(t, ex.ID)
	if g.PaymentHoldStatus != execution.PaymentHoldStatusCaptured || g.ReviewedAt.Before(g.ReviewWidgetShownAt.Add(48*time.Hour)) || g.Rating != nil ||
		f.hold(t, ex.ID) != "captured" {
		t.Fatalf("auto-confirmed %+v", g)
	}
}

// Document 2 "Agent store": {action: sweep} needs no credentials and
// auto-confirms overdue reviews, answering how many.
func TestSweep(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	f.s.App.Review.Timer.Close() // so that only the sweep confirms
	overdue := f.paid(t, f.api)
	f.s.Clock.Advance(47 * time.Hour)
	open := f.paid(t, f.carolAPI)
	anon := f.s.Anonymous()
	res := anon.Do(http.MethodPost, "/api/marketplace/lifecycle", map[string]any{"action": "sweep"})
	if res.Status != http.StatusOK || res.JSON(t)["confirmed"] != float64(0) {
		t.Fatalf("early sweep: %d %s", res.Status, res.Body)
	}
	f.s.Clock.Advance(time.Hour)
	res = anon.Do(http.MethodPost, "/api/marketplace/lifecycle", map[string]any{"action": "sweep"})
	if res.Status != http.StatusOK || res.JSON(t)["confirmed"] != float64(1) || res.JSON(t)["execution"] != nil {
		t.Fatalf("sweep: %d %s", res.Status, res.Body)
	}
	if g := f.reload(t, overdue.ID); *g.ReviewStatus != execution.ReviewStatusConfirmed || g.PaymentHoldStatus != execution.PaymentHoldStatusCaptured ||
		f.hold(t, overdue.ID) != "captured" {
		t.Fatalf("overdue %+v", g)
	}
	if g := f.reload(t, open.ID); *g.ReviewStatus != execution.ReviewStatusPendingReview || g.PaymentHoldStatus != execution.PaymentHoldStatusHeld {
		t.Fatalf("open %+v", g)
	}
	// Over Connect without credentials too.
	out, err := f.client("").StoreLifecycle(context.Background(), &switchboardv1.StoreLifecycleRequest{Action: "sweep"})
	if err != nil || out.GetConfirmed() != 0 || out.Confirmed == nil {
		t.Fatalf("connect sweep: %v %v", out, err)
	}
}

// RULINGS "Store, federation, MCP, A2A": timers survive a restart. A window
// left open by a stopped process is confirmed by the next one's timer.
func TestRestartKeepsTheWindow(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	ex := f.paid(t, f.api)
	f.s.App.Close() // the first process stops
	f.s.Clock.Advance(49 * time.Hour)
	time.Sleep(100 * time.Millisecond)
	if g := f.reload(t, ex.ID); *g.ReviewStatus != execution.ReviewStatusPendingReview {
		t.Fatal("confirmed with no process running")
	}
	f.restart(t)
	servertest.WaitFor(t, "auto-confirm after restart", func() bool {
		return *f.reload(t, ex.ID).ReviewStatus == execution.ReviewStatusConfirmed
	})
	if g := f.reload(t, ex.ID); g.PaymentHoldStatus != execution.PaymentHoldStatusCaptured || f.hold(t, ex.ID) != "captured" {
		t.Fatalf("after restart %+v", g)
	}
}

// Document 2 "Agent store" (callback): a result an agent delivers later
// through POST /api/marketplace/callback is delivered and opens the review
// like a synchronous one.
func TestAsyncResultOpensTheReview(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	res := f.api.Do(http.MethodPost, "/api/marketplace/"+f.agentID+"/execute", map[string]any{"input": "Do it later"})
	id, _ := res.JSON(t)["executionId"].(string)
	if res.Status != http.StatusOK || res.JSON(t)["status"] != "running" {
		t.Fatalf("accepted: %d %s", res.Status, res.Body)
	}
	if f.reload(t, id).ReviewStatus != nil {
		t.Fatal("in review before the result arrived")
	}
	f.s.Clock.Advance(time.Minute)
	cb := f.s.Anonymous().Do(http.MethodPost, "/api/marketplace/callback",
		map[string]any{"executionId": id, "callbackToken": f.agent.token(id), "output": "Late result"})
	if cb.Status != http.StatusOK {
		t.Fatalf("callback: %d %s", cb.Status, cb.Body)
	}
	g := f.reload(t, id)
	if g.Status != execution.StatusCompleted || *g.ReviewStatus != execution.ReviewStatusPendingReview ||
		!g.ReviewWidgetShownAt.Equal(f.s.Clock.Now()) || g.PaymentHoldStatus != execution.PaymentHoldStatusHeld {
		t.Fatalf("after the callback %+v", g)
	}
	if it := f.delivery(t, id); *it.Result != "Late result" || it.Status != queueitem.StatusDoneToday {
		t.Fatalf("delivery %+v", it)
	}
}

// Document 2 "Execution status and review": a review ends once. A confirm
// and a deny racing for one execution: exactly one applies, and the hold
// ends in that one's state.
func TestConfirmAndDenyRace(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	ex := f.paid(t, f.api)
	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i, body := range []map[string]any{
		{"action": "confirm", "executionId": ex.ID, "rating": 3},
		{"action": "deny", "executionId": ex.ID, "reason": "Wrong"},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = f.api.Do(http.MethodPost, "/api/marketplace/lifecycle", body).Status
		}()
	}
	wg.Wait()
	g := f.reload(t, ex.ID)
	switch {
	case statuses[0] == http.StatusOK && statuses[1] == http.StatusBadRequest:
		if *g.ReviewStatus != execution.ReviewStatusConfirmed || f.hold(t, ex.ID) != "captured" {
			t.Fatalf("confirm won but %+v", g)
		}
	case statuses[1] == http.StatusOK && statuses[0] == http.StatusBadRequest:
		if *g.ReviewStatus != execution.ReviewStatusDenied || f.hold(t, ex.ID) != "released" || g.Rating != nil {
			t.Fatalf("deny won but %+v", g)
		}
	default:
		t.Fatalf("statuses %v", statuses)
	}
}

// RULINGS "Queue" (comms messages) and "Shared chat and events": the
// delivery's comms messages reach the requester's open stream once the
// engine's transaction has committed.
func TestDeliveryMessagesReachTheStream(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	st := f.s.WithKey(f.ann.NewKey("ann-chat", "chat")).Stream("/api/v2/shared-chat/stream")
	st.NextOf("connected")
	ex := f.paid(t, f.api)
	for _, want := range []string{"Started: Research Scout: Scout the battery market", "Delivered: Research Scout: Scout the battery market"} {
		msg, _ := st.NextOf("new_message").JSON(t)["message"].(map[string]any)
		var meta map[string]any
		_ = json.Unmarshal([]byte(msg["metadata"].(string)), &meta)
		if msg["content"] != want || meta["executionId"] != ex.ID {
			t.Fatalf("message %v, want %q", msg, want)
		}
	}
}

// The requester's item keeps the review widget; its metadata records the
// decision (reviewStatus), so a view that shows the widget later shows the
// decision, not the buttons: confirm, deny and the clock's confirm alike.
func TestTheReviewedItemRecordsTheDecision(t *testing.T) {
	t.Parallel()
	f := newReviewFixture(t)
	reviewStatus := func(exID string) any {
		t.Helper()
		var meta map[string]any
		if err := json.Unmarshal([]byte(f.delivery(t, exID).Metadata), &meta); err != nil {
			t.Fatal(err)
		}
		if _, ok := meta["widgets"]; !ok {
			t.Fatalf("the item lost its widgets: %v", meta)
		}
		return meta["reviewStatus"]
	}
	confirmed, denied := f.paid(t, f.api), f.paid(t, f.api)
	if got := reviewStatus(confirmed.ID); got != nil {
		t.Fatalf("before any review: reviewStatus %v", got)
	}
	if res := f.api.Do(http.MethodPost, "/api/marketplace/lifecycle", map[string]any{"action": "confirm", "executionId": confirmed.ID}); res.Status != http.StatusOK {
		t.Fatalf("confirm: %d %s", res.Status, res.Body)
	}
	if res := f.api.Do(http.MethodPost, "/api/marketplace/lifecycle", map[string]any{"action": "deny", "executionId": denied.ID, "reason": "Missing sources"}); res.Status != http.StatusOK {
		t.Fatalf("deny: %d %s", res.Status, res.Body)
	}
	if got := reviewStatus(confirmed.ID); got != "confirmed" {
		t.Errorf("confirmed item: reviewStatus %v", got)
	}
	if got := reviewStatus(denied.ID); got != "denied" {
		t.Errorf("denied item: reviewStatus %v", got)
	}
}
