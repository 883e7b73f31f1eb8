package throughtest

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// fullBody is a listing with every writable field (document 2, "Store agent
// listing").
func fullBody() map[string]any {
	return map[string]any{
		"name": "Research Scout", "slug": "research-scout", "description": "Finds and summarises sources.",
		"endpointUrl": publicURL, "developerName": "Ada Labs", "category": "research",
		"pricingModel": "per_task", "pricePerTask": 2.5, "currency": "EUR",
		"pricingConfig": map[string]any{"model": "per_task", "tiers": []any{
			map[string]any{"name": "Starter", "pricePerTask": 2.5, "taskLimit": 10, "description": "First ten"},
		}},
		"installGuide": "# Install\nClick install.",
		"commands":     []any{map[string]any{"name": "/scout", "description": "Search", "usage": "/scout <topic>"}},
		"taskTypes":    []any{"research", "summary"}, "contextInstructions": "Cite every source.",
		"supportsA2A": true, "supportsMCP": true, "version": "2.1.0", "accessPassword": "open sesame 42",
		"inputFormat": "json", "outputFormat": "markdown", "authMethod": "bearer", "authCredential": "tok_live_5ecret",
		"healthCheckUrl": "https://93.184.215.14/health", "declaredWidgetTypes": []any{"info_card", "choice_card"},
		"availability": "maintenance", "executionTimeout": 600,
		"requiredInputSchema": `{"type":"object","required":["topic"]}`, "outputSchema": `{"type":"object"}`,
		"usageExamples": "Scout the 2024 battery market", "contextPreparation": "Gather the topic and the deadline.",
		"executionNotes": "Takes about a minute.",
	}
}

