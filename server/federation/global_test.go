package federation_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/paymenthold"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/internal/secrets"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/federation/hub"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store"
)

// spokeSecret opens the spoke's secret the hub keeps sealed under hubKey,
// to call the spoke as its hub does.
func spokeSecret(t *testing.T, hubKey []byte, inst *ent.FederationInstance) []byte {
	t.Helper()
	box, err := secrets.New(hubKey)
	if err != nil {
		t.Fatal(err)
	}
	sealed, _ := base64.StdEncoding.DecodeString(inst.APIKeySealed)
	secret, err := box.Open(sealed, []byte("federation_instances.api_key_sealed:"+inst.ID))
	if err != nil {
		t.Fatalf("open the spoke's secret: %v", err)
	}
	return secret
}

// hubListing is a listing of a hub user's loopback agent, approved by the
// hub's admin; it answers the hub's id.
func hubListing(t *testing.T, n *network, seller *servertest.Account, agentURL string, extra map[string]any) string {
	t.Helper()
	body := map[string]any{"name": "Summariser", "endpointUrl": agentURL, "category": "writing"}
	for k, v := range extra {
		body[k] = v
	}
	res := n.hub.WithKey(seller.NewKey("sell", "store")).Do(http.MethodPost, "/api/marketplace", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("hub listing: %d %s", res.Status, res.Body)
	}
	id := res.JSON(t)["agent"].(map[string]any)["id"].(string)
	if res := n.hubAdmin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+id+"/approve", map[string]any{}); res.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
	return id
}

// browse answers a store browse as {id: origin} with its total and note.
func browse(t *testing.T, c *servertest.Caller, query string) (map[string]string, float64, any) {
	t.Helper()
	res := c.Do(http.MethodGet, "/api/marketplace"+query, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("browse %s: %d %s", query, res.Status, res.Body)
	}
	body := res.JSON(t)
	out := map[string]string{}
	for _, a := range body["agents"].([]any) {
		m := a.(map[string]any)
		origin, _ := m["origin"].(string)
		out[m["id"].(string)] = origin
	}
	return out, body["pagination"].(map[string]any)["total"].(float64), body["note"]
}

