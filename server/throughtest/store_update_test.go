package throughtest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store"
)

// classification is the table of document 2 "Store agent status" and
// "Versioning" (RULINGS: breaking changes trigger re-review): endpoint, auth
// method and pricing model are breaking; description, samples, widget types
// and everything else apply at once.
var classification = []struct {
	name     string
	body     map[string]any
	breaking bool
	fields   []string
}{
	{"endpoint", map[string]any{"endpointUrl": "https://93.184.215.15/v2"}, true, []string{"endpointUrl"}},
	{"auth method", map[string]any{"authMethod": "api_key", "authCredential": "key_abcdef"}, true, []string{"authMethod", "authCredential"}},
	{"pricing model", map[string]any{"pricingModel": "subscription"}, true, []string{"pricingModel"}},
	{"pricing model to free", map[string]any{"pricingModel": "free"}, true, []string{"pricingModel", "pricePerTask"}},
	{"price", map[string]any{"pricePerTask": 4.75}, false, []string{"pricePerTask"}},
	{"price alias", map[string]any{"pricingAmount": 5}, false, []string{"pricePerTask"}},
	{"description", map[string]any{"description": "Now with charts"}, false, []string{"description"}},
	{"samples", map[string]any{"usageExamples": "Compare two vendors"}, false, []string{"usageExamples"}},
	{"widget types", map[string]any{"declaredWidgetTypes": []string{"action_list"}}, false, []string{"declaredWidgetTypes"}},
	{"credential rotation", map[string]any{"authCredential": "tok_rotated_1"}, false, []string{"authCredential"}},
	{"name and slug", map[string]any{"name": "Renamed", "slug": "renamed"}, false, []string{"name", "slug"}},
	{"availability", map[string]any{"availability": "unavailable"}, false, []string{"availability"}},
	{"kit", map[string]any{"contextInstructions": "Be brief", "taskTypes": []string{"analysis"}}, false, []string{"taskTypes", "contextInstructions"}},
	{"clear", map[string]any{"clearFields": []string{"developerName"}}, false, []string{"developerName"}},
	{"breaking with others", map[string]any{"description": "New host", "endpointUrl": "https://93.184.215.16/"}, true, []string{"description", "endpointUrl"}},
}

// Every row of the table over HTTP under both review policies: the change's
// fields and classification, the version bump (major for breaking, patch
// otherwise), and the status (re-review under the review policy; zero-gate
// keeps the listing active).
func TestUpdateClassifiesChanges(t *testing.T) {
	for _, policy := range []store.ReviewPolicy{store.ZeroGate, store.Review} {
		t.Run(string(policy), func(t *testing.T) {
			f := newMarketFixture(t, servertest.WithReviewPolicy(policy))
			t.Parallel()
			for i, tc := range classification {
				t.Run(tc.name, func(t *testing.T) {
					a := f.create(t, f.api, map[string]any{"name": fmt.Sprintf("Agent %d", i), "pricingModel": "per_task",
						"pricePerTask": 2, "authMethod": "bearer", "authCredential": "tok_original", "version": "1.4.2",
						"developerName": "Ada"})
					id := a["id"].(string)
					if a["status"] != policy.InitialStatus() {
						t.Fatalf("new listing status %v under %s", a["status"], policy)
					}
					// As an admin would have approved it.
					if _, err := f.s.DB.StoreAgent.UpdateOneID(id).SetStatus("active").Save(context.Background()); err != nil {
						t.Fatal(err)
					}
					body := map[string]any{}
					for k, v := range tc.body {
						body[k] = v
					}
					if tc.name == "name and slug" {
						body["slug"] = fmt.Sprintf("renamed-%d", i)
					}
					res := f.put(t, f.api, id, body)
					change, agent := res["change"].(map[string]any), res["agent"].(map[string]any)
					if change["breaking"] != tc.breaking || !slices.Equal(strs(change["fields"]), tc.fields) {
						t.Fatalf("change = %v, want breaking %v fields %v", change, tc.breaking, tc.fields)
					}
					wantVersion := "1.4.3"
					if tc.breaking {
						wantVersion = "2.0.0"
					}
					wantStatus := "active"
					if tc.breaking && policy == store.Review {
						wantStatus = "pending_review"
					}
					if agent["version"] != wantVersion || change["version"] != wantVersion || agent["status"] != wantStatus {
						t.Fatalf("version %v status %v, want %s %s", agent["version"], agent["status"], wantVersion, wantStatus)
					}
				})
			}
		})
	}
}

