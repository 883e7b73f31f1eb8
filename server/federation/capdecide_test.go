package federation_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store"
)

// pack creates a capability pack on s for acct and answers its id.
func pack(t *testing.T, s *servertest.Server, acct *servertest.Account, body map[string]any) string {
	t.Helper()
	body["action"] = "create"
	res := acct.Session.Do(http.MethodPost, "/api/marketplace-capabilities", body)
	if res.Status != http.StatusCreated && res.Status != http.StatusOK {
		t.Fatalf("create pack: %d %s", res.Status, res.Body)
	}
	return res.JSON(t)["capability"].(map[string]any)["capabilityId"].(string)
}

// dynamicModules are the names of the hub's dynamic prompt modules, read
// with a platform token.
func dynamicModules(t *testing.T, hub *servertest.Server, platform string) map[string]bool {
	t.Helper()
	res := hub.WithKey(platform).Do(http.MethodGet, "/api/v2/prompt-groups", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("prompt-groups: %d %s", res.Status, res.Body)
	}
	out := map[string]bool{}
	mods, _ := res.JSON(t)["dynamicModules"].([]any)
	for _, m := range mods {
		out[m.(map[string]any)["name"].(string)] = true
	}
	return out
}

// TestCapabilityDecisionReachesTheSpoke: document 2 "Instance federation"
// (capability sync) and RULINGS "Federation: instances and the platform":
// the spoke's sync pushes its own free packs with their module fields; the
// hub admin decides on a synced capability through the listing routes; the
// decision reaches the spoke through the outbox as capability_approval and
// is recorded on its pack; an approved capability with a promptGroup is a
// dynamic module, a disabled one is not.
func TestCapabilityDecisionReachesTheSpoke(t *testing.T) {
	t.Parallel()
	n := &network{
		hub:   servertest.New(t, servertest.WithRole("hub"), servertest.WithPrivateEndpoints(), servertest.WithReviewPolicy(store.Review)),
		spoke: servertest.New(t, servertest.WithSelfPublicURL(), servertest.WithPrivateEndpoints()),
	}
	n.hubAdmin, n.spokeAdmin = n.hub.SignUp("owner"), n.spoke.SignUp("owner")
	ctx := context.Background()
	notes := pack(t, n.spoke, n.spokeAdmin, map[string]any{"name": "Meeting Notes", "prompt": "Summarise the meeting."})
	// The create route sets no module fields; the columns carry them.
	n.spoke.DB.CapabilityPack.UpdateOneID(notes).SetPromptGroup("calendar").
		SetSignalPatterns([]string{`\bmeeting\b`}).SetTokenEstimate(120).ExecX(ctx)
	paid := pack(t, n.spoke, n.spokeAdmin, map[string]any{"name": "Paid Pack", "prompt": "Do it.",
		"pricingModel": "one_time", "price": 5})
	n.join(t)

	res := n.spokeAdmin.Session.Do(http.MethodPost, "/api/marketplace/sync", map[string]any{})
	if res.Status != http.StatusOK {
		t.Fatalf("sync: %d %s", res.Status, res.Body)
	}
	got := map[string]map[string]any{}
	for _, r := range res.JSON(t)["capabilityResults"].([]any) {
		r := r.(map[string]any)
		got[r["id"].(string)] = r
	}
	if got[notes]["status"] != "created" || got[paid]["status"] != "invalid" || len(got) != 2 {
		t.Fatalf("capability results: %v", got)
	}
	mid := got[notes]["marketplaceId"].(string)
	row := n.hub.DB.CapabilityPack.GetX(ctx, mid)
	if row.Status != capabilitypack.StatusPendingReview || row.PromptGroup == nil || *row.PromptGroup != "calendar" ||
		row.TokenEstimate != 120 {
		t.Fatalf("hub's pack: %v %v %d", row.Status, row.PromptGroup, row.TokenEstimate)
	}
	// A platform token of another instance reads the prompt groups.
	fake := newFakeSpoke(t)
	fake.secret.Store(secret('p'))
	reg := n.hub.WithKey(n.connectToken(t)).Do(http.MethodPost, "/api/v2/federation/register",
		map[string]any{"name": "Reader", "baseUrl": fake.URL, "apiKey": secret('p')})
	if reg.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", reg.Status, reg.Body)
	}
	platform := reg.JSON(t)["platformToken"].(string)
	if dynamicModules(t, n.hub, platform)["Meeting Notes"] {
		t.Fatal("a capability waiting for review is a dynamic module")
	}

	res = n.hubAdmin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+mid+"/approve", map[string]any{})
	if res.Status != http.StatusOK {
		t.Fatalf("approve: %d %s", res.Status, res.Body)
	}
	body := res.JSON(t)
	c, _ := body["capability"].(map[string]any)
	if c == nil || c["kind"] != "capability" || c["status"] != "active" || c["remoteId"] != notes || body["agent"] != nil {
		t.Fatalf("approve answer: %s", res.Body)
	}
	spokeSees := func(status string) func() bool {
		return func() bool {
			p := n.spoke.DB.CapabilityPack.GetX(ctx, notes)
			return p.HubStatus != nil && *p.HubStatus == status && p.MarketplaceID != nil && *p.MarketplaceID == mid
		}
	}
	eventually(t, "the approval on the spoke", spokeSees("active"))
	if !dynamicModules(t, n.hub, platform)["Meeting Notes"] {
		t.Fatal("an approved capability with a promptGroup is not a dynamic module")
	}
	d, err := n.hub.DB.WebhookDelivery.Query().Where(webhookdelivery.Event(federation.EventCapabilityApproval)).First(ctx)
	if err != nil || d.Kind != webhookdelivery.KindFederation {
		t.Fatalf("outbox row: %v %v", d, err)
	}

	// Rejecting what is active is not a move; disabling it is.
	if res := n.hubAdmin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+mid+"/reject", map[string]any{}); res.Status != http.StatusBadRequest {
		t.Fatalf("reject an active capability: %d %s", res.Status, res.Body)
	}
	// Decisions are ordered by their time on the hub's clock.
	n.hub.Clock.Advance(time.Second)
	if res := n.hubAdmin.Session.Do(http.MethodPost, "/api/admin/marketplace/"+mid+"/disable",
		map[string]any{"reason": "off topic"}); res.Status != http.StatusOK {
		t.Fatalf("disable: %d %s", res.Status, res.Body)
	}
	eventually(t, "the disable on the spoke", spokeSees("disabled"))
	if dynamicModules(t, n.hub, platform)["Meeting Notes"] {
		t.Fatal("a disabled capability is still a dynamic module")
	}
	// A non-admin may not decide; an unknown id is 404.
	other := n.hub.SignUp("someone")
	if res := other.Session.Do(http.MethodPost, "/api/admin/marketplace/"+mid+"/approve", map[string]any{}); res.Status != http.StatusForbidden {
		t.Fatalf("non-admin approve: %d %s", res.Status, res.Body)
	}
	if res := n.hubAdmin.Session.Do(http.MethodPost, "/api/admin/marketplace/nope/approve", map[string]any{}); res.Status != http.StatusNotFound {
		t.Fatalf("unknown id: %d %s", res.Status, res.Body)
	}
}

