package throughtest

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// TestApprovalWebhookOnlyToJoinedInstances: RULINGS "Details for the house
// issue": a self-registration (or its PATCH) naming an instanceUrl that is
// not the verified baseUrl of an instance joined to the hub is 400 naming
// the field, and writes nothing; the approval webhook to a joined one goes
// through the outbox with that instance's key (X-Federation-Token) and is
// retried on the schedule while the instance is down.
func TestApprovalWebhookOnlyToJoinedInstances(t *testing.T) {
	t.Parallel()
	f := newHubFixture(t)
	a := newFakeAgent(t, true)
	rc := joinedReceiver(t, f)
	stranger := newDevReceiver(t)
	key := f.developerKey(t, f.dev)

	before := f.counts(t)
	body := agentBody("elsewhere", a.URL)
	body["instanceUrl"] = stranger.URL
	res := f.s.WithKey(key).Do(http.MethodPost, "/api/developer/agents/register", body)
	servertest.WantErrorContaining(t, res, http.StatusBadRequest, "instanceUrl")
	if after := f.counts(t); after != before {
		t.Fatalf("a refused registration wrote: %+v → %+v", before, after)
	}
	body = agentBody("joined", a.URL)
	body["instanceUrl"] = rc.URL + "/"
	id := f.register(t, key, body, http.StatusCreated)["agent"].(map[string]any)["id"].(string)
	if row := f.s.DB.StoreAgent.GetX(t.Context(), id); row.SourceInstanceURL == nil || *row.SourceInstanceURL != rc.URL {
		t.Fatalf("recorded instance: %v", row.SourceInstanceURL)
	}
	res = f.s.WithKey(key).Do(http.MethodPatch, "/api/developer/agents/register", map[string]any{"slug": "joined", "instanceUrl": stranger.URL})
	servertest.WantErrorContaining(t, res, http.StatusBadRequest, "instanceUrl")

	rc.down.Store(true)
	res = f.admin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+id+"/reject", map[string]any{"reason": "not yet"})
	servertest.WantStatus(t, res, http.StatusOK)
	servertest.WaitFor(t, "the first attempt failed", func() bool {
		row, err := f.s.DB.WebhookDelivery.Query().Only(t.Context())
		return err == nil && row.Attempts == 1 && row.Kind == webhookdelivery.KindFederation && row.Status == webhookdelivery.StatusPending
	})
	rc.down.Store(false)
	servertest.WaitFor(t, "the retry delivered", func() bool {
		f.s.Clock.Advance(31 * time.Second)
		row, err := f.s.DB.WebhookDelivery.Query().Only(t.Context())
		return err == nil && row.Status == webhookdelivery.StatusDelivered
	})
	hook := rc.next(t)
	if hook.header.Get("X-Federation-Token") != rc.key || hook.body["status"] != string(storeagent.StatusRejected) ||
		hook.body["reason"] != "not yet" || hook.path != "/api/marketplace/webhook" {
		t.Fatalf("approval webhook: %+v", hook)
	}
	select {
	case h := <-stranger.got:
		t.Fatalf("the stranger heard: %+v", h)
	default:
	}
}

// On a standalone instance no instance is joined: every instanceUrl is
// refused.
func TestInstanceURLRefusedWithoutJoinedInstances(t *testing.T) {
	t.Parallel()
	f := newDevFixture(t)
	a := newFakeAgent(t, true)
	body := agentBody("alone", a.URL)
	body["instanceUrl"] = newDevReceiver(t).URL
	res := f.s.WithKey(f.developerKey(t, f.dev)).Do(http.MethodPost, "/api/developer/agents/register", body)
	servertest.WantErrorContaining(t, res, http.StatusBadRequest, "instanceUrl")
	if !strings.Contains(string(res.Body), "joined") {
		t.Errorf("the refusal does not say why: %s", res.Body)
	}
}