// Document 2 "Agent store": POST registers, GET answers the detail, PUT
// changes, DELETE removes; a single listing answers {agent} (RULINGS "The two
// JSON renderings": envelopes).
func TestListingLifecycleOverREST(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	created := f.create(t, f.api, fullBody())
	id := created["id"].(string)
	want := map[string]any{
		"userId": f.ann.ID, "name": "Research Scout", "slug": "research-scout", "description": "Finds and summarises sources.",
		"endpointUrl": publicURL, "developerName": "Ada Labs", "category": "research", "pricingModel": "per_task",
		"pricePerTask": 2.5, "currency": "EUR", "installGuide": "# Install\nClick install.", "contextInstructions": "Cite every source.",
		"supportsA2A": true, "supportsMCP": true, "version": "2.1.0", "hasAccessPassword": true, "inputFormat": "json",
		"outputFormat": "markdown", "authMethod": "bearer", "authCredentialSet": true,
		"healthCheckUrl": "https://93.184.215.14/health", "availability": "maintenance", "executionTimeout": float64(600),
		"requiredInputSchema": `{"type":"object","required":["topic"]}`, "outputSchema": `{"type":"object"}`,
		"usageExamples": "Scout the 2024 battery market", "contextPreparation": "Gather the topic and the deadline.",
		"executionNotes": "Takes about a minute.", "status": "active", "currentExecutionId": nil,
		"ratingAvg": float64(0), "ratingCount": float64(0), "installCount": float64(0), "subscriberCount": float64(0),
		"executionCount": float64(0), "installed": false, "subscribed": false,
	}
	for k, v := range want {
		if created[k] != v {
			t.Errorf("%s = %#v, want %#v", k, created[k], v)
		}
	}
	if got := strs(created["taskTypes"]); !slices.Equal(got, []string{"research", "summary"}) {
		t.Errorf("taskTypes = %v", got)
	}
	if got := strs(created["declaredWidgetTypes"]); !slices.Equal(got, []string{"info_card", "choice_card"}) {
		t.Errorf("declaredWidgetTypes = %v", got)
	}
	cmd := created["commands"].([]any)[0].(map[string]any)
	if cmd["name"] != "/scout" || cmd["usage"] != "/scout <topic>" {
		t.Errorf("commands = %v", created["commands"])
	}
	tier := created["pricingConfig"].(map[string]any)["tiers"].([]any)[0].(map[string]any)
	if tier["name"] != "Starter" || tier["taskLimit"] != float64(10) {
		t.Errorf("pricingConfig = %v", created["pricingConfig"])
	}
	if created["pricingConfig"].(map[string]any)["dynamicConfig"] != nil {
		t.Errorf("absent dynamicConfig is not null: %v", created["pricingConfig"])
	}

	detail := f.get(t, f.api, id)
	if !slices.Equal(slices.Sorted(maps.Keys(detail)), []string{"agent", "changelog", "executions", "stats"}) {
		t.Fatalf("detail keys = %v", slices.Sorted(maps.Keys(detail)))
	}
	if detail["agent"].(map[string]any)["slug"] != "research-scout" || len(detail["changelog"].([]any)) != 0 ||
		len(detail["executions"].([]any)) != 0 {
		t.Fatalf("detail = %v", detail)
	}
	stats := detail["stats"].(map[string]any)
	if stats["executionCount"] != float64(0) || stats["avgResponseTimeMs"] != nil {
		t.Fatalf("stats = %v", stats)
	}

	f.s.Clock.Advance(1000)
	upd := f.put(t, f.api, id, map[string]any{"description": "Finds sources fast.", "changelog": "Faster search"})
	agent := upd["agent"].(map[string]any)
	change := upd["change"].(map[string]any)
	if agent["description"] != "Finds sources fast." || agent["version"] != "2.1.1" || agent["status"] != "active" {
		t.Fatalf("updated agent = %v", agent)
	}
	if change["version"] != "2.1.1" || change["notes"] != "Faster search" || change["breaking"] != false ||
		!slices.Equal(strs(change["fields"]), []string{"description"}) {
		t.Fatalf("change = %v", change)
	}
	if !servertest.At(t, agent["updatedAt"]).After(servertest.At(t, agent["createdAt"])) {
		t.Fatalf("updatedAt did not move: %v", agent)
	}
	log := f.get(t, f.api, id)["changelog"].([]any)
	if len(log) != 1 || log[0].(map[string]any)["version"] != "2.1.1" {
		t.Fatalf("changelog = %v", log)
	}

	res := f.api.Do(http.MethodDelete, "/api/marketplace/"+id, nil)
	if res.Status != http.StatusOK || res.JSON(t)["agent"].(map[string]any)["id"] != id {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	servertest.WantError(t, f.api.Do(http.MethodGet, "/api/marketplace/"+id, nil), http.StatusNotFound)
	servertest.WantError(t, f.api.Do(http.MethodDelete, "/api/marketplace/"+id, nil), http.StatusNotFound)
}

// The same lifecycle over every Connect protocol: the RPC form omits absent
// values, and create answers 200 as Connect does.
func TestListingLifecycleOverConnect(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	ctx := context.Background()
	for protocol := range servertest.Protocols() {
		t.Run(protocol, func(t *testing.T) {
			c := f.client(protocol, f.annKey)
			slug := "connect-" + strings.ReplaceAll(protocol, "+", "-")
			res, err := c.CreateStoreAgent(ctx, &switchboardv1.CreateStoreAgentRequest{Agent: &switchboardv1.StoreAgentInput{
				Name: proto.String("Connect agent"), Slug: proto.String(slug), EndpointUrl: proto.String(publicURL),
				TaskTypes: []string{"code"}, SupportsA2A: proto.Bool(true),
			}})
			if err != nil {
				t.Fatal(err)
			}
			a := res.GetAgent()
			if a.GetSlug() != slug || a.GetStatus() != "active" || a.GetVersion() != "1.0.0" || a.GetPricingModel() != "free" ||
				a.GetCurrency() != "USD" || a.GetInputFormat() != "text" || a.GetAuthMethod() != "none" ||
				a.GetAvailability() != "available" || a.GetExecutionTimeout() != 1800 || !a.GetSupportsA2A() ||
				a.AuthCredentialSet == nil || a.GetAuthCredentialSet() || a.GetEndpointUrl() != publicURL {
				t.Fatalf("created = %v", a)
			}
			got, err := c.GetStoreAgent(ctx, &switchboardv1.GetStoreAgentRequest{Id: a.GetId()})
			if err != nil || got.GetAgent().GetId() != a.GetId() || got.GetStats() == nil {
				t.Fatalf("get: %v %v", got, err)
			}
			up, err := c.UpdateStoreAgent(ctx, &switchboardv1.UpdateStoreAgentRequest{Id: a.GetId(),
				Agent: &switchboardv1.StoreAgentInput{PricingModel: proto.String("per_task"), PricePerTask: proto.Float64(1)}})
			if err != nil {
				t.Fatal(err)
			}
			if up.GetAgent().GetVersion() != "2.0.0" || !up.GetChange().GetBreaking() ||
				!slices.Equal(up.GetChange().GetFields(), []string{"pricingModel", "pricePerTask"}) {
				t.Fatalf("update: %v", up)
			}
			del, err := c.DeleteStoreAgent(ctx, &switchboardv1.DeleteStoreAgentRequest{Id: a.GetId()})
			if err != nil || del.GetAgent().GetId() != a.GetId() {
				t.Fatalf("delete: %v %v", del, err)
			}
			_, err = c.GetStoreAgent(ctx, &switchboardv1.GetStoreAgentRequest{Id: a.GetId()})
			servertest.WantCode(t, err, connect.CodeNotFound)
		})
	}
	// The RPC form leaves absent values out (never null).
	res := f.api.Do(http.MethodPost, "/switchboard.v1.StoreService/CreateStoreAgent",
		`{"agent":{"name":"Sparse","endpointUrl":"`+publicURL+`"}}`, "Connect-Protocol-Version", "1")
	if res.Status != http.StatusOK {
		t.Fatalf("connect json: %d %s", res.Status, res.Body)
	}
	a := res.JSON(t)["agent"].(map[string]any)
	for _, absent := range []string{"description", "category", "pricingConfig", "installGuide", "currentExecutionId", "healthCheckUrl"} {
		if _, ok := a[absent]; ok {
			t.Errorf("RPC form has %s: %v", absent, a[absent])
		}
	}
	if a["slug"] != "sparse" || a["authCredentialSet"] != nil && a["authCredentialSet"] != false {
		t.Errorf("RPC form = %v", a)
	}
	if _, ok := a["taskTypes"]; !ok {
		t.Errorf("RPC form leaves out an empty list: %v", a)
	}
}

// RULINGS "Store, federation, MCP, A2A": slugs are unique per instance; a
// conflict answers 409 on every write path (create and update, both
// transports), and nothing is written.
func TestSlugConflict(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	f.create(t, f.api, map[string]any{"name": "Taken", "slug": "taken"})
	other := f.create(t, f.bobAPI, map[string]any{"name": "Other"})
	if other["slug"] != "other" {
		t.Fatalf("derived slug = %v", other["slug"])
	}
	before := f.counts(t)
	servertest.WantError(t, f.bobAPI.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "Mine", "slug": "taken", "endpointUrl": publicURL}), http.StatusConflict)
	// A slug derived from the name conflicts the same way.
	servertest.WantError(t, f.bobAPI.Do(http.MethodPost, "/api/marketplace", map[string]any{"name": "TAKEN!", "endpointUrl": publicURL}), http.StatusConflict)
	servertest.WantError(t, f.bobAPI.Do(http.MethodPut, "/api/marketplace/"+other["id"].(string), map[string]any{"slug": "taken"}), http.StatusConflict)

	ctx := context.Background()
	c := f.client("connect+proto", f.bobKey)
	_, err := c.CreateStoreAgent(ctx, &switchboardv1.CreateStoreAgentRequest{Agent: &switchboardv1.StoreAgentInput{
		Name: proto.String("Mine"), Slug: proto.String("taken"), EndpointUrl: proto.String(publicURL)}})
	servertest.WantCode(t, err, connect.CodeAlreadyExists)
	_, err = c.UpdateStoreAgent(ctx, &switchboardv1.UpdateStoreAgentRequest{Id: other["id"].(string),
		Agent: &switchboardv1.StoreAgentInput{Slug: proto.String("taken")}})
	servertest.WantCode(t, err, connect.CodeAlreadyExists)

	if after := f.counts(t); after != before {
		t.Fatalf("refused writes wrote rows: %+v → %+v", before, after)
	}
	if got := f.get(t, f.bobAPI, other["id"].(string))["agent"].(map[string]any); got["slug"] != "other" || got["version"] != "1.0.0" {
		t.Fatalf("the refused update changed the listing: %v", got)
	}
}