// TestCapabilityWebhookOnTheSpoke: the spoke's webhook takes
// capability_approval for its own packs only, with capabilityId in place of
// agentId; an older decision is acknowledged and not applied.
func TestCapabilityWebhookOnTheSpoke(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	owner := s.SignUp("owner")
	ctx := context.Background()
	id := pack(t, s, owner, map[string]any{"name": "Meeting Notes", "prompt": "Summarise the meeting."})
	s.DB.FederationMembership.Create().SetHubURL("https://hub.example").SetAPIKeyHash(auth.HashToken(secret('s'))).
		SetJoinedAt(s.Clock.Now()).SetInstanceID("inst-1").ExecX(ctx)
	post := func(body any) *servertest.Response {
		c := s.Anonymous()
		c.Header().Set(federation.InstanceHeader, secret('s'))
		return c.Do(http.MethodPost, federation.WebhookPath, body)
	}
	decision := func(status, at string) map[string]any {
		return map[string]any{"event": "capability_approval", "capabilityId": id, "marketplaceId": "m-1",
			"name": "Meeting Notes", "slug": "meeting-notes", "status": status, "reason": nil, "timestamp": at}
	}
	t1, t2 := "2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z"
	for _, c := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"agentId instead", func() map[string]any {
			d := decision("active", t1)
			delete(d, "capabilityId")
			d["agentId"] = id
			return d
		}(), http.StatusBadRequest},
		{"both ids", func() map[string]any { d := decision("active", t1); d["agentId"] = id; return d }(), http.StatusBadRequest},
		{"unknown event", func() map[string]any { d := decision("active", t1); d["event"] = "pack_approval"; return d }(), http.StatusBadRequest},
		{"unknown pack", func() map[string]any { d := decision("active", t1); d["capabilityId"] = "nope"; return d }(), http.StatusNotFound},
	} {
		if res := post(c.body); res.Status != c.want {
			t.Errorf("%s: %d %s", c.name, res.Status, res.Body)
		}
	}
	if p := s.DB.CapabilityPack.GetX(ctx, id); p.HubStatus != nil {
		t.Fatalf("a refused webhook wrote: %v", *p.HubStatus)
	}
	if res := post(decision("rejected", t2)); res.Status != http.StatusOK || res.JSON(t)["applied"] != true {
		t.Fatalf("newer decision: %d %s", res.Status, res.Body)
	}
	if res := post(decision("active", t1)); res.Status != http.StatusOK || res.JSON(t)["applied"] != false {
		t.Fatalf("older decision: %d %s", res.Status, res.Body)
	}
	if p := s.DB.CapabilityPack.GetX(ctx, id); p.HubStatus == nil || *p.HubStatus != "rejected" || *p.MarketplaceID != "m-1" {
		t.Fatalf("pack after both: %v", p)
	}
}