// TestSpokeUsesGlobalStore: RULINGS "Federation: instances and the
// platform" (a spoke user browses the hub's store with scope=global and
// all, and executes a global listing through their spoke: the hub runs it
// with task origin federation and the spoke as source instance, holds the
// payment against the spoke's account, opens its review window, and the
// result lands in the requester's queue on the spoke).
func TestSpokeUsesGlobalStore(t *testing.T) {
	t.Parallel()
	x := newExecNet(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"output": "From the spoke."}`))
	}, nil)
	hubAgent := newSpokeAgent(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"output": "The week, summarised."}`))
	})
	seller := x.hub.SignUp("seller")
	hubID := hubListing(t, x.network, seller, hubAgent.URL, map[string]any{"pricingModel": "per_task", "pricePerTask": 2.5})
	reader := x.spoke.SignUp("reader")
	rc := x.spoke.WithKey(reader.NewKey("read", "store", "queue"))

	local, total, _ := browse(t, rc, "")
	if len(local) != 1 || local[x.listingID] != store.OriginLocal || total != 1 {
		t.Fatalf("local browse: %v (%v)", local, total)
	}
	global, total, note := browse(t, rc, "?scope=global")
	if len(global) != 2 || global[hubID] != store.OriginGlobal || global[x.hubAgentID] != store.OriginGlobal || total != 2 || note != nil {
		t.Fatalf("global browse: %v (%v, %v)", global, total, note)
	}
	all, total, _ := browse(t, rc, "?scope=all")
	if len(all) != 3 || all[x.listingID] != store.OriginLocal || all[hubID] != store.OriginGlobal || total != 3 {
		t.Fatalf("all browse: %v (%v)", all, total)
	}
	// Paging runs through local, then global.
	if page, total, _ := browse(t, rc, "?scope=all&limit=1&offset=1"); len(page) != 1 || total != 3 || page[x.listingID] != "" {
		t.Fatalf("all, second page: %v (%v)", page, total)
	}
	if found, _, _ := browse(t, rc, "?scope=global&search=summar"); len(found) != 1 || found[hubID] == "" {
		t.Fatalf("global search: %v", found)
	}
	// On the hub, the store is the global store and all is the default.
	hubSide := x.buyer.Do(http.MethodGet, "/api/marketplace", nil).JSON(t)
	if hubSide["scope"] != "all" || len(hubSide["agents"].([]any)) != 2 || hubSide["hubJoined"] != false {
		t.Fatalf("hub browse: %v", hubSide)
	}
	// The spoke says it has joined whatever the scope, so that the
	// dashboard's default there is all (issue 31); the API's stays local.
	for _, q := range []string{"", "?scope=local", "?mine=true", "?scope=all"} {
		if side := rc.Do(http.MethodGet, "/api/marketplace"+q, nil).JSON(t); side["hubJoined"] != true {
			t.Fatalf("spoke browse %q: %v", q, side)
		}
	}

	res := rc.Do(http.MethodPost, "/api/marketplace/"+hubID+"/execute", map[string]any{"input": "Summarise the week."})
	if res.Status != http.StatusOK {
		t.Fatalf("execute: %d %s", res.Status, res.Body)
	}
	got := res.JSON(t)
	id, _ := got["executionId"].(string)
	if id == "" || got["agentId"] != hubID || got["taskOrigin"] != "federation" || got["paymentHoldStatus"] != "held" {
		t.Fatalf("execute answer: %v", got)
	}
	ctx := context.Background()
	inst := x.hub.DB.FederationInstance.Query().OnlyX(ctx)
	eventually(t, "the hub's review window", func() bool {
		ex := hubRow(t, x.hub, id)
		return ex.ReviewStatus != nil && *ex.ReviewStatus == execution.ReviewStatusPendingReview
	})
	ex := hubRow(t, x.hub, id)
	account := x.hub.DB.User.GetX(ctx, ex.UserID)
	if ex.TaskOrigin != execution.TaskOriginFederation || ex.RunOrigin != execution.RunOriginFederated || ex.SourceInstanceID == nil || *ex.SourceInstanceID != inst.ID ||
		ex.RequesterUserID == nil || *ex.RequesterUserID != reader.ID || ex.RequesterName == nil || *ex.RequesterName != "Reader" ||
		!strings.HasSuffix(account.Email, ".federation.invalid") || ex.Status != execution.StatusCompleted {
		t.Fatalf("hub execution: %+v (account %s)", ex, account.Email)
	}
	hold := x.hub.DB.PaymentHold.Query().OnlyX(ctx)
	if hold.PayerID != account.ID || hold.Status != paymenthold.StatusHeld || hold.ExecutionID != id {
		t.Fatalf("hold: %+v", hold)
	}
	// The hub's own queues hold nothing for it: the delivery is the spoke's.
	if k := x.hub.DB.QueueItem.Query().CountX(ctx); k != 0 {
		t.Fatalf("the hub queued %d items", k)
	}
	var item map[string]any
	defer func() {
		if item == nil {
			for _, d := range x.hub.DB.WebhookDelivery.Query().AllX(ctx) {
				t.Logf("hub outbox: %+v", d)
			}
			for _, it := range x.spoke.DB.QueueItem.Query().AllX(ctx) {
				t.Logf("spoke item: %+v", it)
			}
		}
	}()
	eventually(t, "the delivery in the requester's queue on the spoke", func() bool {
		items := rc.Do(http.MethodGet, "/api/v2/queue", nil).JSON(t)["data"].(map[string]any)["items"].([]any)
		for _, it := range items {
			if m := it.(map[string]any); m["status"] == "done_today" && m["executionId"] == id {
				item = m
				return true
			}
		}
		return false
	})
	row := x.spoke.DB.QueueItem.GetX(ctx, item["id"].(string))
	if row.Result == nil || *row.Result != "The week, summarised." || row.TaskOrigin != queueitem.TaskOriginMarketplace ||
		row.UserID != reader.ID || !strings.Contains(row.Metadata, `"reviewDueAt"`) || !strings.Contains(row.Metadata, `"origin":"global"`) {
		t.Fatalf("spoke item: %+v", row)
	}
	if k := x.spoke.DB.QueueItem.Query().Where(queueitem.ExecutionID(id)).CountX(ctx); k != 1 {
		t.Fatalf("%d items for one execution", k)
	}
	// The spoke's own agent was never called, and the spoke made no execution.
	if x.agent.count() != 0 || x.spoke.DB.Execution.Query().CountX(ctx) != 0 || hubAgent.count() != 1 {
		t.Fatalf("agent calls: spoke %d, hub %d", x.agent.count(), hubAgent.count())
	}

	// A spoke user runs another spoke's listing the same way: here the
	// spoke's own synced one, which the hub dispatches back to it.
	res = rc.Do(http.MethodPost, "/api/marketplace/"+x.hubAgentID+"/execute", map[string]any{"input": "Draft it."})
	if res.Status != http.StatusOK {
		t.Fatalf("execute synced: %d %s", res.Status, res.Body)
	}
	synced := res.JSON(t)["executionId"].(string)
	eventually(t, "the synced listing's delivery", func() bool {
		it, err := x.spoke.DB.QueueItem.Query().Where(queueitem.ExecutionID(synced)).Only(ctx)
		return err == nil && it.Status == queueitem.StatusDoneToday && it.Result != nil && *it.Result == "From the spoke."
	})
}