// An update that changes nothing answers the listing without a change and
// writes nothing (no version, no changelog entry, updatedAt kept); an
// explicit higher version with a note is a change of its own.
func TestUpdateWithoutChangeAndExplicitVersion(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	a := f.create(t, f.api, map[string]any{"name": "Stable", "description": "Same", "taskTypes": []string{"a", "b"}})
	id := a["id"].(string)
	f.s.Clock.Advance(5000)
	res := f.put(t, f.api, id, map[string]any{"description": "Same", "taskTypes": []string{"a", "b"}, "changelog": "no-op"})
	if res["change"] != nil || res["agent"].(map[string]any)["version"] != "1.0.0" ||
		res["agent"].(map[string]any)["updatedAt"] != a["updatedAt"] {
		t.Fatalf("no-op update = %v", res)
	}
	if log := f.get(t, f.api, id)["changelog"].([]any); len(log) != 0 {
		t.Fatalf("no-op update logged %v", log)
	}
	res = f.put(t, f.api, id, map[string]any{"version": "1.2.0", "changelog": "Model upgrade behind the same endpoint"})
	ch := res["change"].(map[string]any)
	if ch["version"] != "1.2.0" || ch["breaking"] != false || !slices.Equal(strs(ch["fields"]), []string{"version"}) ||
		ch["notes"] != "Model upgrade behind the same endpoint" {
		t.Fatalf("explicit version change = %v", ch)
	}
	res = f.put(t, f.api, id, map[string]any{"endpointUrl": "https://93.184.215.20/", "version": "1.3.0"})
	if v := res["agent"].(map[string]any)["version"]; v != "1.3.0" {
		t.Fatalf("a supplied version wins over the bump: %v", v)
	}
	log := f.get(t, f.api, id)["changelog"].([]any)
	if len(log) != 2 || log[0].(map[string]any)["version"] != "1.3.0" || log[1].(map[string]any)["version"] != "1.2.0" {
		t.Fatalf("changelog newest first = %v", log)
	}
}

// Clearing fields and the rules that keep a listing consistent on update:
// switching to free resets the price, switching to authMethod none drops the
// credential, clearFields empties lists and optional values.
func TestUpdateClearsAndKeepsConsistent(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	a := f.create(t, f.api, map[string]any{"name": "Full", "pricingModel": "per_task", "pricePerTask": 3,
		"description": "d", "taskTypes": []string{"x"}, "commands": []any{map[string]any{"name": "/x"}},
		"accessPassword": "let me in please", "pricingConfig": map[string]any{"tiers": []any{map[string]any{"name": "T", "pricePerTask": 3}}},
		"healthCheckUrl": "https://93.184.215.14/health"})
	id := a["id"].(string)
	res := f.put(t, f.api, id, map[string]any{"clearFields": []string{"description", "taskTypes", "commands", "accessPassword",
		"pricingConfig", "healthCheckUrl"}})
	got := res["agent"].(map[string]any)
	if got["description"] != nil || len(got["taskTypes"].([]any)) != 0 || len(got["commands"].([]any)) != 0 ||
		got["hasAccessPassword"] != false || got["pricingConfig"] != nil || got["healthCheckUrl"] != nil {
		t.Fatalf("cleared = %v", got)
	}
	if fields := strs(res["change"].(map[string]any)["fields"]); !slices.Equal(fields,
		[]string{"description", "pricingConfig", "commands", "taskTypes", "accessPassword", "healthCheckUrl"}) {
		t.Fatalf("fields = %v", fields)
	}
	// "" clears an optional text field like clearFields.
	_ = f.put(t, f.api, id, map[string]any{"developerName": "Ada", "outputFormat": "markdown"})
	res = f.put(t, f.api, id, map[string]any{"outputFormat": ""})
	if res["agent"].(map[string]any)["outputFormat"] != nil || res["agent"].(map[string]any)["developerName"] != "Ada" {
		t.Fatalf("after clearing outputFormat = %v", res["agent"])
	}
	res = f.put(t, f.api, id, map[string]any{"pricingModel": "free"})
	if p := res["agent"].(map[string]any)["pricePerTask"]; p != float64(0) {
		t.Fatalf("free kept the price %v", p)
	}
}

// Under the review policy a new listing waits for an admin (RULINGS "Store,
// federation, MCP, A2A").
func TestReviewPolicyHoldsNewListings(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t, servertest.WithReviewPolicy(store.Review))
	a := f.create(t, f.api, map[string]any{"name": "Waiting"})
	if a["status"] != "pending_review" {
		t.Fatalf("status = %v", a["status"])
	}
	if list := f.bobAPI.Do(http.MethodGet, "/api/marketplace", nil).JSON(t)["agents"].([]any); len(list) != 0 {
		t.Fatalf("a listing waiting for review is browsable: %v", list)
	}
}