// Document 2 "Agent store": update and delete are owner only. Another
// account's listing, even one the store shows, answers 404 for changes
// (RULINGS "Accounts, keys, sessions"), and nothing of it changes.
func TestOwnerOnlyChanges(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	bobs := f.create(t, f.bobAPI, map[string]any{"name": "Bob's agent", "authMethod": "api_key", "authCredential": "bob-secret-key"})
	id := bobs["id"].(string)
	before := f.counts(t)
	snapshot := f.get(t, f.bobAPI, id)

	// Ann sees the listing (it is active) but not how it is reached.
	seen := f.get(t, f.api, id)["agent"].(map[string]any)
	for _, hidden := range []string{"endpointUrl", "healthCheckUrl", "authCredentialSet", "currentExecutionId"} {
		if v, ok := seen[hidden]; !ok || v != nil {
			t.Errorf("another account sees %s = %v (want null)", hidden, v)
		}
	}
	for _, target := range []struct{ name, id string }{{"another account's", id}, {"unknown", "cnonexistent000000000000"}} {
		t.Run(target.name, func(t *testing.T) {
			path := "/api/marketplace/" + target.id
			servertest.WantError(t, f.api.Do(http.MethodPut, path, map[string]any{"name": "Mine now"}), http.StatusNotFound)
			servertest.WantError(t, f.api.Do(http.MethodDelete, path, nil), http.StatusNotFound)
			ctx := context.Background()
			c := f.client("connect+json", f.annKey)
			_, err := c.UpdateStoreAgent(ctx, &switchboardv1.UpdateStoreAgentRequest{Id: target.id,
				Agent: &switchboardv1.StoreAgentInput{Name: proto.String("Mine now")}})
			servertest.WantCode(t, err, connect.CodeNotFound)
			_, err = c.DeleteStoreAgent(ctx, &switchboardv1.DeleteStoreAgentRequest{Id: target.id})
			servertest.WantCode(t, err, connect.CodeNotFound)
		})
	}
	servertest.WantError(t, f.api.Do(http.MethodGet, "/api/marketplace/cnonexistent000000000000", nil), http.StatusNotFound)
	if after := f.counts(t); after != before {
		t.Fatalf("refused calls wrote rows: %+v → %+v", before, after)
	}
	if got := f.get(t, f.bobAPI, id); !equalJSON(got, snapshot) {
		t.Fatalf("bob's listing changed:\n%v\n%v", snapshot, got)
	}
}

