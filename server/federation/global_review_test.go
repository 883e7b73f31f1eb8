package federation_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/federationauditlog"
	"github.com/switchboard-hq/switchboard/ent/ledgerentry"
	"github.com/switchboard-hq/switchboard/ent/paymenthold"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store"
)

// reviewNet is a hub with a paid listing of a hub user's loopback agent and
// a joined spoke (its instance key known, to open its platform token) with
// a reader who runs it.
type reviewNet struct {
	*network
	agent    *spokeAgent
	hubID    string
	reader   *servertest.Account
	rc       *servertest.Caller
	spokeKey []byte
}

func newReviewNet(t *testing.T) *reviewNet {
	t.Helper()
	r := &reviewNet{spokeKey: bytes.Repeat([]byte{7}, secrets.KeySize)}
	r.network = &network{
		hub: servertest.New(t, servertest.WithRole("hub"), servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints(),
			servertest.WithReviewPolicy(store.Review), shortExecutions()),
		spoke: servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints(),
			servertest.WithSecretKey(r.spokeKey), shortExecutions()),
	}
	r.hubAdmin, r.spokeAdmin = r.hub.SignUp("owner"), r.spoke.SignUp("owner")
	r.agent = newSpokeAgent(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"output": "The week, summarised."}`))
	})
	r.hubID = hubListing(t, r.network, r.hub.SignUp("seller"), r.agent.URL,
		map[string]any{"pricingModel": "per_task", "pricePerTask": 2.5})
	r.join(t)
	r.reader = r.spoke.SignUp("reader")
	r.rc = r.spoke.WithKey(r.reader.NewKey("read", "store", "queue"))
	return r
}

// run executes the hub's listing as the reader through the spoke and waits
// until the result is in the reader's item; it answers the execution id.
func (r *reviewNet) run(t *testing.T, input string) string {
	t.Helper()
	res := r.rc.Do(http.MethodPost, "/api/marketplace/"+r.hubID+"/execute", map[string]any{"input": input})
	if res.Status != http.StatusOK {
		t.Fatalf("execute: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["executionId"].(string)
	r.delivered(t, id)
	return id
}

// delivered waits for the spoke's item of the hub's execution id to be
// done and answers it.
func (r *reviewNet) delivered(t *testing.T, id string) *ent.QueueItem {
	t.Helper()
	var it *ent.QueueItem
	eventually(t, "the delivery of "+id, func() bool {
		got, err := r.spoke.DB.QueueItem.Query().Where(queueitem.ExecutionID(id)).Only(context.Background())
		it = got
		return err == nil && got.Status == queueitem.StatusDoneToday
	})
	return it
}

// platformToken opens the spoke's platform token, sealed under its key.
func (r *reviewNet) platformToken(t *testing.T) string {
	t.Helper()
	m := r.spoke.DB.FederationMembership.Query().OnlyX(context.Background())
	box, err := secrets.New(r.spokeKey)
	if err != nil {
		t.Fatal(err)
	}
	sealed, _ := base64.StdEncoding.DecodeString(*m.PlatformTokenSealed)
	token, err := box.Open(sealed, []byte("federation_memberships.platform_token_sealed:"+m.ID))
	if err != nil {
		t.Fatalf("open the platform token: %v", err)
	}
	return string(token)
}

func itemMeta(t *testing.T, it *ent.QueueItem) map[string]any {
	t.Helper()
	meta := map[string]any{}
	if err := json.Unmarshal([]byte(it.Metadata), &meta); err != nil {
		t.Fatalf("item metadata %q: %v", it.Metadata, err)
	}
	return meta
}

func lifecycle(c *servertest.Caller, body map[string]any) *servertest.Response {
	return c.Do(http.MethodPost, "/api/marketplace/lifecycle", body)
}

// TestSpokeConfirmsGlobalExecution: docs/decisions.md "Federation: the
// global store (issue 14)": the requester confirms a global execution from
// their spoke; the spoke forwards it to the hub's ReviewGlobalExecution,
// which confirms it as a local confirm does (rating, quality, the hold
// captured and the developer paid), and answers with the lifecycle's shape;
// the spoke's item records the decision. Bad input is 400 and reaches
// nothing; another spoke user's execution id, an unknown one, another
// instance's execution and another requester's are 404.
func TestSpokeConfirmsGlobalExecution(t *testing.T) {
	t.Parallel()
	r := newReviewNet(t)
	ctx := context.Background()
	id := r.run(t, "Summarise the week.")
	pending := func(what string) {
		t.Helper()
		ex := hubRow(t, r.hub, id)
		if ex.ReviewStatus == nil || *ex.ReviewStatus != execution.ReviewStatusPendingReview || ex.Rating != nil ||
			ex.PaymentHoldStatus != execution.PaymentHoldStatusHeld {
			t.Fatalf("%s: the hub's execution moved: %+v", what, ex)
		}
		if it := r.spoke.DB.QueueItem.Query().Where(queueitem.ExecutionID(id)).OnlyX(ctx); itemMeta(t, it)["reviewStatus"] != nil {
			t.Fatalf("%s: the spoke's item moved: %s", what, it.Metadata)
		}
	}
	for name, body := range map[string]map[string]any{
		"rating 6":         {"action": "confirm", "executionId": id, "rating": 6},
		"quality 0":        {"action": "confirm", "executionId": id, "quality": map[string]any{"coherence": 0}},
		"NUL in feedback":  {"action": "confirm", "executionId": id, "feedback": "a\x00b"},
		"reason, confirm":  {"action": "confirm", "executionId": id, "reason": "no"},
		"deny, no reason":  {"action": "deny", "executionId": id},
		"deny, category":   {"action": "deny", "executionId": id, "reason": "off", "category": "bored"},
		"deny with rating": {"action": "deny", "executionId": id, "reason": "off", "rating": 2},
	} {
		if res := lifecycle(r.rc, body); res.Status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	pending("bad input")
	other := r.spoke.WithKey(r.spoke.SignUp("other").NewKey("other", "store"))
	for name, c := range map[string]struct {
		caller *servertest.Caller
		id     string
	}{
		"another spoke user's": {other, id},
		"an unknown id":        {r.rc, "nosuchexecution"},
	} {
		if res := lifecycle(c.caller, map[string]any{"action": "confirm", "executionId": c.id, "rating": 5}); res.Status != http.StatusNotFound {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	// The hub's route: the execution's own instance and requester only.
	path := "/api/v2/federation/marketplace/executions/" + id + "/review"
	fake := newFakeSpoke(t)
	fake.secret.Store(secret('f'))
	reg := r.hub.WithKey(r.connectToken(t)).Do(http.MethodPost, "/api/v2/federation/register",
		map[string]any{"name": "Elsewhere", "baseUrl": fake.URL, "apiKey": secret('f')})
	if reg.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", reg.Status, reg.Body)
	}
	elsewhere := r.hub.WithKey(reg.JSON(t)["platformToken"].(string))
	own := r.hub.WithKey(r.platformToken(t))
	review := func(userID string) map[string]any {
		return map[string]any{"action": "confirm", "rating": 5, "requester": map[string]any{"userId": userID}}
	}
	for name, c := range map[string]struct {
		caller *servertest.Caller
		body   map[string]any
		want   int
	}{
		"another instance":    {elsewhere, review(r.reader.ID), http.StatusNotFound},
		"another requester":   {own, review(r.spokeAdmin.ID), http.StatusNotFound},
		"no platform token":   {r.hub.Anonymous(), review(r.reader.ID), http.StatusUnauthorized},
		"no requester":        {own, map[string]any{"action": "confirm"}, http.StatusBadRequest},
		"sweep":               {own, map[string]any{"action": "sweep", "requester": map[string]any{"userId": r.reader.ID}}, http.StatusBadRequest},
		"rating 0, own token": {own, map[string]any{"action": "confirm", "rating": 0, "requester": map[string]any{"userId": r.reader.ID}}, http.StatusBadRequest},
	} {
		if res := c.caller.Do(http.MethodPost, path, c.body); res.Status != c.want {
			t.Errorf("hub route, %s: %d %s", name, res.Status, res.Body)
		}
	}
	pending("refused reviews")

	res := lifecycle(r.rc, map[string]any{"action": "confirm", "executionId": id, "rating": 4, "feedback": "Good.",
		"quality": map[string]any{"relevance": 5}})
	if res.Status != http.StatusOK {
		t.Fatalf("confirm: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	e := body["execution"].(map[string]any)
	if body["action"] != "confirm" || e["executionId"] != id || e["reviewStatus"] != "confirmed" ||
		e["paymentHoldStatus"] != "captured" || e["rating"] != 4.0 || body["quality"].(map[string]any)["relevance"] != 5.0 ||
		body["requeued"] != nil {
		t.Fatalf("confirm answer: %v", body)
	}
	ex := hubRow(t, r.hub, id)
	if *ex.ReviewStatus != execution.ReviewStatusConfirmed || *ex.Rating != 4 || *ex.Feedback != "Good." || *ex.Relevance != 5 ||
		ex.PaymentHoldStatus != execution.PaymentHoldStatusCaptured {
		t.Fatalf("hub execution: %+v", ex)
	}
	if hold := r.hub.DB.PaymentHold.Query().OnlyX(ctx); hold.Status != paymenthold.StatusCaptured {
		t.Fatalf("hold: %+v", hold)
	}
	if k := r.hub.DB.LedgerEntry.Query().Where(ledgerentry.ExecutionID(id), ledgerentry.Kind("capture_developer")).CountX(ctx); k != 1 {
		t.Fatalf("%d developer captures", k)
	}
	if a := r.hub.DB.StoreAgent.GetX(ctx, r.hubID); a.RatingAvg != 4 || a.RatingCount != 1 {
		t.Fatalf("listing rating %v/%d", a.RatingAvg, a.RatingCount)
	}
	it := r.spoke.DB.QueueItem.Query().Where(queueitem.ExecutionID(id)).OnlyX(ctx)
	if itemMeta(t, it)["reviewStatus"] != "confirmed" {
		t.Fatalf("spoke item: %s", it.Metadata)
	}
	// The forwarded review passed the hub's federation guard and audit log,
	// named as the spoke's call.
	eventually(t, "the hub's audit row of the review", func() bool {
		return r.hub.DB.FederationAuditLog.Query().Where(federationauditlog.DirectionEQ(federationauditlog.DirectionInbound),
			federationauditlog.EndpointContains("ReviewGlobalExecution"), federationauditlog.SourceInstanceName("Spoke A"),
			federationauditlog.StatusCodeEQ(http.StatusOK)).ExistX(ctx)
	})
	// The hub's answer to a second review is the caller's.
	if res := lifecycle(r.rc, map[string]any{"action": "confirm", "executionId": id}); res.Status != http.StatusBadRequest ||
		!strings.Contains(string(res.Body), "not waiting for review") {
		t.Fatalf("second confirm: %d %s", res.Status, res.Body)
	}
}

// TestSpokeDeniesGlobalExecution: docs/decisions.md "Federation: the global
// store (issue 14)": the requester denies a global execution from their
// spoke; the hub denies it as a local deny does (reason and category, the
// hold released, the task requeued as a new execution of the same
// requester); the spoke's item records the denial and the new execution
// gets its own item, which the hub's delivery of the rerun completes.
func TestSpokeDeniesGlobalExecution(t *testing.T) {
	t.Parallel()
	r := newReviewNet(t)
	ctx := context.Background()
	id := r.run(t, "Summarise the week.")
	res := lifecycle(r.rc, map[string]any{"action": "deny", "executionId": id, "reason": "Off topic.", "category": "off_topic"})
	if res.Status != http.StatusOK {
		t.Fatalf("deny: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	e, again := body["execution"].(map[string]any), body["requeued"].(map[string]any)
	next, _ := again["executionId"].(string)
	if body["action"] != "deny" || e["reviewStatus"] != "denied" || e["denialReason"] != "Off topic." ||
		e["denialCategory"] != "off_topic" || e["paymentHoldStatus"] != "released" || next == "" || next == id {
		t.Fatalf("deny answer: %v", body)
	}
	ex := hubRow(t, r.hub, id)
	if *ex.ReviewStatus != execution.ReviewStatusDenied || *ex.DenialReason != "Off topic." ||
		ex.PaymentHoldStatus != execution.PaymentHoldStatusReleased {
		t.Fatalf("hub execution: %+v", ex)
	}
	if hold := r.hub.DB.PaymentHold.Query().Where(paymenthold.ExecutionID(id)).OnlyX(ctx); hold.Status != paymenthold.StatusReleased {
		t.Fatalf("hold: %+v", hold)
	}
	rerun := hubRow(t, r.hub, next)
	if rerun.UserID != ex.UserID || rerun.RequesterUserID == nil || *rerun.RequesterUserID != r.reader.ID ||
		rerun.SourceInstanceID == nil || *rerun.SourceInstanceID != *ex.SourceInstanceID || rerun.Input != ex.Input {
		t.Fatalf("requeued execution: %+v", rerun)
	}
	old := r.spoke.DB.QueueItem.Query().Where(queueitem.ExecutionID(id)).OnlyX(ctx)
	if m := itemMeta(t, old); m["reviewStatus"] != "denied" || m["requeuedAs"] != next {
		t.Fatalf("denied item: %s", old.Metadata)
	}
	// The rerun's delivery completes the item the denial opened.
	it := r.delivered(t, next)
	if m := itemMeta(t, it); it.UserID != r.reader.ID || it.ID == old.ID || m["requeuedFrom"] != id || m["origin"] != store.OriginGlobal ||
		it.Result == nil || *it.Result != "The week, summarised." {
		t.Fatalf("rerun item: %+v", it)
	}
	if r.agent.count() != 2 {
		t.Fatalf("agent calls: %d", r.agent.count())
	}
	if k := r.spoke.DB.QueueItem.Query().Where(queueitem.UserID(r.reader.ID)).CountX(ctx); k != 2 {
		t.Fatalf("%d items for the reader", k)
	}
}