// TestGlobalStoreRefusals: bad input is 400 and writes nothing; an id the
// hub's store does not show is 404; an instance that has not joined has an
// empty global store and runs no global id; the hub's route takes only a
// platform token, the spoke's deliveries route only the spoke's secret, and
// a requester who is not a user of the spoke is 404.
func TestGlobalStoreRefusals(t *testing.T) {
	t.Parallel()
	hubKey := bytes.Repeat([]byte{9}, secrets.KeySize)
	n := &network{
		hub: servertest.New(t, servertest.WithRole("hub"), servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints(),
			servertest.WithSecretKey(hubKey), servertest.WithReviewPolicy(store.Review), shortExecutions()),
		spoke: servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints(), shortExecutions()),
	}
	n.hubAdmin, n.spokeAdmin = n.hub.SignUp("owner"), n.spoke.SignUp("owner")
	agent := newSpokeAgent(t, func(w http.ResponseWriter) { w.WriteHeader(http.StatusAccepted) })
	seller := n.hub.SignUp("seller")
	hubID := hubListing(t, n, seller, agent.URL, nil)
	// A listing still waiting for review is not in the hub's store.
	res := n.hub.WithKey(seller.NewKey("sell2", "store")).Do(http.MethodPost, "/api/marketplace",
		map[string]any{"name": "Pending", "endpointUrl": agent.URL})
	pendingID := res.JSON(t)["agent"].(map[string]any)["id"].(string)
	reader := n.spoke.SignUp("reader")
	rc := n.spoke.WithKey(reader.NewKey("read", "store", "queue"))
	ctx := context.Background()

	// Not joined: global is empty with a note, all is local, a hub id is 404.
	if got, total, note := browse(t, rc, "?scope=global"); len(got) != 0 || total != 0 || note == nil {
		t.Fatalf("global before joining: %v %v %v", got, total, note)
	}
	if _, _, note := browse(t, rc, "?scope=all"); note == nil {
		t.Fatal("all before joining has no note")
	}
	if res := rc.Do(http.MethodPost, "/api/marketplace/"+hubID+"/execute", map[string]any{"input": "Go."}); res.Status != http.StatusNotFound ||
		!strings.Contains(string(res.Body), "not joined") {
		t.Fatalf("execute before joining: %d %s", res.Status, res.Body)
	}
	n.join(t)
	for name, c := range map[string]struct {
		path string
		body any
		want int
	}{
		"NUL in input":      {"/api/marketplace/" + hubID + "/execute", map[string]any{"input": "a\x00b"}, http.StatusBadRequest},
		"invalid UTF-8":     {"/api/marketplace/" + hubID + "/execute", "{\"input\": \"a\xffb\"}", http.StatusBadRequest},
		"over-long id":      {"/api/marketplace/" + strings.Repeat("x", 65) + "/execute", map[string]any{"input": "Go."}, http.StatusBadRequest},
		"over-long input":   {"/api/marketplace/" + hubID + "/execute", map[string]any{"input": strings.Repeat("y", 100_001)}, http.StatusBadRequest},
		"unknown global id": {"/api/marketplace/nosuchlisting/execute", map[string]any{"input": "Go."}, http.StatusNotFound},
		"pending on hub":    {"/api/marketplace/" + pendingID + "/execute", map[string]any{"input": "Go."}, http.StatusNotFound},
	} {
		if res := rc.Do(http.MethodPost, c.path, c.body); res.Status != c.want {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	for _, q := range []string{"?scope=global&search=a%00b", "?scope=global&search=%ff", "?scope=nearby",
		"?scope=global&search=" + url.QueryEscape(strings.Repeat("s", 1001))} {
		if res := rc.Do(http.MethodGet, "/api/marketplace"+q, nil); res.Status != http.StatusBadRequest {
			t.Errorf("browse %s: %d %s", q, res.Status, res.Body)
		}
	}
	// The hub's route: platform token only.
	anon := n.hub.Anonymous()
	body := map[string]any{"listingId": hubID, "input": "Go.", "requester": map[string]any{"userId": "u1", "name": "U"}}
	for name, hdr := range map[string][]string{
		"nothing":        nil,
		"wrong token":    {"Authorization", "Bearer " + auth.PlatformTokenPrefix + strings.Repeat("p", 40)},
		"a user's key":   {"Authorization", "Bearer " + seller.NewKey("k", "store")},
		"spoke's secret": {federation.InstanceHeader, auth.InstanceKeyPrefix + strings.Repeat("s", 40)},
	} {
		if res := anon.Do(http.MethodPost, "/api/v2/federation/marketplace/execute", body, hdr...); res.Status != http.StatusUnauthorized {
			t.Errorf("hub route, %s: %d %s", name, res.Status, res.Body)
		}
	}
	if k := n.hub.DB.Execution.Query().CountX(ctx); k != 0 {
		t.Fatalf("refusals made %d executions on the hub", k)
	}
	// The spoke's deliveries route: the spoke's own secret only.
	inst := n.hub.DB.FederationInstance.Query().OnlyX(ctx)
	secret := spokeSecret(t, hubKey, inst)
	delivery := func(userID string) map[string]any {
		return map[string]any{"executionId": "hub-exec-1", "listingId": hubID, "listingName": "Summariser",
			"status": "completed", "output": "Done.", "requester": map[string]any{"userId": userID, "name": "Reader"}}
	}
	sanon := n.spoke.Anonymous()
	for name, hdr := range map[string][]string{
		"nothing":        nil,
		"wrong secret":   {federation.InstanceHeader, auth.InstanceKeyPrefix + strings.Repeat("w", 40)},
		"bearer secret":  {"Authorization", "Bearer " + string(secret)},
		"platform token": {federation.InstanceHeader, auth.PlatformTokenPrefix + strings.Repeat("p", 40)},
	} {
		if res := sanon.Do(http.MethodPost, hub.DeliveriesPath, delivery(reader.ID), hdr...); res.Status != http.StatusUnauthorized {
			t.Errorf("deliveries, %s: %d %s", name, res.Status, res.Body)
		}
	}
	as := func(b any) *servertest.Response {
		return sanon.Do(http.MethodPost, hub.DeliveriesPath, b, federation.InstanceHeader, string(secret))
	}
	if res := as(delivery(n.hub.DB.User.Query().FirstIDX(ctx))); res.Status != http.StatusNotFound {
		t.Errorf("a hub user as requester: %d %s", res.Status, res.Body)
	}
	bad := delivery(reader.ID)
	bad["output"] = "a\x00b"
	if res := as(bad); res.Status != http.StatusBadRequest {
		t.Errorf("NUL output: %d %s", res.Status, res.Body)
	}
	bad = delivery(reader.ID)
	bad["status"] = "maybe"
	if res := as(bad); res.Status != http.StatusBadRequest {
		t.Errorf("bad status: %d %s", res.Status, res.Body)
	}
	if k := n.spoke.DB.QueueItem.Query().CountX(ctx); k != 0 {
		t.Fatalf("refused deliveries made %d items", k)
	}
	// A delivery repeated after it landed answers the same item and changes nothing.
	first, again := as(delivery(reader.ID)), as(delivery(reader.ID))
	if first.Status != http.StatusOK || first.JSON(t)["queueItemId"] != again.JSON(t)["queueItemId"] {
		t.Fatalf("deliveries: %s / %s", first.Body, again.Body)
	}
	it := n.spoke.DB.QueueItem.Query().OnlyX(ctx)
	if it.UserID != reader.ID || it.Status != queueitem.StatusDoneToday || it.Result == nil || *it.Result != "Done." {
		t.Fatalf("delivered item: %+v", it)
	}
	// The hub unreachable: global is 503, all the local store with a note.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	n.spoke.DB.FederationMembership.Update().SetHubURL(dead.URL).ExecX(ctx)
	if res := rc.Do(http.MethodGet, "/api/marketplace?scope=global", nil); res.Status != http.StatusServiceUnavailable {
		t.Fatalf("global, hub down: %d %s", res.Status, res.Body)
	}
	if _, _, note := browse(t, rc, "?scope=all"); note == nil || !strings.Contains(note.(string), "could not be reached") {
		t.Fatalf("all, hub down: note %v", note)
	}
}
