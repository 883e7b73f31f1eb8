package throughtest

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func slugs(list map[string]any) []string {
	var out []string
	for _, a := range list["agents"].([]any) {
		out = append(out, a.(map[string]any)["slug"].(string))
	}
	return out
}

// Document 2 "Agent store": browse filters by category, pricing, search,
// sort and scope, pages like every list (RULINGS "Kanban and contacts"), and
// shows active listings of every account.
func TestBrowseFiltersAndSorts(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	type listing struct {
		owner   string
		body    map[string]any
		rating  float64
		ratings int
		install int
	}
	all := []listing{
		{"ann", map[string]any{"name": "Alpha Writer", "slug": "alpha", "category": "writing", "description": "Drafts BLOG posts"}, 4.5, 2, 3},
		{"bob", map[string]any{"name": "beta coder", "slug": "beta", "category": "coding", "pricingModel": "per_task", "pricePerTask": 5,
			"taskTypes": []string{"code_review", "Refactoring"}}, 3, 10, 7},
		{"bob", map[string]any{"name": "Gamma Data", "slug": "gamma", "category": "data", "pricingModel": "per_task", "pricePerTask": 1, "developerName": "Blogsmith"}, 5, 1, 0},
		{"ann", map[string]any{"name": "Delta Dynamic", "slug": "delta", "category": "data", "pricingModel": "dynamic",
			"pricingConfig": map[string]any{"dynamicConfig": map[string]any{"estimateRange": []float64{1, 9}, "requiresApproval": true}}}, 0, 0, 1},
	}
	ctx := context.Background()
	for _, l := range all {
		f.s.Clock.Advance(time.Hour) // each listing newer than the one before
		api := f.api
		if l.owner == "bob" {
			api = f.bobAPI
		}
		a := f.create(t, api, l.body)
		_, err := f.s.DB.StoreAgent.UpdateOneID(a["id"].(string)).SetRatingAvg(l.rating).SetRatingCount(l.ratings).
			SetInstallCount(l.install).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	hidden := f.create(t, f.bobAPI, map[string]any{"name": "Hidden Data", "slug": "hidden", "category": "data"})
	if _, err := f.s.DB.StoreAgent.UpdateOneID(hidden["id"].(string)).SetStatus("rejected").Save(ctx); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"delta", "gamma", "beta", "alpha"}},
		{"sort=newest", []string{"delta", "gamma", "beta", "alpha"}},
		{"sort=name", []string{"Alpha Writer", "Delta Dynamic", "Gamma Data", "beta coder"}},
		{"sort=rating", []string{"gamma", "alpha", "beta", "delta"}},
		{"sort=popular", []string{"beta", "alpha", "delta", "gamma"}},
		{"sort=price_asc", []string{"delta", "alpha", "gamma", "beta"}},
		{"sort=price_desc", []string{"beta", "gamma", "delta", "alpha"}},
		{"category=data", []string{"delta", "gamma"}},
		{"pricing=per_task", []string{"gamma", "beta"}},
		{"pricing=paid", []string{"delta", "gamma", "beta"}},
		{"pricing=free", []string{"alpha"}},
		// search matches name, slug, description, developer name and task
		// types, ASCII case folded.
		{"search=BLOG", []string{"gamma", "alpha"}},
		{"search=CODER", []string{"beta"}},
		// and the task types (the skills an agent takes).
		{"search=refactor", []string{"beta"}},
		{"search=CODE_REVIEW", []string{"beta"}},
		{"search=%25", nil},
		{"category=data&pricing=per_task&search=gam", []string{"gamma"}},
		{"limit=2&offset=1", []string{"gamma", "beta"}},
		{"offset=10", nil},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res := f.api.Do(http.MethodGet, "/api/marketplace?"+tc.query, nil)
			if res.Status != http.StatusOK {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			list := res.JSON(t)
			got := slugs(list)
			if tc.query == "sort=name" {
				got = nil
				for _, a := range list["agents"].([]any) {
					got = append(got, a.(map[string]any)["name"].(string))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if list["scope"] != "local" || list["note"] != nil {
				t.Fatalf("scope %v note %v", list["scope"], list["note"])
			}
		})
	}
	page := f.api.Do(http.MethodGet, "/api/marketplace?limit=2&offset=1", nil).JSON(t)["pagination"].(map[string]any)
	if page["total"] != float64(4) || page["limit"] != float64(2) || page["offset"] != float64(1) || page["hasMore"] != true {
		t.Fatalf("pagination = %v", page)
	}
	// The caller's own listings in every status.
	mine := slugs(f.bobAPI.Do(http.MethodGet, "/api/marketplace?mine=true", nil).JSON(t))
	if !slices.Equal(mine, []string{"hidden", "gamma", "beta"}) {
		t.Fatalf("mine = %v", mine)
	}
	// Owner-only fields show on one's own listings, not on others'.
	for _, a := range f.api.Do(http.MethodGet, "/api/marketplace", nil).JSON(t)["agents"].([]any) {
		m := a.(map[string]any)
		own := m["userId"] == f.ann.ID
		if (m["endpointUrl"] != nil) != own || (m["authCredentialSet"] != nil) != own {
			t.Fatalf("%s (own %v): endpointUrl %v authCredentialSet %v", m["slug"], own, m["endpointUrl"], m["authCredentialSet"])
		}
	}
}