// A listing that is not active is the owner's alone: another account gets
// 404 on the detail, and browsing shows only active listings.
func TestInactiveListingsAreTheOwners(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	a := f.create(t, f.bobAPI, map[string]any{"name": "Hidden"})
	id := a["id"].(string)
	if _, err := f.s.DB.StoreAgent.UpdateOneID(id).SetStatus("pending_review").Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	servertest.WantError(t, f.api.Do(http.MethodGet, "/api/marketplace/"+id, nil), http.StatusNotFound)
	if got := f.get(t, f.bobAPI, id)["agent"].(map[string]any)["status"]; got != "pending_review" {
		t.Fatalf("the owner sees status %v", got)
	}
	list := f.api.Do(http.MethodGet, "/api/marketplace", nil).JSON(t)
	if n := len(list["agents"].([]any)); n != 0 {
		t.Fatalf("browse shows a pending listing: %v", list)
	}
	mine := f.bobAPI.Do(http.MethodGet, "/api/marketplace?mine=true", nil).JSON(t)
	if n := len(mine["agents"].([]any)); n != 1 {
		t.Fatalf("mine=true: %v", mine)
	}
	servertest.WantError(t, f.api.Do(http.MethodPost, "/api/marketplace/"+id+"/install", nil), http.StatusNotFound)
	// The owner learns why an inactive listing cannot be installed.
	res := f.bobAPI.Do(http.MethodPost, "/api/marketplace/"+id+"/install", nil)
	servertest.WantError(t, res, http.StatusBadRequest)
}