// RULINGS "Federation: instances and the platform": on an instance that has
// not joined a hub, scope=global is empty and all is the local store, each
// with a note (docs/decisions.md "Federation: the global store (issue 14)").
func TestBrowseScopes(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	f.create(t, f.api, map[string]any{"name": "Local one"})
	// Not joined to a hub: global is empty, all is the local store, each with
	// a note; every listing is marked local.
	for scope, n := range map[string]int{"global": 0, "all": 1} {
		list := f.api.Do(http.MethodGet, "/api/marketplace?scope="+scope, nil).JSON(t)
		if list["scope"] != scope || list["note"] == nil || len(list["agents"].([]any)) != n {
			t.Fatalf("scope=%s: %v", scope, list)
		}
		if n == 1 && list["agents"].([]any)[0].(map[string]any)["origin"] != "local" {
			t.Fatalf("scope=%s origin: %v", scope, list)
		}
	}
	c := f.client("connect+json", f.annKey)
	res, err := c.ListStoreAgents(context.Background(), &switchboardv1.ListStoreAgentsRequest{Scope: "global", Search: "local"})
	if err != nil || res.Note == nil || len(res.GetAgents()) != 0 || res.GetPagination().GetTotal() != 0 {
		t.Fatalf("connect global: %v %v", res, err)
	}
	res, err = c.ListStoreAgents(context.Background(), &switchboardv1.ListStoreAgentsRequest{})
	if err != nil || res.GetScope() != "local" || res.Note != nil || res.GetAgents()[0].GetOrigin() != "local" || res.GetHubJoined() {
		t.Fatalf("connect default scope: %v %v", res, err)
	}
}

// The list marks what the caller installed and subscribed to, in a fixed
// number of queries.
func TestBrowseMarksRelations(t *testing.T) {
	t.Parallel()
	f := newMarketFixture(t)
	a := f.create(t, f.bobAPI, map[string]any{"name": "One"})
	f.create(t, f.bobAPI, map[string]any{"name": "Two"})
	f.api.Do(http.MethodPost, "/api/marketplace/"+a["id"].(string)+"/install", nil)
	for _, ag := range f.api.Do(http.MethodGet, "/api/marketplace", nil).JSON(t)["agents"].([]any) {
		m := ag.(map[string]any)
		if (m["slug"] == "one") != (m["installed"] == true) || m["subscribed"] != false {
			t.Fatalf("%s installed %v subscribed %v", m["slug"], m["installed"], m["subscribed"])
		}
	}
	for _, ag := range f.bobAPI.Do(http.MethodGet, "/api/marketplace", nil).JSON(t)["agents"].([]any) {
		if ag.(map[string]any)["installed"] != false {
			t.Fatalf("bob sees ann's installation: %v", ag)
		}
	}
}
